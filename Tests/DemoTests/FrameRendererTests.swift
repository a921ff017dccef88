import ConversationStore
import Foundation
import Testing

@testable import Demo

@Suite("Frames, compared as text")
struct FrameRendererTests {
  @Test("80x24: the list with unread badges, a conversation with sent, rated, failed and queued messages")
  func conversationFrame() {
    let frame = FrameRenderer.render(ScreenFixtures.screen, width: 80, height: 24, color: false)
    #expect(
      FrameText.trimmed(frame) == [
        " ConversationStore demo · connected · alice · 2 unread",
        " Conversations (3)        │▸Order 1042 · ongoing",
        "•Order 1042               │ you",
        "  Please call me          │   Where is my order 1042?",
        " Refund for a broken … (2)│ Ada · 👍",
        "  A refund is on its way  │   It shipped yesterday and arrives on Thursday.",
        " Old question             │ you · ✗ failed: No connection",
        "  ended · Thanks, bye     │   Can I change the address?",
        "                          │ you · ⏳ queued",
        "                          │   Please call me",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "──────────────────────────┴─────────────────────────────────────────────────────",
        "> Thanks!",
        "/new /open N /older /retry /discard /regen /stop /approve /deny /answer TEXT /up",
        "/down /feedback good|bad|dismiss /ticket /signin NAME /signout /drop /fail /qui…",
      ])
  }

  @Test("a streamed reply shows its running tool call, its text so far and a cursor")
  func streamingFrame() {
    let frame = FrameRenderer.render(ScreenFixtures.streaming, width: 80, height: 24, color: false)
    #expect(
      FrameText.trimmed(frame)[1...6] == [
        " Conversations (3)        │▸Order 1042 · ongoing",
        "•Order 1042               │ you",
        "  Please call me          │   Where is order 1042?",
        " Refund for a broken … (2)│ Ada",
        "  A refund is on its way  │   ⚙ lookup order 1042…",
        " Old question             │   Let me check▌",
      ])
  }

  @Test(
    "a reply in parts shows its reasoning dimmed and collapsed to its newest words, and a call's input as it streams")
  func partsFrame() {
    // Given a reply that is reasoning and writing a tool call whose arguments are still arriving
    var screen = ScreenFixtures.streaming
    screen.conversation?.streamingReply?.toolCalls = [
      ToolCall(id: "t-2", name: "trackParcel", execution: .server, outcome: .inputStreaming)
    ]
    screen.conversation?.streamingReply?.parts = [
      StreamingPart(
        id: "r", kind: .reasoning, text: StreamedText("The user wants the parcel status."), encryptedValue: "OPAQUE",
        isOpen: true),
      StreamingPart(id: "t-2", kind: .toolCall("t-2"), text: StreamedText(#"{"parcel": "9"#), isOpen: true),
    ]

    // When it is drawn
    let conversation = conversationPane(screen, width: 80, height: 24)

    // Then the reasoning and the streaming input come before the text, never the encrypted value
    #expect(conversation[4] == "   💭 The user wants the parcel status.…")
    #expect(conversation[5] == #"   ⚙ trackParcel({"parcel": "9…"#)
    #expect(conversation[6] == "   Let me check▌")
    #expect(!conversation.joined().contains("OPAQUE"))
  }

  @Test("an older reply still streaming shows above the newest, each with its own text")
  func overlappingFrame() {
    // Given Ada's reply streaming while a person's reply over the connection started after it
    var screen = ScreenFixtures.streaming
    var older = screen.conversation!.streamingReply!
    older.toolCalls = []
    var newer = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 2), clientID: "r-2",
      agent: AgentInfo(id: "sam", name: "Sam"), startedAt: .story(3))
    newer.text = StreamedText("Hi, Sam here")
    screen.conversation?.overlappingReplies = [older]
    screen.conversation?.streamingReply = newer

    // When it is drawn
    let conversation = conversationPane(screen, width: 80, height: 24)

    // Then both show as streaming, each with its cursor, the older first
    #expect(conversation[3] == " Ada")
    #expect(conversation[4] == "   Let me check▌")
    #expect(conversation[5] == " Sam")
    #expect(conversation[6] == "   Hi, Sam here▌")
  }

  @Test("an answer that waits says what the agent asks and how to answer, under its collapsed reasoning")
  func awaitingApprovalFrame() {
    // Given Ada waiting for the user to approve cancelling an order
    let conversation = conversationPane(ScreenFixtures.awaitingApproval, width: 80, height: 24)

    // Then the answer says it waits, its reasoning is one line, and the request names its commands
    #expect(conversation[3] == " Ada · waiting for you")
    #expect(conversation[4] == "   💭 thought it through (7 words; ^R shows it)")
    #expect(conversation[5] == "   I can cancel order 1042 for you.")
    #expect(conversation[6] == "   ❓ Cancel order 1042? /approve or /deny [why]")
    #expect(!conversation.joined().contains("OPAQUE"))
  }

  @Test("an answer with siblings shows its place among them in the full-screen view and the transcript")
  func siblingMark() {
    // Given Ada's answer, regenerated once: the new one is shown, second of two
    var screen = ScreenFixtures.awaitingApproval
    var state = ConversationState.existing(
      [.confirmed("Is my account fine?", clientID: "c-1", serverID: "m-1", at: 1), .server("Yes.", id: "m-2", at: 2)],
      id: "c-order")
    let old = state.messages.removeCommitted(from: "srv-m-2")
    var newer = Message.server("Yes, all in order.", id: "m-3", at: 3)
    newer.agent = ScreenFixtures.ada
    state.branches.keep(old, after: "c-1", replacedBy: newer.clientID)
    state.messages.commit(newer)
    state.unreadCount = 0
    screen.conversation = state

    // When it is drawn, and written to the transcript
    let pane = conversationPane(screen, width: 80, height: 24)
    var transcript = Transcript()
    let printed = transcript.lines(for: screen)

    // Then both say "2 of 2" beside the answer
    #expect(pane.contains(" Ada · ‹ 2/2 ›"))
    #expect(printed.contains("Ada: Yes, all in order.  ‹ 2/2 ›"))
  }

  @Test("a committed answer's tool calls read the same in the full-screen view and the transcript")
  func committedToolCallsAgree() {
    // Given an answer that looked an order up, failed to refund it and was denied cancelling it
    var screen = ScreenFixtures.awaitingApproval
    var answer = Message.server("Order 1042 is on its way.", id: "m-3", at: 3)
    answer.agent = ScreenFixtures.ada
    answer.toolCalls = [
      ToolCall(id: "t-2", name: "lookupOrder", input: ["id": 1042], execution: .client, outcome: .succeeded("shipped")),
      ToolCall(
        id: "t-3", name: "refund_order", input: ["id": 1042], execution: .server,
        outcome: .failed(ChatError(.toolFailed, "card expired"))),
      ToolCall(id: "t-4", name: "cancelOrder", input: ["id": 1042], execution: .server, outcome: .denied(reason: nil)),
    ]
    screen.conversation?.messages.commit(answer)

    // When it is drawn, and written to the transcript
    let pane = conversationPane(screen, width: 80, height: 24)
    let transcript = Transcript.describe(answer)

    // Then both say each call in the same words, under the answer's text
    let said = ["✓ lookup order 1042", "✗ refund order 1042: card expired", "⊘ cancel order 1042: denied"]
    let text = pane.firstIndex(of: "   Order 1042 is on its way.")
    #expect(text.map { Array(pane[($0 + 1)...($0 + 3)]) } == said.map { "   " + $0 })
    #expect(transcript.hasSuffix(said.map { "  [\($0)]" }.joined()))
  }

  @Test("with reasoning shown, an answer's reasoning is drawn whole, wrapped and dimmed, never its encrypted value")
  func reasoningShownWhole() {
    // Given the same answer, with /thoughts on, in a narrow pane
    var screen = ScreenFixtures.awaitingApproval
    screen.showsReasoning = true
    let frame = FrameRenderer.render(screen, width: 60, height: 24, color: true)

    // Then the reasoning takes as many lines as it needs, dimmed
    let conversation = conversationPane(screen, width: 60, height: 24)
    #expect(conversation[4] == "   💭 Cancelling cannot be undone, so")
    #expect(conversation[5] == "   ask first.")
    #expect(conversation[6] == "   I can cancel order 1042 for you.")
    #expect(frame.contains { $0.contains("\u{1B}[2m  💭 Cancelling") })
    #expect(frame.contains { $0.contains("\u{1B}[2m  ask first.") })
    #expect(!frame.joined().contains("OPAQUE"))
  }

  @Test(
    "before any text, the reply says what the agent is doing",
    arguments: [
      (AgentActivity.thinking, false, "  thinking…"),
      (.generating, false, "  thinking…"),
      (.runningTool("lookupOrder"), false, "  ⚙ lookup order…"),
      (.idle, false, "  ▌"),
      (.runningTool("lookupOrder"), true, "  ⚙ lookup order 1042…"),
    ])
  func replyBeforeText(activity: AgentActivity, hasRunningCall: Bool, expected: String) {
    var screen = ScreenFixtures.streaming
    screen.conversation?.streamingReply?.text = StreamedText()
    screen.conversation?.agentActivity = activity
    if !hasRunningCall { screen.conversation?.streamingReply?.toolCalls = [] }
    let conversation = conversationPane(screen, width: 80, height: 24)
    #expect(conversation[3] == " Ada")
    #expect(conversation[4] == " " + expected)
    #expect(conversation[5] == "")
  }

  @Test(
    "the status line says where the connection is, with the reconnect countdown rounded up",
    arguments: [
      (ConnectionState.reconnecting(attempt: 2, retryAt: ScreenFixtures.now + 2.4), "reconnecting in 3 s (attempt 2)"),
      (.reconnecting(attempt: 1, retryAt: ScreenFixtures.now + 0.2), "reconnecting in 1 s (attempt 1)"),
      (.reconnecting(attempt: 5, retryAt: ScreenFixtures.now - 1), "reconnecting… (attempt 5)"),
      (.connecting, "connecting…"),
      (.syncing, "syncing"),
      (.closed, "offline"),
      (.idle, "not connected"),
    ])
  func connectionWords(connection: ConnectionState, expected: String) {
    var screen = ScreenFixtures.screen
    screen.conversation?.connection = connection
    let frame = FrameRenderer.render(screen, width: 80, height: 24, color: false)
    #expect(FrameText.trimmed(frame)[0] == " ConversationStore demo · \(expected) · alice · 2 unread")
  }

  @Test("a guest with nothing unread and a credential that needs signing in again")
  func guestNeedingSignIn() {
    var screen = ScreenFixtures.screen
    screen.user = nil
    screen.unread = 0
    screen.conversation?.credentials = .needed(ChatError(.unauthorized, "Expired", status: 401))
    screen.conversation?.connection = .closed
    let frame = FrameRenderer.render(screen, width: 80, height: 24, color: false)
    #expect(FrameText.trimmed(frame)[0] == " ConversationStore demo · needs sign-in · guest")
  }

  @Test(
    "the conversation header says who has the conversation",
    arguments: [
      (ConversationStatus.ongoing, "ongoing"), (.takenOver, "a human agent has it"), (.ended, "ended"),
      (.notFound, "not found"), (.unavailable, "chat unavailable"),
    ])
  func statusWords(status: ConversationStatus, expected: String) {
    var screen = ScreenFixtures.screen
    screen.conversation?.status = status
    #expect(conversationPane(screen, width: 80, height: 24)[0] == "▸Order 1042 · \(expected)")
  }

  @Test("loading older history, typing, a ticket, the feedback question, an error and a notice")
  func busyFrame() {
    let frame = FrameText.trimmed(FrameRenderer.render(ScreenFixtures.busy, width: 80, height: 24, color: false))
    #expect(
      frame[1...] == [
        " Conversations (3)        │▸Order 1042 · ongoing",
        "•Order 1042               │ loading older messages…",
        "  Please call me          │ you",
        " Refund for a broken … (2)│   Where is my order 1042?",
        "  A refund is on its way  │ Ada · 👍",
        " Old question             │   It shipped yesterday and arrives on Thursday.",
        "  ended · Thanks, bye     │ you · ✗ failed: No connection",
        "                          │   Can I change the address?",
        "                          │ you · ⏳ queued",
        "                          │   Please call me",
        "                          │ agent is typing…",
        "                          │ ✓ ticket T-77 created",
        "                          │ Was this helpful? /feedback good|bad|dismiss",
        "                          │",
        "                          │",
        "                          │",
        "                          │",
        "──────────────────────────┴─────────────────────────────────────────────────────",
        "✗ This conversation has ended",
        "The next request will fail.",
        "> Thanks!",
        "/new /open N /older /retry /discard /regen /stop /approve /deny /answer TEXT /up",
        "/down /feedback good|bad|dismiss /ticket /signin NAME /signout /drop /fail /qui…",
      ])
  }

  @Test("typing indicators that have expired by the screen's clock are not shown")
  func expiredTyping() {
    var screen = ScreenFixtures.busy
    screen.conversation?.typing = ["agent-ada": ScreenFixtures.now - 1]
    #expect(!conversationPane(screen, width: 80, height: 24).contains("agent is typing…"))
    screen.conversation?.typing = ["agent-ada": ScreenFixtures.now + 1, "agent-bo": ScreenFixtures.now + 1]
    #expect(conversationPane(screen, width: 80, height: 24).contains(" 2 people are typing…"))
  }

  @Test("a long history keeps the newest message visible at the bottom")
  func newestVisible() {
    let screen = Self.longConversation(count: 30)
    let pane = conversationPane(screen, width: 80, height: 24)
    let older = [" Ada", "   Answer 25"]
    let newest = (26...29).flatMap { [" you", "   Question \($0)", " Ada", "   Answer \($0)"] }
    #expect(pane[1...] == ArraySlice(older + newest))
  }

  @Test("a selected message above the newest ones is scrolled into view and marked")
  func selectedMessageVisible() {
    var screen = Self.longConversation(count: 30)
    screen.selectedMessage = "c-3"
    let pane = conversationPane(screen, width: 80, height: 24)
    #expect(pane[1...3] == [" ▸ you", "   Question 3", " Ada"])
  }

  @Test("the list scrolls to keep the row under the cursor in view")
  func listScrolls() {
    var screen = ScreenFixtures.screen
    screen.list.conversations = ConversationList(
      (1...20).map { ConversationSummary(id: "c-\($0)", title: "Chat \($0)", lastMessagePreview: "Preview \($0)") })
    screen.selectedRow = 14
    screen.focus = .list
    let list = FrameText.trimmed(
      FrameRenderer.render(screen, width: 80, height: 24, color: false).map { String($0.prefix(26)) })
    #expect(list[1] == "▸Conversations (20)")
    // Eighteen rows show nine conversations: 7 to 15, the cursor's on the last.
    #expect(list[2] == " Chat 7")
    #expect(list[18] == " Chat 15")
    #expect(list[19] == "  Preview 15")
  }

  @Test("120x40: a wider list, and all of the help in two lines")
  func wideFrame() {
    let frame = FrameText.trimmed(FrameRenderer.render(ScreenFixtures.screen, width: 120, height: 40, color: false))
    #expect(frame.count == 40)
    #expect(frame[1] == " Conversations (3)                      │▸Order 1042 · ongoing")
    #expect(frame[4] == " Refund for a broken mug             (2)│ Ada · 👍")
    #expect(frame[36] == "─" * 40 + "┴" + "─" * 79)
    #expect(frame[37] == "> Thanks!")
    #expect(
      frame[38] == "/new /open N /older /retry /discard /regen /stop /approve /deny /answer TEXT /up /down "
        + "/feedback good|bad|dismiss")
    #expect(
      frame[39]
        == "/ticket /signin NAME /signout /drop /fail /quit Tab focus ↑↓ move PgUp older Esc stop ^R thoughts ^C quit")
  }

  @Test("40x10: only the focused pane, one help line")
  func tinyFrame() {
    var screen = ScreenFixtures.screen
    #expect(
      FrameText.trimmed(FrameRenderer.render(screen, width: 40, height: 10, color: false)) == [
        " ConversationStore demo · connected · a…",
        "▸Order 1042 · ongoing",
        "   Thursday.",
        " you · ✗ failed: No connection",
        "   Can I change the address?",
        " you · ⏳ queued",
        "   Please call me",
        "────────────────────────────────────────",
        "> Thanks!",
        "/new /open N /older /retry /discard /re…",
      ])
    screen.focus = .list
    #expect(
      FrameText.trimmed(FrameRenderer.render(screen, width: 40, height: 10, color: false))[1...6] == [
        "▸Conversations (3)",
        "•Order 1042",
        "  Please call me",
        " Refund for a broken mug             (2)",
        "  A refund is on its way",
        "",
      ])
  }

  @Test("the composer shows its end when it is longer than the line, and the cursor sits after it")
  func longComposer() {
    var screen = ScreenFixtures.screen
    screen.composer = String(repeating: "abcdefghij", count: 10)
    let frame = FrameRenderer.render(screen, width: 40, height: 10, color: false)
    let cursor = FrameRenderer.cursor(screen, width: 40, height: 10)
    #expect(frame[8] == "> …" + String(repeating: "abcdefghij", count: 4).suffix(36) + " ")
    #expect(cursor == CursorPosition(row: 8, column: 39))
    screen.composer = "日本"
    #expect(FrameRenderer.cursor(screen, width: 40, height: 10) == CursorPosition(row: 8, column: 6))
  }

  private func conversationPane(_ screen: DemoScreen, width: Int, height: Int) -> [String] {
    let frame = FrameText.trimmed(FrameRenderer.render(screen, width: width, height: height, color: false))
    return frame[1..<(height - 4)].map { line in
      guard let separator = line.firstIndex(of: "│") else { return "" }
      return String(line[line.index(after: separator)...])
    }
  }

  /// `count` questions each answered by Ada.
  static func longConversation(count: Int) -> DemoScreen {
    var messages: [Message] = []
    for number in 0..<count {
      messages.append(
        .confirmed("Question \(number)", clientID: "c-\(number)", serverID: "q-\(number)", at: Double(number * 2)))
      var answer = Message.server("Answer \(number)", id: "a-\(number)", at: Double(number * 2 + 1))
      answer.agent = ScreenFixtures.ada
      messages.append(answer)
    }
    var state = ConversationState.existing(messages, id: "c-order")
    state.title = "Order 1042"
    var screen = ScreenFixtures.screen
    screen.conversation = state
    return screen
  }
}

extension String {
  fileprivate static func * (text: String, count: Int) -> String { String(repeating: text, count: count) }
}
