/// A key the user pressed, as the demo acts on it.
enum Key: Hashable, Sendable {
  case character(Character)
  case enter
  case tab
  case backspace
  case up
  case down
  case left
  case right
  case pageUp
  case pageDown
  case escape
  case controlC
  /// Shows or collapses reasoning.
  case controlR
  case controlD
  /// Anything else: other control keys, function keys, bytes that are not UTF-8.
  case other
}
