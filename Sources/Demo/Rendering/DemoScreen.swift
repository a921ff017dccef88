import ConversationStore
import Foundation

/// Everything the demo's screen shows, as plain values: the renderer is a pure function of this and the
/// terminal's size, so frames can be tested as text.
struct DemoScreen: Equatable, Sendable {
  /// Which pane the keys act on.
  enum Focus: Equatable, Sendable {
    case list
    case conversation
  }

  /// The user's conversations, as the client's list store has them.
  var list: ConversationListState
  /// The open conversation, if one is.
  var conversation: ConversationState?
  /// The row of the list the cursor is on (0 is the top).
  var selectedRow: Int
  /// The message the conversation keys (rate, retry, discard, regenerate) act on; nil: the latest that fits.
  var selectedMessage: ClientMessageID?
  /// What the user is typing.
  var composer: String
  var focus: Focus
  /// Who is signed in, nil for a guest.
  var user: String?
  /// The total unread count over the list.
  var unread: Int
  /// A one-line notice (a refusal, "connection dropped", "next request will fail"); nil when none.
  var notice: String?
  /// While a deletion can be taken back: "Deleted “Trip” — /undo within 4 s".
  var undoNotice: String?
  /// The time on the session's clock, for "reconnecting in 3 s".
  var now: Date
  /// Whether reasoning shows whole rather than collapsed to a line (`/thoughts`, Ctrl-R).
  var showsReasoning: Bool

  init(
    list: ConversationListState = ConversationListState(), conversation: ConversationState? = nil,
    selectedRow: Int = 0, selectedMessage: ClientMessageID? = nil, composer: String = "", focus: Focus = .conversation,
    user: String? = nil, unread: Int = 0, notice: String? = nil, undoNotice: String? = nil,
    now: Date = Date(timeIntervalSince1970: 0), showsReasoning: Bool = false
  ) {
    self.undoNotice = undoNotice
    self.showsReasoning = showsReasoning
    self.now = now
    self.list = list
    self.conversation = conversation
    self.selectedRow = selectedRow
    self.selectedMessage = selectedMessage
    self.composer = composer
    self.focus = focus
    self.user = user
    self.unread = unread
    self.notice = notice
  }
}
