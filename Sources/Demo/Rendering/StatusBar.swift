import ConversationStore
import Foundation

/// The top line: the connection in words, who is signed in, and the unread count.
enum StatusBar {
  static let appName = "ConversationStore demo"

  static func line(_ screen: DemoScreen) -> StyledLine {
    var line = StyledLine(" \(appName)", .bold)
    let connection = connectionWords(screen.conversation, now: screen.now)
    line.append(" · ")
    line.append(connection.text, connection.style)
    line.append(" · \(screen.user ?? "guest")")
    if screen.unread > 0 { line.append(" · \(screen.unread) unread", .bold) }
    return line
  }

  /// What the open conversation's connection is doing; the countdown is whole seconds, rounded up, so it
  /// never shows 0 while the wait is still on.
  static func connectionWords(_ conversation: ConversationState?, now: Date) -> (text: String, style: TextStyle) {
    guard let conversation else { return ("no conversation open", .dim) }
    if conversation.needsCredentials { return ("needs sign-in", .red) }
    if conversation.isRestoring { return ("restoring…", .dim) }
    switch conversation.connection {
    case .idle: return ("not connected", .dim)
    case .connecting: return ("connecting…", .yellow)
    case .connected: return ("connected", .green)
    case .syncing: return ("syncing", .yellow)
    case .reconnecting(let attempt, let retryAt):
      let wait = retryAt.timeIntervalSince(now)
      guard wait > 0 else { return ("reconnecting… (attempt \(attempt))", .yellow) }
      return ("reconnecting in \(Int(wait.rounded(.up))) s (attempt \(attempt))", .yellow)
    case .closed: return ("offline", .red)
    }
  }
}
