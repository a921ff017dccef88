import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Stories of a user managing their list: rename, pin, archive, mark unread, delete with undo. Every change
/// shows at once, goes to the backend one at a time per field, and comes back only when refused.
@Suite("Managing the conversation list")
struct ListEditTests {
  /// A list of c1…c3 loaded from the server, under `policy`.
  static func loaded(policy: ChatPolicy = ChatPolicy()) -> TestStore<ConversationListReducer> {
    let store = TestStore(ConversationListState(), policy: policy, exhaustivity: .off)
    let request = store.nextRequestID
    store.send(.load(pageSize: 3))
    store.send(.pageLoaded(request, page(1...3, cursor: nil, hasMore: false)))
    return store
  }

  static let c1 = ConversationID("c1")
  static let c2 = ConversationID("c2")
  static let c3 = ConversationID("c3")

  static let changes: [ConversationChange] = [
    .title("Refund for order 1042"), .pinned(true, at: time(50)), .archived(true), .markedUnread(true),
  ]

  @Test("a change shows at once, is sent, and once saved nothing waits", arguments: changes)
  func changeShowsAtOnce(change: ConversationChange) {
    let list = Self.loaded()
    let request = list.nextRequestID
    #expect(list.send(.change(Self.c2, change)) == [.updateConversation(request, Self.c2, change)])
    let row = list.state.conversations[Self.c2]!
    #expect(row == change.applied(to: summary(2)))
    #expect(list.state.edits.count == 1)

    list.send(.editSaved(request))
    #expect(list.state.edits.isEmpty)
    #expect(list.state.conversations[Self.c2] == row, "the row keeps the change")
  }

  @Test("a change the backend refuses goes back, with its error", arguments: changes)
  func refusedRollsBack(change: ConversationChange) {
    let list = Self.loaded()
    let request = list.nextRequestID
    list.send(.change(Self.c2, change))
    let refusal = ChatError(.invalidTitle, "Not that one")
    #expect(list.send(.editFailed(request, refusal, jitter: 0.5)) == [])
    #expect(list.state.conversations[Self.c2] == summary(2))
    #expect(list.state.error == refusal)
    #expect(list.state.edits.isEmpty)
  }

  @Test("offline, a change waits out the outbox's backoff and goes again; the row never flickers back")
  func offlineRetries() {
    let policy = ChatPolicy()
    let list = Self.loaded(policy: policy)
    let first = list.nextRequestID
    list.send(.change(Self.c1, .pinned(true, at: time(60))))
    let offline = ChatError(.network, "offline")
    let delay = policy.outboxBackoff.delay(attempt: 1, jitter: 0.5)
    #expect(
      list.send(.editFailed(first, offline, jitter: 0.5)) == [.startTimer(.retryEdit(Self.c1, .pinned), after: delay)])
    #expect(list.state.conversations[Self.c1]?.isPinned == true, "still shown while it waits")

