import ConversationStore
import Foundation

/// What `/rename TEXT`, `/pin`, `/unpin`, `/archive`, `/unarchive`, `/unread`, `/delete`, `/undo` and
/// `/archived` ask of the conversation list: the list's action, or the notice that answers instead. Each but
/// `/archived` and `/undo` acts on the conversation open on screen. The demo only reads the line; the list
/// judges the rest (a title too long, a conversation it does not list, an undo too late) and its refusal
/// shows as the list's error.
enum ListCommand: Equatable {
  case action(ConversationListAction)
  case notice(String)

  /// The commands this reads.
  static let names: Set<String> = [
    "rename", "pin", "unpin", "archive", "unarchive", "unread", "delete", "undo", "archived",
  ]

  /// `conversation` is the one open on screen, `now` the list's clock (a pin's time).
  init(
    _ name: String, _ argument: String?, open conversation: ConversationState?, in list: ConversationListState,
    now: Date
  ) {
    let argument = argument?.trimmingCharacters(in: .whitespaces)
    let text = argument?.isEmpty == false ? argument : nil
    if name != "rename", let text {
      let scope = name == "archived" || name == "undo" ? "" : ": it acts on the conversation open on screen"
      self = .notice("/\(name) takes nothing after it (not “\(text)”)\(scope).")
      return
    }
    switch name {
    case "archived":
      self = .action(.showArchived(!list.showsArchived))
      return
    case "undo":
      // The newest deletion still in its window, else the newest: one whose window has passed is the list's
      // to refuse.
      guard let deletion = list.deleting.last(where: { !$0.isCommitted }) ?? list.deleting.last else {
        self = .notice("Nothing to undo: a /delete can be taken back for a few seconds.")
        return
      }
      self = .action(.undoDelete(deletion.row.id))
      return
    default: break
    }
    guard let conversation else {
      self = .notice("No conversation is open: /open N opens one, then /\(name) acts on it.")
      return
    }
    guard let id = conversation.conversationID else {
      self = .notice("This conversation is not in your list until its first message is sent.")
      return
    }
    switch name {
    case "rename":
      guard let text else {
        self = .notice("/rename TEXT gives this conversation a title, for example /rename Trip to Lisbon")
        return
      }
      self = .action(.change(id, .title(text)))
    case "pin", "unpin": self = .action(.change(id, .pinned(name == "pin", at: now)))
    case "archive", "unarchive": self = .action(.change(id, .archived(name == "archive")))
    case "unread": self = .action(.change(id, .markedUnread(true)))
    case "delete": self = .action(.delete(id))
    default: self = .notice("Unknown command /\(name).")
    }
  }

  /// The notice offered while a deletion can be taken back: its title and the whole seconds left, rounded up.
  static func undoNotice(title: String, secondsLeft: Double) -> String {
    "Deleted “\(title.isEmpty ? "Untitled" : title)” — /undo within \(max(1, Int(secondsLeft.rounded(.up)))) s"
  }
}

extension ConversationListState {
  /// The list's error as the demo shows it: none for a backend that keeps no list (an agent protocol with no
  /// storage behind it), which is how such a backend is, not something the user did.
  var shownError: ChatError? { error?.code == .unsupported ? nil : error }
}
