import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

/// A host coming from Ago's mobile SDK: its reply stream is data frames with `content` and `message_id`, a
/// bare `data: heartbeat` to keep alive, and `status` `DONE` or `ERROR` to end; none of its sample frames
/// names the conversation. The frames here are shaped as Ago's documented samples read them.
@Suite("Ago's reply frames", .hangGuard)
struct AgoFrameTests {
  static let newThread = SendPayload(conversationID: nil, clientID: "c-1", text: "Where is my order?", attachments: [])

  /// An answer as Ago streams it, in a thread, then `last` as its final frame.
  static func answer(last: String = #"{"status": "DONE"}"#) -> String {
    """
    data: {"content": "Your order ", "message_id": "msg_41"}

    data: heartbeat

    data: {"content": "ships Monday.", "message_id": "msg_41"}

    data: \(last)


    """
  }

  @Test("in a thread the app already has, Ago's frames stream the answer and DONE completes it")
  func knownThread() throws {
    // Given a message sent in a thread the device knows
    let inThread = SendPayload(conversationID: "th_7", clientID: "c-1", text: "Where is my order?", attachments: [])

    // When Ago's frames come, in small pieces
    let (events, error) = mapReply(Self.answer(), mapper: ReplyStreamMapper(sending: inThread, at: received))

    // Then the question is accepted in that thread, the words stream, and the answer is the reply's message
    #expect(error == nil)
    guard events.count == 5, case .accepted(let question, "th_7") = events[0],
      case .finished(let reply, nil) = events[4]
    else {
      Issue.record("unexpected events \(events)")
      return
    }
    #expect(question.clientID == "c-1" && question.serverID == nil)
    #expect(events[1] == .started(agent: nil, replyID: "msg_41"))
    #expect(events[2] == .delta("Your order ") && events[3] == .delta("ships Monday."))
    #expect(reply.text == "Your order ships Monday." && reply.serverID == "msg_41")
  }

  @Test("a new thread named only on the last frame, with its title: the answer is kept and goes to that thread")
  func newThreadNamedLate() throws {
    // Given the first message of a new thread, and an answer whose DONE frame names the thread
    let done = #"{"status": "DONE", "thread": {"id": "th_9", "title": "Order delivery"}}"#

    // When the frames come
    let (events, error) = mapReply(
      Self.answer(last: done), mapper: ReplyStreamMapper(sending: Self.newThread, at: received))

    // Then nothing is lost: the question is accepted into th_9 first, then the words, the thread's title and
    // the finished answer, in order
    #expect(error == nil)
    guard events.count == 6, case .accepted(_, "th_9") = events[0], case .finished(let reply, _) = events[5] else {
      Issue.record("unexpected events \(events)")
      return
    }
    #expect(events[1] == .started(agent: nil, replyID: "msg_41"))
    #expect(events[2] == .delta("Your order ") && events[3] == .delta("ships Monday."))
    #expect(events[4] == .described(title: "Order delivery", status: nil))
    #expect(reply.text == "Your order ships Monday.")
  }

  @Test(
    "a new thread named on the first frame streams at once, by whichever key names it",
    arguments: [#""thread_id": "th_9""#, #""thread": {"id": "th_9"}"#, #""conversation_id": "th_9""#])
  func newThreadNamedFirst(key: String) throws {
    // Given a first frame that names the thread beside the first words
    var mapper = ReplyStreamMapper(sending: Self.newThread, at: received)
    let first = ServerSentEvent(data: #"{"content": "Your order ", "message_id": "msg_41", \#(key)}"#)

    // When it arrives
    let events = try mapper.map(first)

    // Then the question is accepted into the thread and the words show, without waiting for the end
    guard events.count == 3, case .accepted(_, "th_9") = events[0] else {
      Issue.record("unexpected events \(events)")
      return
    }
    #expect(events[1] == .started(agent: nil, replyID: "msg_41") && events[2] == .delta("Your order "))
  }

  @Test("a new thread no frame ever names fails typed at DONE, before anything reached the conversation")
  func newThreadNeverNamed() {
    // Given the first message of a new thread, answered with Ago's sample frames exactly (no thread named)
    let (events, error) = mapReply(Self.answer(), mapper: ReplyStreamMapper(sending: Self.newThread, at: received))

    // Then the reply fails with INVALID_EVENT saying what was missing, and nothing was reported: the store keeps
    // the user's message to send again, and no answer lands in a conversation without an ID
    #expect(error?.code == .invalidEvent)
    #expect(error?.message.contains("thread_id") == true)
    #expect(events.isEmpty)
  }

  @Test("Ago's ERROR frame ends a new thread's reply with the server's failure, named or not")
  func errorBeforeNamed() {
    let (events, error) = mapReply(
      Self.answer(last: #"{"status": "ERROR"}"#), mapper: ReplyStreamMapper(sending: Self.newThread, at: received))
    #expect(error?.code == .providerError && error?.retryable == true)
    #expect(events.isEmpty)
  }

  @Test("a server that streams past the reply's size without naming the thread is cut off with REPLY_TOO_LARGE")
  func heldFramesAreBounded() {
    // Given a policy that allows a reply of 100 bytes
    var policy = ChatPolicy()
    policy.maximumReplyBytes = 100
    let frames = String(repeating: #"data: {"content": "0123456789012345678901234567890123456789"}"# + "\n\n", count: 5)

    // When a new thread's frames pass it, none naming the thread
    let (events, error) = mapReply(
      frames + "data: {\"status\": \"DONE\"}\n\n",
      mapper: ReplyStreamMapper(sending: Self.newThread, at: received, policy: policy))

    // Then the stream ends with REPLY_TOO_LARGE, nothing reported
    #expect(error?.code == .replyTooLarge)
    #expect(events.isEmpty)
  }

  @Test("an app's first message, answered in Ago's frames over HTTP, opens the thread Ago named, with its title")
  func firstMessageOverHTTP() async throws {
    // Given a new conversation on a server that answers as Ago documents (the thread named on DONE)
    let server = try await MisbehavingServer.start()
    let store = try misbehavingStore(server, "ago-frames")
    defer { store.close() }

    // When the user writes
    store.sendMessage("Where is my order?")

    // Then the answer streams in whole, and the conversation is the thread Ago named, with its title
    let done = try #require(await store.state(where: { $0.messages.last?.reply == .completed }))
    #expect(done.conversationID == "th-9")
    #expect(done.title == "Order delivery")
    #expect(done.messages.map(\.text) == ["Where is my order?", "Hello from the misbehaving server."])
    #expect(failure(in: done) == nil)
  }
}
