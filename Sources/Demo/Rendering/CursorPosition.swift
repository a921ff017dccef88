/// A cell of the terminal, counted from 0 at the top left.
struct CursorPosition: Equatable, Sendable {
  var row: Int
  var column: Int
}
