/// An optional value kept behind a reference: eight bytes inline, nothing allocated while it is `nil`.
///
/// For fields most values leave unset, in types a list holds by the ten thousand: a `Message`'s agent,
/// usage and edit time (48, 25 and 9 bytes inline) cost every message their size, set or not. A set value
/// is immutable in its box; a change makes a new box, so copies never share a write.
///
/// ```swift
/// private var storedAgent = OutOfLine<AgentInfo>(nil)  // 8 bytes
/// var agent: AgentInfo? {
///   get { storedAgent.value }
///   set { storedAgent.value = newValue }
/// }
/// ```
struct OutOfLine<Wrapped: Sendable>: Sendable {
  private var box: Box?

  init(_ value: Wrapped?) { box = value.map(Box.init) }

  var value: Wrapped? {
    get { box?.value }
    set { box = newValue.map(Box.init) }
  }

  final class Box: Sendable {
    let value: Wrapped
    init(_ value: Wrapped) { self.value = value }
  }
}

extension OutOfLine: Equatable where Wrapped: Equatable {
  /// Equal when the values are: two copies of one box are equal without looking inside.
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.box === rhs.box || lhs.value == rhs.value
  }
}

extension OutOfLine: Hashable where Wrapped: Hashable {
  /// Hashes as the optional value would, so a wrapped field hashes as it did inline.
  func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
