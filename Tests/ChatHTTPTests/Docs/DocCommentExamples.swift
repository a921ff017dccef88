import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

// The Swift examples of the ChatHTTP module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and, where that is cheap, run.
// `Tokens` is the README's token store (`ReadmeHTTPTests`); `login` stands for the host's sign-in.

/// The host's sign-in, which renews a token.
private struct Login: Sendable {
  let renew: @Sendable () async throws -> String = { "t2" }
}
private let login = Login()

/// Makes a client of the chat server: compiled, not run (the README's test runs it against the reference server).
private func httpChatBackendExample() throws -> ChatClient {
  // DOCC-HTTPCHATBACKEND-BEGIN
  let tokens = Tokens(renew: login.renew)  // the host's token store (see the README)
  let backend = try HTTPChatBackend(baseURL: URL(string: "https://chat.example.com/v1")!) {
    await tokens.current()  // read before every request
  }
  let client = ChatClient(backend: backend, credentials: { try await tokens.refresh() })
  // DOCC-HTTPCHATBACKEND-END
  return client
}

@Suite("ChatHTTP's doc-comment examples")
struct ChatHTTPDocCommentTests {
  @Test("a reply's SSE frames map to the store's reply events")
  func replyStreamMapper() async throws {
    // Given a reply stream in the protocol's frames, in one chunk
    let payload = SendPayload(conversationID: nil, clientID: "c1", text: "Hi", attachments: [])
    var decoder = ServerSentEventDecoder()
    let chunk = Array(
      ("event: start\ndata: {\"conversation_id\": \"conv-9\"}\n\n"
        + "event: text-delta\ndata: {\"delta\": \"Hello\"}\n\nevent: finish\ndata: {}\n\n").utf8)
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()

    // When the doc comment's loop maps it
    // DOCC-REPLYSTREAMMAPPER-BEGIN
    var mapper = ReplyStreamMapper(sending: payload, at: Date())
    for item in try decoder.feed(chunk) {
      if case .event(let event) = item { for reply in try mapper.map(event) { continuation.yield(reply) } }
    }
    for reply in try mapper.finish() { continuation.yield(reply) }
    // DOCC-REPLYSTREAMMAPPER-END
    continuation.finish()

    // Then the delta came through
    var events: [ReplyEvent] = []
    for try await event in stream { events.append(event.unpositioned) }
    #expect(events.contains(.delta("Hello")), "\(events)")
    _ = httpChatBackendExample
  }

  @Test("a list frame becomes the list's events")
  func listEvents() throws {
    let list = ConversationListStore(backend: try ScriptedBackend(clock: TestClock()), environment: .deterministic())
    defer { list.close() }
    list.send(.realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Old"))))
    let event = ServerSentEvent(
      type: "conversation.updated", data: #"{"conversation_id": "c1", "title": "New"}"#, lastEventID: "")
    // DOCC-LISTEVENTS-BEGIN
    if let events = try RealtimeEventMapper.listEvents(event, receivedAt: Date()) {
      for event in events { list.send(.realtime(event)) }
    }
    // DOCC-LISTEVENTS-END
    #expect(list.state.conversations["c1"]?.title == "New")
  }
}
