import ConversationStore
import ConversationTesting
import Foundation

@testable import Demo

/// Screens the renderer tests draw: a conversation in most of the states a message can be in, a list with
/// unread badges, a reply being streamed while a tool runs.
enum ScreenFixtures {
  static let now = Date.story(100)
  static let ada = AgentInfo(id: "agent-ada", name: "Ada")

  static var list: ConversationListState {
    var list = ConversationListState()
    list.conversations = ConversationList([
      ConversationSummary(
        id: "c-order", title: "Order 1042", lastActivityAt: .story(4), unreadCount: 0,
        lastMessagePreview: "Please call me"),
      ConversationSummary(
        id: "c-refund", title: "Refund for a broken mug", lastActivityAt: .story(-50), unreadCount: 2,
        lastMessagePreview: "A refund is on its way"),
      ConversationSummary(
        id: "c-old", title: "Old question", status: .ended, lastActivityAt: .story(-900),
        lastMessagePreview: "Thanks, bye"),
    ])
    list.hasLoaded = true
    return list
  }

  /// The user asked, Ada answered (rated up), then one message failed and one is queued.
  static var conversation: ConversationState {
    var answer = Message.server("It shipped yesterday and arrives on Thursday.", id: "m-2", at: 2)
    answer.agent = ada
    answer.rating = .up
    var state = ConversationState.existing(
      [.confirmed("Where is my order 1042?", clientID: "c-1", serverID: "m-1", at: 1), answer], id: "c-order")
    state.title = "Order 1042"
    state.connection = .connected
    _ = state.messages.appendOutgoing(
      Message(
        clientID: "c-3", role: .user, text: "Can I change the address?", createdAt: .story(3),
        delivery: .failed(ChatError(.network, "No connection"))))
    _ = state.messages.appendOutgoing(
      Message(clientID: "c-4", role: .user, text: "Please call me", createdAt: .story(4), delivery: .queued))
    return state
  }

  static var screen: DemoScreen {
    DemoScreen(
      list: list, conversation: conversation, selectedRow: 0, composer: "Thanks!", focus: .conversation,
      user: "alice", unread: 2, now: now)
  }

  /// Ada is looking an order up and has written the first words of her answer.
  static var streaming: DemoScreen {
    var state = ConversationState.existing(
      [.confirmed("Where is order 1042?", clientID: "c-1", serverID: "m-1", at: 1)], id: "c-order")
    state.title = "Order 1042"
    state.connection = .connected
    var reply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "r-1", agent: ada, startedAt: .story(2))
    reply.toolCalls = [ToolCall(id: "t-1", name: "lookupOrder", input: ["id": 1042], execution: .client)]
    reply.text = StreamedText("Let me check")
    state.streamingReply = reply
    state.agentActivity = .runningTool("lookupOrder")
    var screen = screen
    screen.conversation = state
    return screen
  }

  /// Ada thought it over, then asked to cancel the order and waits for the user's approval.
  static var awaitingApproval: DemoScreen {
    var answer = Message.server("I can cancel order 1042 for you.", id: "m-2", at: 2)
    answer.agent = ada
    answer.parts = [
      MessagePart(
        id: "r", .reasoning(ReasoningPart(text: "Cancelling cannot be undone, so ask first.", encryptedValue: "OPAQUE"))
      ),
      MessagePart(id: "t", .text("I can cancel order 1042 for you.")),
    ]
    answer.toolCalls = [
      ToolCall(id: "t-1", name: "cancelOrder", input: ["id": 1042], execution: .server, outcome: .awaitingApproval)
    ]
    answer.reply = .awaitingInput([
      InputRequest(id: "approve-t-1", kind: .toolApproval("t-1"), message: "Cancel order 1042?")
    ])
    var state = ConversationState.existing(
      [.confirmed("Please cancel order 1042.", clientID: "c-1", serverID: "m-1", at: 1), answer], id: "c-order")
    state.title = "Order 1042"
    state.connection = .connected
    var screen = screen
    screen.conversation = state
    return screen
  }

  /// Ada streams her answer while two follow-ups wait: a short one, and a long one with wide characters.
  static var queued: DemoScreen {
    var screen = streaming
    screen.conversation?.followUps.turns = [
      OutgoingMessage(clientID: "q-1", text: "And the invoice?", createdAt: .story(3)),
      OutgoingMessage(
        clientID: "q-2", text: "請求書の宛先を変えられますか？ Can the invoice go to my office instead of my home?",
        createdAt: .story(4)),
    ]
    return screen
  }

  /// The user stopped Ada's answer with a follow-up waiting: the queue holds it until `/resume`.
  static var queuePaused: DemoScreen {
    var answer = Message.server("Let me check", id: "m-2", at: 2)
    answer.agent = ada
    answer.reply = .cancelled
    var state = ConversationState.existing(
      [.confirmed("Where is order 1042?", clientID: "c-1", serverID: "m-1", at: 1), answer], id: "c-order")
    state.title = "Order 1042"
    state.connection = .connected
    state.followUps.turns = [OutgoingMessage(clientID: "q-1", text: "And the invoice?", createdAt: .story(3))]
    state.followUps.pause = .answerEnded(answer.clientID, .cancelled)
    var screen = screen
    screen.conversation = state
    return screen
  }

  /// The second reconnect attempt, 2.4 s from now.
  static var reconnecting: DemoScreen {
    var screen = screen
    screen.conversation?.connection = .reconnecting(attempt: 2, retryAt: now.addingTimeInterval(2.4))
    return screen
  }

  /// A bit of everything that is not a message: typing, a ticket, the feedback question, an error, a notice.
  static var busy: DemoScreen {
    var screen = screen
    screen.conversation?.typing = ["agent-ada": now.addingTimeInterval(3)]
    screen.conversation?.escalation = .created(TicketReceipt(ticketID: "T-77"))
    screen.conversation?.feedbackMoment = FeedbackMoment(question: "Was this helpful?")
    screen.conversation?.userError = ChatError(.conversationNotOngoing, "This conversation has ended")
    screen.conversation?.history.loadingRequest = RequestID(epoch: IdentityEpoch(), sequence: 9)
    screen.notice = "The next request will fail."
    return screen
  }

  /// Text that could do harm or be miscounted: an escape sequence, wide characters, emoji, a combining mark.
  static var hostile: DemoScreen {
    var screen = screen
    screen.composer = "日本語 👍🏽 e\u{301}"
    screen.conversation?.title = "注文 1042 \u{1B}[2J"
    _ = screen.conversation?.messages.appendOutgoing(
      Message(
        clientID: "c-5", role: .user, text: "\u{1B}[31mred?\u{7} 🇯🇵 ❤️ 漢字の説明をお願いします", createdAt: .story(5),
        delivery: .sending))
    return screen
  }

  static let all: [(String, DemoScreen)] = [
    ("empty", DemoScreen()), ("conversation", screen), ("streaming", streaming), ("reconnecting", reconnecting),
    ("busy", busy), ("hostile", hostile), ("queued", queued), ("queuePaused", queuePaused),
  ]
}
