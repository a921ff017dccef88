/// Names one conversation store a `ChatClient` opened, for as long as it is open. A store begun with
/// `newConversation()` keeps its handle when the server gives it an ID, so the client's state can refer to
/// stores (which are objects) without holding them.
public struct ConversationHandle: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The handle's number: increasing within one client, never reused.
  public var rawValue: UInt64

  /// A handle; the client reducer mints them from its state's counter.
  public init(_ rawValue: UInt64) { self.rawValue = rawValue }

  /// Older handles order first.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `h<number>`, as handles are written in logs.
  public var description: String { "h\(rawValue)" }
}
