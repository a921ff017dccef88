extension MessageList: Equatable {
  /// Equal when they hold the same messages in the same order; how each list was built does not matter.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count, lhs.outgoing == rhs.outgoing else { return false }
    if lhs.older.count == rhs.older.count { return lhs.older == rhs.older && lhs.newer == rhs.newer }
    return lhs.elementsEqual(rhs)
  }
}

extension MessageList: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(try [Message](from: decoder))
  }

  public func encode(to encoder: any Encoder) throws {
    try Array(self).encode(to: encoder)
  }
}
