package import ConversationState
import Foundation

extension JSONByteScanner {
  /// The deepest a value read here nests; a deeper one is left to Foundation's decoder, which decides.
  package static let maximumValueDepth = 64

  /// The JSON value at `index`, built straight from the bytes; nil for one this reader does not take (not
  /// well formed, nested deeper than `maximumValueDepth`, a number out of `Double`'s range, an object with
  /// a repeated key), which its caller then reads with Foundation's decoder: nothing is accepted here that
  /// the decoder would refuse, and what both read is the same value. (The decoder is the more lenient: it
  /// also takes a trailing comma, `[1,]`.)
  package mutating func value(depth: Int = maximumValueDepth) -> JSONValue? {
    skipSpace()
    guard index < bytes.count else { return nil }
    switch bytes[index] {
    case UInt8(ascii: "\""): return string().map(JSONValue.string)
    case UInt8(ascii: "n"): return take(literal: "null") ? .null : nil
    case UInt8(ascii: "t"): return take(literal: "true") ? .bool(true) : nil
    case UInt8(ascii: "f"): return take(literal: "false") ? .bool(false) : nil
    case UInt8(ascii: "["):
      guard depth > 0 else { return nil }
      index += 1
      var elements: [JSONValue] = []
      skipSpace()
      if take(UInt8(ascii: "]")) { return .array(elements) }
      while true {
        guard let element = value(depth: depth - 1) else { return nil }
        elements.append(element)
        skipSpace()
        if take(UInt8(ascii: ",")) { continue }
        return take(UInt8(ascii: "]")) ? .array(elements) : nil
      }
    case UInt8(ascii: "{"):
      guard depth > 0 else { return nil }
      index += 1
      var members: [String: JSONValue] = [:]
      skipSpace()
      if take(UInt8(ascii: "}")) { return .object(members) }
      while true {
        skipSpace()
        guard let key = string() else { return nil }
        skipSpace()
        // A repeated key is the decoder's to read: which value it keeps is its rule (the first, on Linux).
        guard take(UInt8(ascii: ":")), let member = value(depth: depth - 1),
          members.updateValue(member, forKey: key) == nil
        else { return nil }
        skipSpace()
        if take(UInt8(ascii: ",")) { continue }
        return take(UInt8(ascii: "}")) ? .object(members) : nil
      }
    default:
      let start = index
      guard number() else { return nil }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      guard let number = Double(text), number.isFinite else { return nil }
      return .number(number)
    }
  }

  /// The JSON value `text` holds, read from its bytes, falling back to Foundation's decoder for whatever
  /// `value(depth:)` does not take; nil when neither reads it.
  package static func value(of text: String) -> JSONValue? {
    var text = text  // `withUTF8` reads a native string in place
    let fast = text.withUTF8 { bytes -> JSONValue? in
      var scanner = JSONByteScanner(bytes: bytes)
      guard let value = scanner.value(), scanner.isAtEnd() else { return nil }
      return value
    }
    return fast ?? (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
  }
}
