import ChatHTTP
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

/// Decodes `stream` (an event-stream body) in `chunk`-byte pieces and maps every event, as the backend does.
func mapReply(
  _ stream: String, chunk: Int = 7, mapper start: ReplyStreamMapper = ReplyStreamMapper(sending: sent, at: received)
) -> (events: [ReplyEvent], error: ChatError?) {
  var mapper = start
  var decoder = ServerSentEventDecoder()
  var events: [ReplyEvent] = []
  let bytes = Array(stream.utf8)
  do throws(ChatError) {
    for offset in stride(from: 0, to: bytes.count, by: chunk) {
      let items: [ServerSentEventDecoder.Item]
      do {
        items = try decoder.feed(bytes[offset..<min(offset + chunk, bytes.count)])
      } catch {
        throw ChatError(.eventTooLarge, error.description)
      }
      for case .event(let event) in items {
        events += try mapper.map(event)
      }
    }
    try mapper.finish()
    return (events, nil)
  } catch {
    return (events, error)
  }
}

let sent = SendPayload(conversationID: "conv-1", clientID: "c-1", text: "Where is my order?", attachments: [])
let received = Date(timeIntervalSince1970: 1_764_558_000)
let userJSON =
  #"{"id": "m-7", "client_id": "c-1", "role": "user", "text": "Where is my order?", "created_at": "2026-12-01T03:00:00.125Z"}"#

@Suite("Reply frames: both styles into the store's reply events")
struct ReplyStreamMapperTests {
  @Test("data frames: the user's message accepted, the words streamed, heartbeats skipped, DONE finishes")
  func dataFrames() throws {
    // Given a style A reply with a heartbeat in the middle
    let stream = """
      data: {"conversation_id": "conv-1", "user_message": \(userJSON), "message_id": "m-8"}

      data: {"message_id": "m-8", "content": "It ships "}

      : comment heartbeat
      data: {"type": "heartbeat"}

      data: {"message_id": "m-8", "content": "Monday."}

      data: {"message_id": "m-8", "status": "DONE", "created_at": "2026-12-01T03:00:02.000Z", "user_message_id": "m-7"}


      """

    // When it is decoded in small pieces
    let (events, error) = mapReply(stream)

    // Then the store sees accept, start, two deltas and the finished reply with the whole text
    #expect(error == nil)
    guard events.count == 5, case .accepted(let user, let conversation) = events[0],
      case .finished(let reply, let userMessageID) = events[4]
    else {
      Issue.record("unexpected events \(events)")
      return
    }
    #expect(conversation == "conv-1")
    #expect(user.clientID == "c-1" && user.serverID == "m-7" && user.role == .user)
    #expect(events[1] == .started(agent: nil, replyID: "m-8"))
    #expect(events[2] == .delta("It ships ") && events[3] == .delta("Monday."))
    #expect(reply.text == "It ships Monday." && reply.serverID == "m-8" && reply.role == .assistant)
    #expect(userMessageID == "m-7")
  }

  @Test("typed events: start, deltas, a client tool call and its result, finish with usage and the user's ID")
  func typedEvents() throws {
    let stream = """
      event: start
      data: {"conversation_id": "conv-1", "user_message": \(userJSON), "message_id": "m-8", "agent": {"id": "fin", "name": "Fin"}}

      event: text-delta
      data: {"delta": "Checking "}

      event: tool-call
      data: {"tool_call_id": "t-1", "tool_name": "lookupOrder", "input": {"order_id": "1042"}, "execution": "client"}

      event: tool-result
      data: {"tool_call_id": "t-1", "result": {"status": "shipped"}}

      event: text-delta
      data: {"delta": "it shipped."}

      event: finish
      data: {"message": {"id": "m-8", "role": "assistant", "text": "Checking it shipped.", "created_at": "2026-12-01T03:00:02.5Z"}, "user_message_id": "m-7", "finish_reason": "stop", "usage": {"input_tokens": 12, "output_tokens": 40, "reasoning_tokens": 9}}


      """

    let (events, error) = mapReply(stream, chunk: 13)

    #expect(error == nil)
    #expect(events.count == 7)
    #expect(events[1] == .started(agent: AgentInfo(id: "fin", name: "Fin"), replyID: "m-8"))
    let call = ToolCall(id: "t-1", name: "lookupOrder", input: ["order_id": "1042"], execution: .client)
    #expect(events[3] == .toolCall(call), "tool input keys are kept as the server wrote them")
    #expect(events[4] == .toolResult("t-1", .succeeded(["status": "shipped"])))
    guard case .finished(let reply, let userMessageID) = events.last else {
      Issue.record("no finish in \(events)")
      return
    }
    #expect(reply.usage == Usage(inputTokens: 12, outputTokens: 40, reasoningTokens: 9))
    #expect(reply.finishReason == .stop && reply.agent?.name == "Fin")
    #expect(userMessageID == "m-7")
  }

