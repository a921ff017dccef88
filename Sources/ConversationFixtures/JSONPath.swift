public import ConversationState
import Foundation

/// A path into a JSON value: `messages[c1].delivery`, `requests[r0.1]`, `history.cursor`.
///
/// Object keys are written `.key` (or `[key]` when they are not plain names); elements of an array of
/// objects that carry a `clientID` or an `id` are written `[thatID]`, other elements `[index]`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible, Comparable {
  /// The keys, IDs and indexes from the root down, without the `.` and `[]` of the written form.
  public var segments: [String]

  /// A path through `segments`, from the root down.
  public init(_ segments: [String]) { self.segments = segments }

  /// Parses the written form; a malformed path is a typed error.
  public init(parsing text: String) throws {
    var segments: [String] = []
    var current = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "." {
        if !current.isEmpty { segments.append(current) }
        current = ""
      } else if character == "[" {
        if !current.isEmpty { segments.append(current) }
        current = ""
        guard let close = text[index...].firstIndex(of: "]") else { throw FixtureError.badPath(text) }
        segments.append(String(text[text.index(after: index)..<close]))
        index = close
      } else {
        current.append(character)
      }
      index = text.index(after: index)
    }
    if !current.isEmpty { segments.append(current) }
    guard !segments.isEmpty else { throw FixtureError.badPath(text) }
    self.segments = segments
  }

  /// The written form: `.key` for plain names, `[segment]` for IDs, indexes and other keys.
  public var description: String {
    var text = ""
    for segment in segments {
      let plain =
        segment.first.map { $0.isLetter || $0 == "_" } == true
        && segment.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
      if plain && !text.isEmpty {
        text += "." + segment
      } else if plain {
        text = segment
      } else {
        text += "[\(segment)]"
      }
    }
    return text
  }

  /// Orders paths by their written form, so reports list them stably.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

  /// Whether this path lies at or under `prefix`, segment by segment (`messages` is a prefix of `messages[c1]`).
  public func hasPrefix(_ prefix: JSONPath) -> Bool { segments.starts(with: prefix.segments) }

  /// The path made of the first `count` segments (all of them when there are fewer).
  public func prefix(_ count: Int) -> JSONPath { JSONPath(Array(segments.prefix(count))) }
}

extension JSONValue {
  /// The value at `path`, or nil when there is none.
  public subscript(path: JSONPath) -> JSONValue? {
    var node: JSONValue? = self
    for segment in path.segments {
      switch node {
      case .object(let object): node = object[segment]
      case .array(let array): node = Self.element(of: array, segment)
      default: return nil
      }
    }
    return node
  }

  private static func element(of array: [JSONValue], _ segment: String) -> JSONValue? {
    if let key = rowKey(of: array) {
      return array.first { if case .object(let object) = $0 { object[key] == .string(segment) } else { false } }
    }
    guard let index = Int(segment), array.indices.contains(index) else { return nil }
    return array[index]
  }

  /// The field that identifies the rows of an array of objects: `clientID` or `id`, when every row has it.
  static func rowKey(of array: [JSONValue]) -> String? {
    guard !array.isEmpty else { return nil }
    for key in ["clientID", "id"] {
      let all = array.allSatisfy { element in
        if case .object(let object) = element, case .string = object[key] { return true }
        return false
      }
      if all { return key }
    }
    return nil
  }

  /// Every leaf (scalar, empty object or empty array) with its path.
  public func leaves(under base: JSONPath = JSONPath([])) -> [JSONPath: JSONValue] {
    var result: [JSONPath: JSONValue] = [:]
    switch self {
    case .object(let object) where !object.isEmpty:
      for (key, value) in object { result.merge(value.leaves(under: JSONPath(base.segments + [key]))) { $1 } }
    case .array(let array) where !array.isEmpty:
      let key = Self.rowKey(of: array)
      for (index, value) in array.enumerated() {
        var segment = String(index)
        if let key, case .object(let object) = value, case .string(let id) = object[key] { segment = id }
        result.merge(value.leaves(under: JSONPath(base.segments + [segment]))) { $1 }
      }
    default:
      result[base] = self
    }
    return result
  }

  /// This object with each field of `patch` replacing the field of the same name (not merged into it: an
  /// enum case given in the patch must not mix with the one it replaces).
  public func overlaying(_ patch: JSONValue) -> JSONValue {
    guard case .object(var base) = self, case .object(let fields) = patch else { return patch }
    for (key, value) in fields { base[key] = value }
    return .object(base)
  }

  /// Compact JSON text with sorted keys.
  public var compactText: String {
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .number(let value):
      return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    case .string(let value):
      let escaped = value.unicodeScalars.map { scalar -> String in
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        default: return scalar.value < 0x20 ? String(format: "\\u%04x", scalar.value) : String(scalar)
        }
      }.joined()
      return "\"\(escaped)\""
    case .array(let values): return "[" + values.map(\.compactText).joined(separator: ",") + "]"
    case .object(let object):
      return "{" + object.keys.sorted().map { "\"\($0)\":\(object[$0]!.compactText)" }.joined(separator: ",") + "}"
    }
  }
}
