import Foundation

/// Any JSON value: the input and result of a tool call.
public enum JSONValue: Hashable, Sendable {
  /// JSON `null`.
  case null
  /// A JSON `true` or `false`.
  case bool(Bool)
  /// A JSON number; integers are held as `Double`, exact up to 2⁵³.
  case number(Double)
  /// A JSON string.
  case string(String)
  /// A JSON array, in order.
  case array([JSONValue])
  /// A JSON object; its key order is not kept.
  case object([String: JSONValue])
}

extension JSONValue: Codable {
  /// Decodes any JSON value; a number is read as `Double` even when it was written as an integer.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Encodes the value as the plain JSON it stands for, with no wrapping tag.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
  /// A JSON string from a literal, as in tool inputs and results built in code or tests.
  public init(stringLiteral value: String) { self = .string(value) }
  /// A JSON number from an integer literal; stored as `Double`.
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// A JSON number from a floating-point literal.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// A JSON boolean from `true` or `false`.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// A JSON array from an array literal.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// A JSON object from a dictionary literal; when a key repeats, the last value wins.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
  /// JSON `null` from `nil`.
  public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
  /// The size of this value as compact JSON, in UTF-8 bytes: what the tool-result limit counts.
  public var encodedByteCount: Int {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(self).count) ?? Int.max
  }
}

extension JSONValue {
  /// The value under `key` of an object; nil for a missing key or a value that is not an object.
  ///
  /// ```swift
  /// let arguments: JSONValue = ["id": 1042]
  /// let id = arguments["id"]  // .number(1042)
  /// ```
  public subscript(key: String) -> JSONValue? {
    guard case .object(let fields) = self else { return nil }
    return fields[key]
  }
}