  @Test("a first frame without the user's message accepts the device's copy (no server ID yet)")
  func acceptsLocalCopy() {
    let (events, error) = mapReply("event: text-delta\ndata: {\"delta\": \"Hi\"}\n\nevent: finish\ndata: {}\n\n")

    #expect(error == nil)
    guard case .accepted(let user, "conv-1") = events.first else {
      Issue.record("not accepted first: \(events)")
      return
    }
    #expect(user.clientID == "c-1" && user.serverID == nil && user.text == "Where is my order?")
    #expect(events.dropFirst().first == .started(agent: nil, replyID: nil))
  }

  @Test("event types this client does not know are ignored")
  func unknownTypesIgnored() {
    let (events, error) = mapReply(
      "event: reasoning-delta\ndata: {\"x\": 1}\n\nevent: text-delta\ndata: {\"delta\": \"ok\"}\n\nevent: finish\ndata: {}\n\n"
    )

    #expect(error == nil)
    #expect(events.contains(.delta("ok")))
    #expect(events.count == 4)
  }

  @Test(
    "a frame whose JSON cannot be read ends the reply with INVALID_EVENT, keeping what came before",
    arguments: [
      "data: {\"content\": \"half",
      "event: text-delta\ndata: not json",
      "event: text-delta\ndata: {\"delta\": 5}",
      "event: tool-call\ndata: {\"tool_name\": \"x\"}",
      "event: finish\ndata: [1, 2]",
      "data: {\"user_message\": {\"id\": \"m\", \"role\": \"robot\", \"text\": \"\", \"created_at\": \"2026-12-01T00:00:00Z\"}}",
    ])
  func malformed(frame: String) {
    let (events, error) = mapReply("event: text-delta\ndata: {\"delta\": \"so far\"}\n\n\(frame)\n\n")

    #expect(error?.code == .invalidEvent)
    #expect(events.contains(.delta("so far")))
  }

  @Test("a body that ends before DONE or finish is INCOMPLETE_STREAM (retryable)", arguments: [1, 5, 4096])
  func incomplete(chunk: Int) {
    let (events, error) = mapReply(
      "data: {\"conversation_id\": \"conv-1\", \"content\": \"It ships\"}\n\n", chunk: chunk)

    #expect(events.last == .delta("It ships"))
    #expect(error?.code == .incompleteStream)
    #expect(error?.retryable == true)
  }

  @Test("an error frame ends the reply with the server's code, in both styles")
  func serverError() {
    let typed = mapReply("event: error\ndata: {\"code\": \"CREDIT_LIMIT_REACHED\", \"message\": \"No credits\"}\n\n")
    let frames = mapReply(
      "data: {\"status\": \"ERROR\", \"error\": {\"code\": \"PROVIDER_ERROR\", \"message\": \"x\"}}\n\n")

    #expect(typed.error?.code == .creditLimitReached && typed.error?.message == "No credits")
    #expect(frames.error?.code == .providerError && frames.error?.retryable == true)
  }

  @Test("the reply to a new conversation must name it")
  func newConversationNeedsID() {
    let new = SendPayload(conversationID: nil, clientID: "c-1", text: "Hi", attachments: [])
    let (_, error) = mapReply(
      "event: text-delta\ndata: {\"delta\": \"Hi\"}\n\n", mapper: ReplyStreamMapper(sending: new, at: received))
    let named = mapReply(
      "event: start\ndata: {\"conversation_id\": \"conv-9\"}\n\nevent: finish\ndata: {}\n\n",
      mapper: ReplyStreamMapper(sending: new, at: received))

    #expect(error?.code == .invalidEvent)
    #expect(named.error == nil)
    guard case .accepted(_, "conv-9") = named.events.first else {
      Issue.record("not accepted into conv-9: \(named.events)")
      return
    }
  }

  @Test("a regeneration accepts nothing: it starts and streams")
  func regeneration() {
    let (events, error) = mapReply(
      "event: text-delta\ndata: {\"delta\": \"Again\"}\n\nevent: finish\ndata: {}\n\n",
      mapper: ReplyStreamMapper(regeneratingIn: "conv-1", at: received))

    #expect(error == nil)
    #expect(events.first == .started(agent: nil, replyID: nil))
    #expect(events.count == 3)
  }
}