    let second = list.nextRequestID
    #expect(
      list.send(.timerFired(.retryEdit(Self.c1, .pinned))) == [
        .updateConversation(second, Self.c1, .pinned(true, at: time(60)))
      ])
    let later = policy.outboxBackoff.delay(attempt: 2, jitter: 0.5)
    #expect(
      list.send(.editFailed(second, offline, jitter: 0.5)) == [.startTimer(.retryEdit(Self.c1, .pinned), after: later)])
    #expect(later > delay, "each retry waits longer, up to the cap")
  }

  @Test(
    "a server that says when to come back (429, Retry-After) is not asked again sooner, for a change or a delete",
    arguments: [
      (hint: 120.0, expected: 120.0),  // longer than the first backoff: the server's wait
      (hint: 0.01, expected: ChatPolicy().outboxBackoff.delay(attempt: 1, jitter: 0.5)),  // shorter: the backoff
      (hint: 1e9, expected: ChatPolicy().maximumRetryAfter),  // beyond what the policy allows: cut to it
    ])
  func retryAfterIsHonoured(hint: Double, expected: Double) {
    // Given a rename and a deletion the server turns away for now, naming a wait
    let list = Self.loaded(policy: ChatPolicy(deleteUndoWindow: 0))
    let busy = ChatError(.rateLimited, "slow down", status: 429, retryAfter: hint)
    let rename = list.nextRequestID
    list.send(.change(Self.c1, .title("Visa papers")))
    let delete = list.nextRequestID
    list.send(.delete(Self.c2))

    // When both fail with it, then each is retried no sooner than the server asked (and the policy allows)
    #expect(
      list.send(.editFailed(rename, busy, jitter: 0.5)) == [.startTimer(.retryEdit(Self.c1, .title), after: expected)])
    #expect(
      list.send(.editFailed(delete, busy, jitter: 0.5)) == [.startTimer(.retryDelete(Self.c2), after: expected)])
    #expect(list.state.conversations[Self.c1]?.title == "Visa papers", "the rename still shows while it waits")
    #expect(list.state.conversations[Self.c2] == nil, "the deleted row stays gone")
  }

  @Test("a backend that keeps no list (UNSUPPORTED) leaves the change on this device")
  func unsupportedStaysLocal() {
    let list = Self.loaded()
    let request = list.nextRequestID
    list.send(.change(Self.c3, .title("Trip to Lisbon")))
    list.send(.editFailed(request, ChatError.unsupported("a conversation list"), jitter: 0))
    #expect(list.state.conversations[Self.c3]?.title == "Trip to Lisbon")
    #expect(list.state.error == nil)
    #expect(list.state.edits.isEmpty)
  }

  @Test("a second change of a field waits for the first to be answered, so the server sees them in order")
  func secondChangeWaits() {
    let list = Self.loaded()
    let first = list.nextRequestID
    list.send(.change(Self.c1, .title("Lisbon")))
    #expect(list.send(.change(Self.c1, .title("Porto"))) == [], "nothing sent while the first is on its way")
    #expect(list.state.conversations[Self.c1]?.title == "Porto")

    let second = list.nextRequestID
    #expect(list.send(.editSaved(first)) == [.updateConversation(second, Self.c1, .title("Porto"))])
    list.send(.editFailed(second, ChatError(.invalidTitle, "no"), jitter: 0))
    #expect(list.state.conversations[Self.c1]?.title == "Lisbon", "back to what the server confirmed")
    #expect(list.state.conversations[Self.c1]?.isTitleSetByUser == true)
  }

  @Test(
    "what a UI may not do is refused with a typed error and changes nothing",
    arguments: [
      (ConversationID("c9"), ConversationChange.archived(true), ChatError.Code.conversationNotFound),
      (ConversationID("c1"), .title("   "), .invalidTitle),
      (ConversationID("c1"), .title(String(repeating: "x", count: 201)), .invalidTitle),
    ])
  func refusedLocally(id: ConversationID, change: ConversationChange, code: ChatError.Code) {
    let list = Self.loaded()
    let before = list.state.conversations
    #expect(list.send(.change(id, change)) == [])
    #expect(list.state.error?.code == code)
    #expect(list.state.conversations == before)
    #expect(list.state.edits.isEmpty)
  }

  @Test("pinned rows come first in the order pinned; archived ones only under the archived filter")
  func shownOrder() {
    let list = Self.loaded()
    list.send(.change(Self.c3, .pinned(true, at: time(10))))
    list.send(.change(Self.c2, .pinned(true, at: time(20))))
    list.send(.change(Self.c1, .archived(true)))
    #expect(list.state.shown.map(\.id) == [Self.c3, Self.c2])

    list.send(.showArchived(true))
    #expect(list.state.shown.map(\.id) == [Self.c1])

    list.send(.showArchived(false))
    list.send(.realtime(.messageCreated(Self.c2, preview: "new", role: .assistant, at: time(999))))
    #expect(list.state.shown.map(\.id) == [Self.c3, Self.c2], "activity never lifts a row above a pin")
  }

  @Test("a delete hides the row at once; undo within the window puts it back where it was")
  func deleteAndUndo() {
    let list = Self.loaded()
    #expect(list.send(.delete(Self.c2)) == [.startTimer(.undoWindow(Self.c2), after: 5)])
    #expect(list.state.conversations[Self.c2] == nil)
    #expect(list.send(.undoDelete(Self.c2)) == [.cancelTimer(.undoWindow(Self.c2))])
    #expect(list.state.conversations.map(\.id) == [Self.c1, Self.c2, Self.c3])
    #expect(list.state.deleting.isEmpty)
  }

  @Test("after the window the delete is sent; confirmed, the device forgets it and nothing lists it again")
  func deleteConfirmed() {
    let list = Self.loaded()
    list.send(.delete(Self.c2))
    let request = list.nextRequestID
    #expect(list.send(.timerFired(.undoWindow(Self.c2))) == [.deleteConversation(request, Self.c2)])
    #expect(list.send(.undoDelete(Self.c2)) == [])
    #expect(list.state.error?.code == .invalidAction, "too late to undo")

    #expect(list.send(.editSaved(request)) == [.forgetConversation(Self.c2)])
    #expect(list.state.deleted == [Self.c2])

    // A page the server made before the delete, and a late message, do not bring it back.
    let refresh = list.nextRequestID
    list.send(.refresh)
    list.send(.pageLoaded(refresh, page(1...3, cursor: nil, hasMore: false)))
    list.send(.realtime(.messageCreated(Self.c2, preview: "late", role: .assistant, at: time(2_000))))
    list.send(.realtime(.conversationCreated(summary(2))))
    #expect(list.state.conversations.map(\.id) == [Self.c1, Self.c3])
  }

  @Test("a delete made offline holds, the row still gone, until the server confirms; refused, the row comes back")
  func deleteOffline() {
    let list = Self.loaded(policy: ChatPolicy(deleteUndoWindow: 0))
    let first = list.nextRequestID
    #expect(list.send(.delete(Self.c1)) == [.deleteConversation(first, Self.c1)])
    let delay = ChatPolicy().outboxBackoff.delay(attempt: 1, jitter: 1)
    #expect(
      list.send(.editFailed(first, ChatError(.network, "offline"), jitter: 1)) == [
        .startTimer(.retryDelete(Self.c1), after: delay)
      ])
    #expect(list.state.conversations[Self.c1] == nil)

    let second = list.nextRequestID
    #expect(list.send(.timerFired(.retryDelete(Self.c1))) == [.deleteConversation(second, Self.c1)])
    list.send(.editFailed(second, ChatError(.unauthorized, "not yours"), jitter: 0))
    #expect(list.state.conversations[Self.c1] == summary(1))
    #expect(list.state.error?.code == .unauthorized)
  }

  @Test(
    "a delete the backend cannot keep (no list) or already lost (not found) counts as done",
    arguments: [ChatError.Code.unsupported, .conversationNotFound])
  func deleteDoneAnyway(code: ChatError.Code) {
    let list = Self.loaded(policy: ChatPolicy(deleteUndoWindow: 0))
    let request = list.nextRequestID
    list.send(.delete(Self.c3))
    #expect(list.send(.editFailed(request, ChatError(code, "…"), jitter: 0)) == [.forgetConversation(Self.c3)])
    #expect(list.state.error == nil)
  }

  @Test("another device's change arrives; while one of the same field waits here, the user's stays on screen")
  func echoFromAnotherDevice() {
    let list = Self.loaded()
    list.send(.realtime(.conversationChanged(Self.c1, .title("From the phone"))))
    #expect(list.state.conversations[Self.c1]?.title == "From the phone")

    let request = list.nextRequestID
    list.send(.change(Self.c1, .title("From the laptop")))
    list.send(.realtime(.conversationChanged(Self.c1, .title("From the phone, later"))))
    list.send(.realtime(.titleChanged(Self.c1, "Server's title")))
    #expect(list.state.conversations[Self.c1]?.title == "From the laptop")

    // A refresh while the rename is on its way shows the rename, not the server's older row.
    let refresh = list.nextRequestID
    list.send(.refresh)
    list.send(.pageLoaded(refresh, page(1...3, cursor: nil, hasMore: false)))
    #expect(list.state.conversations[Self.c1]?.title == "From the laptop")
    list.send(.editSaved(request))
    #expect(list.state.edits.isEmpty)
  }

  @Test(
    "an answer in an archived conversation brings it back or not, as the policy says",
    arguments: [ArchivedConversationActivity.returnsToList, .staysArchived])
  func archivedOnNewMessage(activity: ArchivedConversationActivity) {
    let list = Self.loaded(policy: ChatPolicy(archivedOnNewMessage: activity))
    let archive = list.nextRequestID
    list.send(.change(Self.c2, .archived(true)))
    list.send(.editSaved(archive))

    let request = list.nextRequestID
    let effects = list.send(
      .realtime(.messageCreated(Self.c2, preview: "Your refund is on its way", role: .assistant, at: time(2_000))))
    switch activity {
    case .returnsToList:
      #expect(effects == [.updateConversation(request, Self.c2, .archived(false))])
      #expect(list.state.conversations[Self.c2]?.isArchived == false)
    case .staysArchived:
      #expect(effects == [])
      #expect(list.state.conversations[Self.c2]?.isArchived == true)
      #expect(list.state.conversations[Self.c2]?.unreadCount == 1)
    }
  }

  @Test("a generated title names the chat until the user renames it; then it never replaces theirs")
  func generatedTitles() {
    let list = Self.loaded()
    list.send(.titleGenerated(Self.c1, "  Refund for a broken kettle \n and more"))
    #expect(list.state.conversations[Self.c1]?.title == "Refund for a broken kettle")
    list.send(.change(Self.c1, .title("Kettle")))
    list.send(.titleGenerated(Self.c1, "Something else"))
    #expect(list.state.conversations[Self.c1]?.title == "Kettle")
  }

  @Test("opening a conversation the user marked unread takes the mark off, and tells the backend")
  func markReadClearsTheMark() {
    let list = Self.loaded()
    let mark = list.nextRequestID
    list.send(.change(Self.c1, .markedUnread(true)))
    list.send(.editSaved(mark))
    let unmark = list.nextRequestID
    #expect(list.send(.markRead(Self.c1)) == [.updateConversation(unmark, Self.c1, .markedUnread(false))])
    #expect(list.state.conversations[Self.c1]?.isMarkedUnread == false)
    #expect(list.send(.markRead(Self.c1)) == [], "nothing to take off the second time")
  }

  @Test("after a relaunch, what was not confirmed goes out again, a delete in its window included")
  func resumedAfterRelaunch() throws {
    let list = Self.loaded()
    list.send(.change(Self.c1, .pinned(true, at: time(70))))
    list.send(.delete(Self.c3))
    let stored = try JSONDecoder().decode(ConversationListState.self, from: JSONEncoder().encode(list.state))

    let relaunched = TestStore(stored, exhaustivity: .off)
    let first = relaunched.nextRequestID
    let second = RequestID(epoch: first.epoch, sequence: first.sequence + 1)
    #expect(
      relaunched.send(.resumeEdits) == [
        .updateConversation(first, Self.c1, .pinned(true, at: time(70))), .deleteConversation(second, Self.c3),
      ])
    relaunched.send(.editSaved(first))
    relaunched.send(.editSaved(second))
  }

  @Test("a list file written before the managed list reads as it was")
  func olderListReads() throws {
    let json = """
      {"id": "c1", "title": "Old", "status": "ongoing", "lastActivityAt": 0, "unreadCount": 2}
      """
    let row = try JSONDecoder().decode(ConversationSummary.self, from: Data(json.utf8))
    #expect(row.title == "Old" && row.unreadCount == 2)
    #expect(!row.isPinned && !row.isArchived && !row.isMarkedUnread && !row.isTitleSetByUser)
  }

  @Test("signing out drops the changes not sent, and stops their timers")
  func identityChangeDropsEdits() {
    let list = Self.loaded()
    let request = list.nextRequestID
    list.send(.change(Self.c1, .archived(true)))
    list.send(.editFailed(request, ChatError(.network, "offline"), jitter: 0))
    list.send(.delete(Self.c2))
    let effects = list.send(.identityChanged)
    #expect(effects.contains(.cancelTimer(.retryEdit(Self.c1, .archived))))
    #expect(effects.contains(.cancelTimer(.undoWindow(Self.c2))))
    #expect(list.state.edits.isEmpty && list.state.deleting.isEmpty)
  }

  @Test("a rename waiting for its retry goes with a deleted row; undone, the row shows what the server has")
  func undoneRowShowsTheServersTitle() {
    let list = Self.loaded()
    let rename = list.nextRequestID
    list.send(.change(Self.c1, .title("New")))
    list.send(.editFailed(rename, ChatError(.network, "offline"), jitter: 0.5))
    #expect(
      list.send(.delete(Self.c1)) == [
        .cancelTimer(.retryEdit(Self.c1, .title)), .startTimer(.undoWindow(Self.c1), after: 5),
      ])
    list.send(.undoDelete(Self.c1))
    #expect(list.state.conversations[Self.c1] == summary(1), "no rename that nobody would send")
    #expect(list.state.edits.isEmpty)
  }
}
