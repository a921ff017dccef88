import Foundation

/// A JSON text read straight from its bytes, for the fast paths of the protocols' hottest events (a text
/// delta, a content chunk): strings, numbers and literals are read or skipped without building a JSON tree.
/// Every method gives up (nil, false) at anything it does not expect, and its caller then takes the general
/// path, which also gives the errors; so a fast path never accepts what the general path would refuse.
package struct JSONByteScanner {
  package let bytes: UnsafeBufferPointer<UInt8>
  package var index = 0

  @inlinable package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// Whether only white space is left.
  @inlinable package mutating func isAtEnd() -> Bool {
    skipSpace()
    return index == bytes.count
  }

  /// Moves past `literal` (`null`, `true`) when it comes next.
  @inlinable package mutating func take(literal: StaticString) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard index + length <= bytes.count, let base = bytes.baseAddress,
      memcmp(base + index, literal.utf8Start, length) == 0
    else { return false }
    index += length
    return true
  }

  /// A string's raw bytes, from past its opening quote (already taken) to its closing quote, which it moves
  /// past; nil for a string with an escape or a control character (the general scan reads those).
  @inlinable package mutating func rawStringBody() -> UnsafeBufferPointer<UInt8>? {
    let start = index
    let end = firstStringSpecial(from: start)
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
    index = end + 1
    return UnsafeBufferPointer(rebasing: bytes[start..<end])
  }

  /// A string that closes an event matched against a template (`templateString(after:)`).
  package enum TemplateString {
    /// Its bytes as sent, without escapes (not checked to be UTF-8).
    case raw(UnsafeBufferPointer<UInt8>)
    /// A string with escapes, decoded.
    case decoded(String)
  }

  /// The event's last string when its bytes are `template` (through that string's opening quote), then the
  /// string, then `}` and nothing more; nil for any other bytes, and for an empty template. A template is a
  /// producer's hottest event up to its text (`{"type":"text-delta","id":"…","delta":"`), with the ID of the
  /// part streaming now: matching it is one comparison of bytes where a scan reads member by member.
  @inlinable package mutating func templateString(after template: UnsafeBufferPointer<UInt8>) -> TemplateString? {
    guard !template.isEmpty, bytes.count > template.count, let base = bytes.baseAddress,
      let known = template.baseAddress, memcmp(base, known, template.count) == 0
    else { return nil }
    index = template.count
    if let raw = rawStringBody() {
      guard take(UInt8(ascii: "}")), index == bytes.count else { return nil }
      return .raw(raw)
    }
    index = template.count - 1
    guard let text = string(), take(UInt8(ascii: "}")), index == bytes.count else { return nil }
    return .decoded(text)
  }

  /// The text of `bytes` when they are an event in `template`'s layout (`templateString(after:)`), its UTF-8
  /// appended to `text` (the bytes as sent when they are ASCII); nil, and nothing appended, for any other
  /// event. How the AI SDK's and AG-UI's mappers take the delta of the part streaming now.
  @inlinable package static func templateDelta(
    of bytes: UnsafeBufferPointer<UInt8>, template: [UInt8], appendingTo text: inout [UInt8]
  ) -> String? {
    var scanner = JSONByteScanner(bytes: bytes)
    switch template.withUnsafeBufferPointer({ scanner.templateString(after: $0) }) {
    case .raw(let raw)?:
      // `String(decoding:as:)` repairs bytes that are not UTF-8, as the scanner's strings do; ASCII bytes
      // are the string's own.
      let delta = String(decoding: raw, as: UTF8.self)
      if isASCII(raw) { text.append(contentsOf: raw) } else { text.append(contentsOf: delta.utf8) }
      return delta
    case .decoded(let delta)?:
      text.append(contentsOf: delta.utf8)
      return delta
    case nil:
      return nil
    }
  }

  /// The template of an event whose bytes are `head`, `id` as a JSON string's body, then `tail` (which
  /// ends with a string's opening quote); nil when `id` is not its own JSON string body (it holds a quote,
  /// a backslash or a control character), for which no template is made.
  package static func template(_ head: StaticString, id: String, _ tail: StaticString) -> [UInt8]? {
    guard !id.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
      return nil
    }
    var template: [UInt8] = []
    template.reserveCapacity(head.utf8CodeUnitCount + id.utf8.count + tail.utf8CodeUnitCount)
    template.append(contentsOf: UnsafeBufferPointer(start: head.utf8Start, count: head.utf8CodeUnitCount))
    template.append(contentsOf: id.utf8)
    template.append(contentsOf: UnsafeBufferPointer(start: tail.utf8Start, count: tail.utf8CodeUnitCount))
    return template
  }

  /// Whether every byte of `bytes` is ASCII (below 0x80): such bytes are valid UTF-8 as they are, so
  /// appending them to a byte buffer equals appending the `String` made from them.
  @inlinable package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    var high: UInt64 = 0
    while index &+ 8 <= bytes.count {
      high |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      index &+= 8
    }
    while index < bytes.count {
      high |= UInt64(bytes[index])
      index &+= 1
    }
    return high & 0x8080_8080_8080_8080 == 0
  }

  /// Moves past any JSON value, nested at most `depth` deep; false for one that is not well formed.
  @inlinable package mutating func skipValue(depth: Int = 8) -> Bool {
    skipSpace()
    guard index < bytes.count else { return false }
    switch bytes[index] {
    case UInt8(ascii: "\""): return string() != nil
    case UInt8(ascii: "n"): return take(literal: "null")
    case UInt8(ascii: "t"): return take(literal: "true")
    case UInt8(ascii: "f"): return take(literal: "false")
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      guard depth > 0 else { return false }
      let object = bytes[index] == UInt8(ascii: "{")
      index += 1
      skipSpace()
      if take(object ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return true }
      while true {
        if object {
          guard rawString() != nil || string() != nil else { return false }
          skipSpace()
          guard take(UInt8(ascii: ":")) else { return false }
        }
        guard skipValue(depth: depth - 1) else { return false }
        skipSpace()
        if take(UInt8(ascii: ",")) {
          skipSpace()
          continue
        }
        return take(object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
      }
    default: return number()
    }
  }

  /// Reads the object at `index` member by member: `member` is given each key (as its bytes) with `index` at
  /// its value, reads or skips the value, and returns false to give up. False for an object that is empty,
  /// not well formed, or has a key with an escape: the fast paths leave all of those to the general path.
  @inlinable package mutating func readMembers(
    _ member: (inout JSONByteScanner, UnsafeBufferPointer<UInt8>) -> Bool
  ) -> Bool {
    skipSpace()
    guard take(UInt8(ascii: "{")) else { return false }
    while true {
      skipSpace()
      guard let key = rawString() else { return false }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return false }
      skipSpace()
      guard member(&self, key) else { return false }
      if endOfMember() { return true }
      if index > bytes.count { return false }
    }
  }

  /// After a member's value: true at the object's end, false after a comma; `index` past the end when
  /// neither follows (the caller gives up).
  @inlinable package mutating func endOfMember() -> Bool {
    skipSpace()
    if take(UInt8(ascii: ",")) {
      skipSpace()
      return false
    }
    if take(UInt8(ascii: "}")) { return true }
    index = bytes.count + 1
    return false
  }

  @inlinable package static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    guard bytes.count == literal.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
    return memcmp(base, literal.utf8Start, bytes.count) == 0
  }

  /// Moves past the string at `index` when it is `known`, byte for byte (quotes included); else stays.
  @inlinable package mutating func takeKnown(_ known: String) -> Bool {
    let length = known.utf8.count
    guard index + length + 2 <= bytes.count, bytes[index + length + 1] == UInt8(ascii: "\""),
      let base = bytes.baseAddress
    else { return false }
    let start = base + index + 1
    // Read in place (no copy of the string, so no retain per event); a string without contiguous UTF-8 (a
    // bridged one) is compared byte by byte. An escape in the range would make the sent string differ from
    // its bytes: that one is read in full.
    let same =
      (known.utf8.withContiguousStorageIfAvailable { other in
        other.baseAddress.map { memcmp(start, $0, length) == 0 } ?? (length == 0)
      } ?? known.utf8.elementsEqual(UnsafeBufferPointer(start: start, count: length)))
      && memchr(start, Int32(UInt8(ascii: "\\")), length) == nil
    if same { index += length + 2 }
    return same
  }

  /// A string without escapes, as its bytes; nil for one with an escape (rare in keys and types: the
  /// general path reads those).
  @inlinable package mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    index = firstStringSpecial(from: index)
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
    let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
    index += 1
    return name
  }

  /// The index of the first byte at or after `start` that ends a string's plain run: a quote, a backslash or
  /// a control character (below 0x20); `bytes.count` when there is none.
  ///
  /// Eight bytes at a time: the strings of a protocol's events (IDs, deltas) are most of their bytes, and a
  /// byte-by-byte loop spent more on the loop than on the three tests.
  @inlinable package func firstStringSpecial(from start: Int) -> Int {
    guard let base = bytes.baseAddress else { return start }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    var index = start
    while index &+ 8 <= bytes.count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let quotes = word ^ (ones &* 0x22)
      let backslashes = word ^ (ones &* 0x5C)
      // Each test flags its lowest matching byte exactly (a borrow only flags bytes above a real match), so
      // the lowest flag of the three is the first special byte. Bytes of 0x80 and above never pass the
      // control test: `& ~word` clears their high bit.
      let flagged =
        ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word)
        & highBits
      if flagged != 0 { return index &+ flagged.trailingZeroBitCount / 8 }
      index &+= 8
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
      index &+= 1
    }
    return index
  }

  /// A JSON string, its escapes decoded; nil for one that is not well formed.
  @inlinable package mutating func string() -> String? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    index = firstStringSpecial(from: index)
    guard index < bytes.count else { return nil }
    switch bytes[index] {
    case UInt8(ascii: "\""):
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      index += 1
      return text
    case UInt8(ascii: "\\"):
      index = start
      return escapedString()
    default:
      return nil  // a control character
    }
  }

  /// A JSON string with escapes, from its opening quote's next byte: the plain runs are copied whole and each
  /// escape decoded into the same UTF-8 bytes, which become a `String` once (invalid UTF-8 repaired as
  /// `String(decoding:as:)` repairs it). Nil for one that is not well formed.
  ///
  /// The bytes are decoded into one buffer as large as the bytes left (an escape never decodes to more bytes
  /// than it takes, nor a run), on the stack when that is small: no array grows per run.
  @inlinable package mutating func escapedString() -> String? {
    let capacity = bytes.count - index
    guard capacity > 0 else { return nil }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> String? in
      guard let out = buffer.baseAddress, let base = bytes.baseAddress else { return nil }
      var count = 0
      func append(_ byte: UInt8) {
        (out + count).initialize(to: byte)
        count += 1
      }
      while true {
        let runEnd = firstStringSpecial(from: index)
        guard runEnd < bytes.count else { return nil }
        (out + count).initialize(from: base + index, count: runEnd - index)
        count += runEnd - index
        index = runEnd + 1
        switch bytes[runEnd] {
        case UInt8(ascii: "\""):
          return String(decoding: UnsafeBufferPointer(start: out, count: count), as: UTF8.self)
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { return nil }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(escape)
          case UInt8(ascii: "b"): append(0x08)
          case UInt8(ascii: "f"): append(0x0C)
          case UInt8(ascii: "n"): append(0x0A)
          case UInt8(ascii: "r"): append(0x0D)
          case UInt8(ascii: "t"): append(0x09)
          case UInt8(ascii: "u"):
            guard let unit = hex4() else { return nil }
            let scalar: Unicode.Scalar
            if (0xD800..<0xDC00).contains(unit) {
              guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                (0xDC00..<0xE000).contains(low),
                let pair = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
              else { return nil }
              scalar = pair
            } else {
              guard let single = Unicode.Scalar(unit) else { return nil }  // a lone low surrogate
              scalar = single
            }
            UTF8.encode(scalar) { append($0) }
          default: return nil
          }
        default:
          return nil  // a control character
        }
      }
    }
  }

  @inlinable package mutating func hex4() -> UInt32? {
    guard index + 4 <= bytes.count else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      index += 1
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  /// A JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), skipped.
  @inlinable package mutating func number() -> Bool {
    _ = take(UInt8(ascii: "-"))
    if take(UInt8(ascii: "0")) {
    } else if digits() == 0 {
      return false
    }
    if take(UInt8(ascii: ".")), digits() == 0 { return false }
    if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
      if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
      if digits() == 0 { return false }
    }
    return true
  }

  @inlinable package mutating func digits() -> Int {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
    return index - start
  }

  @inlinable package mutating func take(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  @inlinable package mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }
}
