import CGtk
import ConversationStore
import Foundation

/// The self-test's second part: the agent features, each driven through the window (its buttons pressed as
/// a click does) and checked in its widgets against the store.
extension SelfTest {
  /// What the feature checks found, for the JSON line.
  typealias Findings = [String: any Sendable]

  /// Offline and back: the banner says offline and counts the message waiting, then nothing waits.
  func checkOffline() async throws -> Findings {
    await GLibMainLoop.run { _ = window.chat.send(.disconnect) }
    try await waitUntil("the window shows the connection closed", timeout: 5) {
      window.chat.state.connection.isOffline && window.isUpToDate
    }
    await GLibMainLoop.run { window.send("Written while offline") }
    try await waitUntil("the window shows the message waiting", timeout: 5) {
      ChatWindow.waitingCount(window.chat.state) == 1 && window.isUpToDate
    }
    let offline = try await GLibMainLoop.run { try window.checkBanner(offline: true, waiting: 1) }
    await GLibMainLoop.run { _ = window.chat.send(.connect) }
    try await waitForSettledReply(timeout: 15)
    let online = try await GLibMainLoop.run { try window.checkBanner(offline: false, waiting: 0) }
    return ["banner_offline": offline, "banner_online": online]
  }

  /// Pins: with a second, newer conversation on top, Pin puts the one on screen first, marked, titled.
  func checkPinnedList(other: ChatStore) async throws -> Findings {
    await GLibMainLoop.run {
      window.agent.queueAnswer(to: "A second conversation", wordInterval: 0.005)
      other.sendMessage("A second conversation")
    }
    try await waitUntil("the list shows both conversations, the newer first", timeout: 10) {
      let list = window.client.list.state
      return list.shown.count == 2 && list.shown.first?.id == other.state.conversationID
        && other.state.streamingReply == nil && window.shownList == list
    }
    try await GLibMainLoop.run { try window.press(window.pinButton, "Pin") }
    try await waitUntil("the list shows the conversation pinned", timeout: 5) {
      let list = window.client.list.state
      return list.shown.first?.id == window.chat.state.conversationID && window.shownList == list
    }
    return ["list": try await GLibMainLoop.run { try window.checkListPinnedFirst() }]
  }

  /// An approval: Approve and Deny shown with the question; `approve` presses one, and the call ends
  /// `succeeded` or `denied`. `beforeAnswering` runs while the buttons are on screen (the screenshot).
  func checkApproval(
    of tool: String, approve: Bool, beforeAnswering: @Sendable () async throws -> Void = {}
  ) async throws -> Findings {
    await GLibMainLoop.run {
      window.send("Please \(tool) order 1042") { $0.queueApproval(of: tool, question: "Run \(tool) on order 1042?") }
    }
    try await waitUntil("the window shows the approval", timeout: 10) {
      RowContent.openApproval(in: ChatWindow.lastAnswer(in: window.chat.state)?.reply) != nil && window.isUpToDate
        && window.isLastAnswerOnScreen
    }
    let question = try await GLibMainLoop.run { try window.checkApprovalShown() }
    let answer = try await GLibMainLoop.run { try window.lastAnswerRow().0.clientID }
    let waiting = try await GLibMainLoop.run {
      try window.checkToolLines(of: answer, expected: ["🔧 \(tool) — awaiting your approval"])
    }
    try await beforeAnswering()
    try await GLibMainLoop.run {
      let row = try window.shownRow(of: answer)
      try window.press(approve ? row.approveButton : row.denyButton, approve ? "Approve" : "Deny")
    }
    try await waitUntil("the continued answer is shown", timeout: 10) {
      window.chat.state.messages[clientID: answer]?.reply == .completed && window.chat.state.streamingReply == nil
        && window.isUpToDate && window.isLastAnswerOnScreen
    }
    let outcome = approve ? "succeeded" : "denied"
    let lines = try await GLibMainLoop.run {
      try window.checkApprovalGone(answer)
      return try window.checkToolLines(of: answer, expected: ["🔧 \(tool) — \(outcome)"])
    }
    return ["question": question, "before": waiting, "after": lines]
  }

  /// An answer with reasoning (shown collapsed, then opened), two tool calls (one succeeded, one failed)
  /// and two sources (titled links).
  func checkResearchedAnswer() async throws -> Findings {
    await GLibMainLoop.run { window.send("Where is order 1042?") { $0.queueResearchedAnswer() } }
    try await waitForSettledReply(timeout: 10)
    let reasoning = try await GLibMainLoop.run { try window.checkReasoningCollapsed() }
    let tools = try await GLibMainLoop.run {
      try window.checkToolLines(
        of: try window.lastAnswerRow().0.clientID,
        expected: ["🔧 lookupOrder — succeeded", "🔧 checkStock — failed: The stock service did not answer."])
    }
    let sources = try await GLibMainLoop.run { try window.checkSources() }
    try await openReasoning()
    return ["reasoning": reasoning, "tools": tools, "sources": sources]
  }

  /// Retry regenerates the answer: the picker reads ‹ 2/2 ›; ‹ shows the first answer (‹ 1/2 ›, its own
  /// text), › the second again.
  func checkSiblings() async throws -> Findings {
    let first = try await GLibMainLoop.run { try window.lastAnswerRow().0 }
    try await GLibMainLoop.run { try window.press(window.retryButton, "Retry") }
    try await waitUntil("the regenerated answer is shown", timeout: 10) {
      let state = window.chat.state
      return state.streamingReply == nil && ChatWindow.lastAnswer(in: state)?.clientID != first.clientID
        && window.isUpToDate && window.isLastAnswerOnScreen
    }
    var picks = [try await GLibMainLoop.run { try window.checkSiblingPicker() }]
    for (button, name) in [("previous", "‹"), ("next", "›")] {
      let before = try await GLibMainLoop.run { try window.lastAnswerRow().0.clientID }
      try await GLibMainLoop.run {
        let row = try window.lastAnswerRow().1
        try window.press(button == "previous" ? row.previousButton : row.nextButton, name)
      }
      try await waitUntil("the window shows the \(button) sibling", timeout: 5) {
        ChatWindow.lastAnswer(in: window.chat.state)?.clientID != before && window.isUpToDate
          && window.isLastAnswerOnScreen
      }
      picks.append(try await GLibMainLoop.run { try window.checkSiblingPicker() })
      let shown = try await GLibMainLoop.run { try window.lastAnswerRow().0 }
      if button == "previous", shown.clientID != first.clientID || shown.text != first.text {
        throw Failure(description: "‹ did not bring back the first answer: \(shown.text)")
      }
    }
    guard picks == ["‹ 2/2 ›", "‹ 1/2 ›", "‹ 2/2 ›"] else {
      throw Failure(description: "the sibling picker read \(picks)")
    }
    try await openReasoning()
    return ["siblings": picks]
  }

  /// Opens the last answer's reasoning and checks its text is on screen.
  private func openReasoning() async throws {
    try await GLibMainLoop.run { try window.openReasoning() }
    try await Task.sleep(for: .milliseconds(150))
    try await GLibMainLoop.run { try window.checkReasoningOpen() }
  }
}
