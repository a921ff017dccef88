extension MessageList: Equatable {
  /// Equal when they hold the same messages in the same order; how each list was built does not matter.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    if lhs.storage.box === rhs.storage.box { return true }
    guard lhs.count == rhs.count, lhs.outgoing == rhs.outgoing else { return false }
    if lhs.older.count == rhs.older.count { return lhs.older == rhs.older && lhs.newer == rhs.newer }
    return lhs.elementsEqual(rhs)
  }
}

extension MessageList: Codable {
  /// Decodes a list from a JSON array of messages, ordered as `init(_:)` orders them; a repeated client ID
  /// keeps its first message.
  public init(from decoder: any Decoder) throws {
    self.init(try [Message](from: decoder))
  }

  /// Encodes the messages as a JSON array in display order.
  public func encode(to encoder: any Encoder) throws {
    try Array(self).encode(to: encoder)
  }
}
