import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Content that is not what the protocol says is a typed error with the status kept, never a success;
/// what the protocol allows (heartbeat words, CR line ends, a BOM) is read as it is meant.
@Suite("A misbehaving server's content", .hangGuard)
struct WrongContentTests {
  static let reply = "Hello from the misbehaving server."

  @Test(
    "a reply with keep-alive words, CR or split CRLF line ends, or a BOM finishes with its whole text",
    arguments: ["heartbeat-word", "sse-cr-line-ends", "sse-crlf-split", "sse-bom", "ago-frames", "ok"])
  func readAsMeant(name: String) async throws {
    let server = try await MisbehavingServer.start()
    let (events, error) = try await collect(server.backend(name).send(Self.payload))

    #expect(error == nil)
    guard case .finished(let message, _) = events.last else {
      Issue.record("no finish: \(events)")
      return
    }
    #expect(text(of: events) == Self.reply)
    #expect(message.text == Self.reply)
  }

  @Test(
    "an answer of the wrong kind is INVALID_RESPONSE with the status kept, for a send and for a page",
    arguments: ["html-portal", "event-stream-json-call", "not-json"])
  func wrongKind(name: String) async throws {
    let server = try await MisbehavingServer.start()
    let backend = try server.backend(name)

    let page = await Result(catching: { try await backend.history(of: "conv-1", before: nil, limit: 20) })
    #expect((page.failure as? ChatError)?.code == .invalidResponse, "\(page)")
    #expect((page.failure as? ChatError)?.status == 200)
    if name == "html-portal" {
      // A call with nothing to read is not taken as done on a portal's page either
      let rated = await Result(catching: { try await backend.rate("m-2", in: "conv-1", as: .up) })
      #expect((rated.failure as? ChatError)?.code == .invalidResponse, "\(rated)")
      let (events, sendError) = await collect(backend.send(Self.payload))
      #expect(events.isEmpty, "a portal page is never an answer")
      #expect(sendError?.code == .invalidResponse && sendError?.status == 200)
    }
  }

  @Test("a 200 whose JSON body is an error keeps the server's code, for a page and for a send")
  func errorIn200() async throws {
    let server = try await MisbehavingServer.start()

    let page = await Result(catching: {
      try await server.backend("json-error-200").history(of: "conv-1", before: nil, limit: 20)
    })
    let (_, sendError) = try await collect(server.backend("send-json-error-200").send(Self.payload))

    #expect((page.failure as? ChatError)?.code == "ACCOUNT_SUSPENDED")
    #expect(sendError?.code == "ACCOUNT_SUSPENDED")
    #expect(sendError?.status == 200)
  }

  @Test("a frame that is not JSON, arriving with the deltas before it, ends the reply INVALID_EVENT with those kept")
  func malformedAfterDeltas() async throws {
    let server = try await MisbehavingServer.start()
    let store = try misbehavingStore(server, "malformed-after-deltas")
    defer { store.close() }

    store.sendMessage("Hi")
    let ended = await store.state(within: 30) { failure(in: $0) != nil && $0.streamingReply == nil }

    #expect(ended.flatMap(failure(in:))?.code == .invalidEvent)
    #expect(ended?.messages.last?.text == "Hello there", "the text that came before the bad frame stays")
  }

  @Test("a body dripped a byte at a time fails with TIMEOUT once the request's time is up")
  func drippedAnswer() async throws {
    let server = try await MisbehavingServer.start()
    var conversation = ConversationState()
    conversation.conversationID = "conv-1"
    let store = try misbehavingStore(server, "drip", state: conversation, policy: MisbehavingServer.timingOutPolicy)
    defer { store.close() }

    store.send(.loadHistory(pageSize: 20))
    let failed = await store.state(within: 40) { $0.userError != nil }

    #expect(failed?.userError?.code == .timeout)
  }

  @Test("a reply stream whose bytes never end a line fails with TIMEOUT after the idle time")
  func drippedStream() async throws {
    let server = try await MisbehavingServer.start()
    let (events, error) = try await collect(
      server.backend("drip-stream", policy: MisbehavingServer.timingOutPolicy).send(Self.payload))

    #expect(events.isEmpty)
    #expect(error?.code == .timeout)
  }

  static let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "Hi", attachments: [])
}

extension Result where Failure == any Error {
  /// The result of an async throwing call.
  init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }

  var failure: (any Error)? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
