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

extension ConversationHandle: Codable, CodingKeyRepresentable {
  /// Decodes the `h<number>` string form; any other string is a data-corruption error.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let handle = Self(parsing: text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not h<number>")
    }
    self = handle
  }

  /// Encodes the handle as its `h<number>` string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }

  /// The handle as a key of a JSON object, in its `h<number>` form.
  public var codingKey: any CodingKey { IdentifierCodingKey(stringValue: description) }
  /// Reads a handle back from a JSON object key; `nil` when the key is not in `h<number>` form.
  public init?<T: CodingKey>(codingKey: T) { self.init(parsing: codingKey.stringValue) }

  /// Reads the `h<number>` form.
  init?(parsing text: String) {
    let digits = text.dropFirst()
    guard text.hasPrefix("h"), !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
      let rawValue = UInt64(digits)
    else { return nil }
    self.init(rawValue)
  }
}
