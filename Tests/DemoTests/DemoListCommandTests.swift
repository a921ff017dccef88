import ConversationStore
import ConversationTesting
import Foundation
import Testing

@testable import Demo

@Suite("Managing the list from the demo", .hangGuard)
struct DemoListCommandTests {
  static let now = Date.story(50)

  /// What is on screen when the user types a list command.
  enum Screen: String, CustomTestStringConvertible {
    case open, newConversation, nothingOpen
    var testDescription: String { rawValue }

    var conversation: ConversationState? {
      switch self {
      case .open: ScreenFixtures.conversation
      case .newConversation: ConversationState()
      case .nothingOpen: nil
      }
    }
  }

  @Test(
    "each command acts on the conversation open on screen, or says what is missing",
    arguments: [
      ("rename", "Trip to Lisbon", .open, .action(.change("c-order", .title("Trip to Lisbon")))),
      ("rename", "  Trip  ", .open, .action(.change("c-order", .title("Trip")))),
      ("pin", nil, .open, .action(.change("c-order", .pinned(true, at: now)))),
      ("unpin", nil, .open, .action(.change("c-order", .pinned(false, at: now)))),
      ("archive", nil, .open, .action(.change("c-order", .archived(true)))),
      ("unarchive", nil, .open, .action(.change("c-order", .archived(false)))),
      ("unread", nil, .open, .action(.change("c-order", .markedUnread(true)))),
      ("delete", nil, .open, .action(.delete("c-order"))),
      ("archived", nil, .nothingOpen, .action(.showArchived(true))),
      (
        "rename", nil, .open,
        .notice("/rename TEXT gives this conversation a title, for example /rename Trip to Lisbon")
      ),
      (
        "rename", "   ", .open,
        .notice("/rename TEXT gives this conversation a title, for example /rename Trip to Lisbon")
      ),
      (
        "pin", "2", .open,
        .notice("/pin takes nothing after it (not “2”): it acts on the conversation open on screen.")
      ),
      ("archived", "all", .open, .notice("/archived takes nothing after it (not “all”).")),
      ("delete", nil, .nothingOpen, .notice("No conversation is open: /open N opens one, then /delete acts on it.")),
      (
        "unread", nil, .newConversation,
        .notice("This conversation is not in your list until its first message is sent.")
      ),
      ("undo", nil, .open, .notice("Nothing to undo: a /delete can be taken back for a few seconds.")),
    ] as [(String, String?, Screen, ListCommand)])
  func parses(name: String, argument: String?, screen: Screen, expected: ListCommand) {
    #expect(
      ListCommand(name, argument, open: screen.conversation, in: ScreenFixtures.list, now: Self.now) == expected)
  }

  @Test("/archived turns the filter off again; /undo takes back the newest deletion still in its window")
  func filterAndUndo() {
    var list = ScreenFixtures.list
    list.showsArchived = true
    #expect(ListCommand("archived", nil, open: nil, in: list, now: Self.now) == .action(.showArchived(false)))

    // Given one deletion sent already and a newer one in its window
    let refund = list.conversations["c-refund"]!
    let old = list.conversations["c-old"]!
    var committed = PendingDelete(row: old)
    committed.isCommitted = true
    list.deleting = [PendingDelete(row: refund), committed]
    // Then /undo takes back the one in its window, even before a newer one sent
    #expect(ListCommand("undo", nil, open: nil, in: list, now: Self.now) == .action(.undoDelete("c-refund")))
    // And with only the one sent, it asks for that one: the list refuses it, too late
    list.deleting = [committed]
    #expect(ListCommand("undo", nil, open: nil, in: list, now: Self.now) == .action(.undoDelete("c-old")))
  }

  @Test("the undo notice counts the whole seconds left, rounded up, and never says 0")
  func undoNotice() {
    #expect(ListCommand.undoNotice(title: "Trip", secondsLeft: 5) == "Deleted “Trip” — /undo within 5 s")
    #expect(ListCommand.undoNotice(title: "Trip", secondsLeft: 3.2) == "Deleted “Trip” — /undo within 4 s")
    #expect(ListCommand.undoNotice(title: "", secondsLeft: -1) == "Deleted “Untitled” — /undo within 1 s")
  }

  @Test("the pane draws the list as a sidebar does: pinned first with their mark, the user's unread mark, the filter")
  func pane() {
    // Given a list where the oldest conversation is pinned and the newest marked unread
    var screen = ScreenFixtures.screen
    screen.list.conversations.update("c-old") { $0.pinnedAt = .story(1) }
    screen.list.conversations.update("c-order") { $0.isMarkedUnread = true }
    let list = Self.listPane(FrameRenderer.render(screen, width: 80, height: 24, color: false))

    // Then it comes first with the pin; the marked row has the mark where a count would be
    #expect(
      list[1...7] == [
        " Conversations (3)",
        " 📌 Old question",
        "  ended · Thanks, bye",
        "•Order 1042              ●",
        "  Please call me",
        " Refund for a broken … (2)",
        "  A refund is on its way",
      ])

    // When the archived filter is on, with one archived
    screen.list.conversations.update("c-refund") { $0.isArchived = true }
    screen.list.showsArchived = true
    let archived = Self.listPane(FrameRenderer.render(screen, width: 80, height: 24, color: false))
    // Then the header says so, and only it is drawn
    #expect(archived[1...4] == [" Archived (1)", " Refund for a broken … (2)", "  A refund is on its way", ""])

    // And with nothing archived, it says that
    screen.list.conversations.update("c-refund") { $0.isArchived = false }
    let nothing = FrameText.trimmed(FrameRenderer.render(screen, width: 80, height: 24, color: false))
    #expect(nothing[1].hasPrefix(" Archived "))
    #expect(nothing[2].hasPrefix(" nothing archived; /archi…"))
  }

  @Test("the list's refusal shows in red with the notices, and so does the offer to undo, in yellow")
  func notices() {
    var screen = ScreenFixtures.screen
    screen.list.error = ChatError(.invalidTitle, "A title has 1 to 200 characters; 0 were given.")
    screen.undoNotice = "Deleted “Old question” — /undo within 5 s"
    let plain = FrameText.trimmed(FrameRenderer.render(screen, width: 80, height: 24, color: false))
    #expect(
      plain[19...20] == [
        "✗ A title has 1 to 200 characters; 0 were given.", "Deleted “Old question” — /undo within 5 s",
      ])
    let colored = FrameRenderer.render(screen, width: 80, height: 24, color: true)
    #expect(colored[19].hasPrefix("\u{1B}[31m✗ A title"))
    #expect(colored[20].hasPrefix("\u{1B}[33mDeleted"))
  }

  @Test("the transcript prints the list when the user changed it, not when activity alone reorders it")
  func transcript() {
    var screen = DemoScreen(list: ScreenFixtures.list)
    var transcript = Transcript()
    #expect(transcript.lines(for: screen) == ["== no conversation open (guest) =="])

    // When activity moves a row, nothing about the list is printed
    var old = screen.list.conversations["c-old"]!
    old.lastActivityAt = .story(90)
    screen.list.conversations.moveToTop(old)
    #expect(transcript.lines(for: screen) == [])

    // When the user pins one, the list is printed in the sidebar's order
    screen.list.conversations.update("c-refund") { $0.pinnedAt = .story(91) }
    #expect(transcript.lines(for: screen) == ["≡ list: 📌 Refund for a broken mug · Old question · Order 1042"])

    // When one is deleted, the offer to undo is printed with the list; once done, that it is gone
    let refund = screen.list.conversations.remove("c-refund")!
    screen.list.deleting = [PendingDelete(row: refund)]
    screen.undoNotice = "Deleted “Refund for a broken mug” — /undo within 5 s"
    #expect(
      transcript.lines(for: screen) == [
        "! Deleted “Refund for a broken mug” — /undo within 5 s", "≡ list: Old question · Order 1042",
      ])
    screen.list.deleting = []
    screen.list.deleted = ["c-refund"]
    screen.undoNotice = nil
    #expect(transcript.lines(for: screen) == ["· “Refund for a broken mug” deleted"])

    // And a refusal is printed once
    screen.list.error = ChatError(.invalidTitle, "A title has 1 to 200 characters; 0 were given.")
    #expect(transcript.lines(for: screen) == ["! A title has 1 to 200 characters; 0 were given."])
    #expect(transcript.lines(for: screen) == [])
  }

  @Test("the simulated agent keeps a list: its pages show each change, and a deleted conversation is gone")
  func agentKeepsAList() async throws {
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600))
    let agent = SimulatedAgent(clock: clock, seed: 1)
    let pinnedAt = clock.now()

    // When the user renames, pins, archives and marks conversations
    try await answered(clock) { try await agent.updateConversation("c-welcome", .title("Getting started")) }
    try await answered(clock) { try await agent.updateConversation("c-welcome", .pinned(true, at: pinnedAt)) }
    try await answered(clock) { try await agent.updateConversation("c-refund", .archived(true)) }
    try await answered(clock) { try await agent.updateConversation("c-1042", .markedUnread(true)) }

    // Then its page carries them, by activity as before
    let page = try await agent.conversations(after: nil, limit: 10)
    #expect(page.conversations.map(\.id) == ["c-welcome", "c-refund", "c-1042"])
    let welcome = page.conversations[0]
    #expect(welcome.title == "Getting started" && welcome.isTitleSetByUser && welcome.pinnedAt == pinnedAt)
    #expect(page.conversations[1].isArchived && page.conversations[2].isMarkedUnread)

    // When one is deleted
    try await answered(clock) { try await agent.deleteConversation("c-refund") }

    // Then no page lists it, and every later call about it is CONVERSATION_NOT_FOUND
    #expect(try await agent.conversations(after: nil, limit: 10).conversations.map(\.id) == ["c-welcome", "c-1042"])
    await #expect(throws: ChatError.self) {
      try await answered(clock) { _ = try await agent.history(of: "c-refund", before: nil, limit: 20) }
    }
    for call in [
      { try await agent.deleteConversation("c-refund") },
      { try await agent.updateConversation("c-refund", .archived(false)) },
      { try await agent.updateConversation("c-nowhere", .archived(false)) },
      { _ = try await agent.messages(in: "c-refund", after: nil) },
    ] as [@Sendable () async throws -> Void] {
      do {
        try await answered(clock, call)
        Issue.record("a call about a deleted conversation succeeded")
      } catch {
        #expect((error as? ChatError)?.code == .conversationNotFound)
      }
    }
    #expect(agent.isIdle)
  }

  @Test("/delete offers an undo that counts down; once the deletion is done, another conversation opens")
  func deletionOpensAnother() async {
    // Given the welcome open, with the list loaded
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600))
    let session = DemoSession(
      agent: SimulatedAgent(clock: clock, seed: 1), environment: .deterministic(clock: clock), storage: nil,
      user: nil)
    session.start(opening: "c-welcome")
    #expect(await waitUntil { session.screen().list.conversations.count == 3 })

    // When the user deletes it
    session.submit("/delete")

    // Then its row goes, the undo is offered, and it counts down on the session's clock
    #expect(session.screen().list.shown.map(\.id) == ["c-refund", "c-1042"])
    #expect(session.screen().undoNotice == "Deleted “Welcome” — /undo within 5 s")
    clock.advance(by: 2)
    #expect(session.screen().undoNotice == "Deleted “Welcome” — /undo within 3 s")

    // When the user takes it back
    session.submit("/undo")
    #expect(session.screen().list.shown.map(\.id) == ["c-welcome", "c-refund", "c-1042"])
    #expect(session.screen().undoNotice == nil)

    // When the user deletes it again and the window passes
    session.submit("/delete")
    let opened = await advance(clock) { session.screen().conversation?.conversationID == "c-refund" }

    // Then the deletion is done, and the first conversation the list shows is open
    #expect(opened)
    #expect(session.screen().list.deleted == ["c-welcome"])
    #expect(session.screen().undoNotice == nil)
    await session.close()
  }

  /// The list pane's part of each line of a frame, without its padding.
  static func listPane(_ frame: [String]) -> [String] {
    FrameText.trimmed(frame.map { line in line.split(separator: "│", maxSplits: 1).first.map(String.init) ?? "" })
  }

  /// Runs `call`, moving `clock` on while it sleeps (the simulated agent answers after a latency).
  private func answered(_ clock: TestClock, _ call: @escaping @Sendable () async throws -> Void) async throws {
    let task = Task { try await call() }
    let ticks = Task {
      while !Task.isCancelled {
        if clock.pendingCount > 0 { clock.advance(by: 0.1) }
        try? await Task.sleep(nanoseconds: 1_000_000)
      }
    }
    defer { ticks.cancel() }
    try await task.value
  }

  /// Moves `clock` on a tenth at a time until `condition` holds (at most a virtual minute).
  private func advance(_ clock: TestClock, until condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0..<600 {
      if condition() { return true }
      clock.advance(by: 0.1)
      for _ in 0..<20 { await Task.yield() }
      try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return condition()
  }
}
