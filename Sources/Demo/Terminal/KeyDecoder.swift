/// Turns the bytes a raw-mode terminal sends into keys, however the reads split them: a UTF-8 character or
/// an escape sequence cut between two reads is finished by the next one.
///
/// A lone ESC byte is ambiguous: it is the Esc key, or the start of a sequence whose rest has not arrived.
/// `decode` keeps it pending (`hasLoneEscape`); the reader calls `flush()` when no more bytes came shortly
/// after (terminals send a whole sequence in one write), which makes it `.escape`.
struct KeyDecoder: Sendable {
  private enum State: Sendable {
    case ground
    /// After ESC.
    case escape
    /// After ESC [ (CSI) or ESC O (SS3), with the parameter bytes so far.
    case sequence(introducer: UInt8, parameters: [UInt8])
    /// Inside a multi-byte UTF-8 character: the bytes so far and how many it has in all.
    case utf8([UInt8], length: Int)
  }

  private var state = State.ground

  /// A sequence longer than this is garbage, not a key: dropped rather than buffered without end.
  private static let maximumSequenceLength = 16

  /// Whether bytes are waiting for the rest of a character or sequence (or for `flush()`).
  var hasPendingBytes: Bool {
    if case .ground = state { return false }
    return true
  }

  /// Whether the last byte was an ESC that may be the Esc key or the start of a sequence.
  var hasLoneEscape: Bool {
    if case .escape = state { return true }
    return false
  }

  /// The keys these bytes complete, in order.
  mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    var keys: [Key] = []
    for byte in bytes { feed(byte, into: &keys) }
    return keys
  }

  /// What is pending, as keys: a lone ESC is `.escape`; half a character or sequence is `.other`.
  mutating func flush() -> [Key] {
    defer { state = .ground }
    switch state {
    case .ground: return []
    case .escape: return [.escape]
    case .sequence, .utf8: return [.other]
    }
  }

  private mutating func feed(_ byte: UInt8, into keys: inout [Key]) {
    switch state {
    case .ground:
      ground(byte, into: &keys)
    case .escape:
      if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
        state = .sequence(introducer: byte, parameters: [])
      } else {
        // ESC then another key (Alt+key, or Esc pressed just before typing): both keys, nothing lost.
        keys.append(.escape)
        state = .ground
        ground(byte, into: &keys)
      }
    case .sequence(let introducer, var parameters):
      // Final bytes are 0x40-0x7E; parameter and intermediate bytes 0x20-0x3F.
      if (0x40...0x7E).contains(byte) {
        keys.append(Self.key(introducer: introducer, parameters: parameters, final: byte))
        state = .ground
      } else if (0x20...0x3F).contains(byte) && parameters.count < Self.maximumSequenceLength {
        parameters.append(byte)
        state = .sequence(introducer: introducer, parameters: parameters)
      } else {
        keys.append(.other)
        state = .ground
        ground(byte, into: &keys)
      }
    case .utf8(var bytes, let length):
      guard (0x80...0xBF).contains(byte) else {
        // Cut short: the partial character is lost, the byte that cut it is still a key.
        keys.append(.other)
        state = .ground
        ground(byte, into: &keys)
        return
      }
      bytes.append(byte)
      if bytes.count < length {
        state = .utf8(bytes, length: length)
      } else {
        state = .ground
        keys.append(String(validating: bytes, as: UTF8.self).flatMap(\.first).map(Key.character) ?? .other)
      }
    }
  }

  private mutating func ground(_ byte: UInt8, into keys: inout [Key]) {
    switch byte {
    case 0x1B: state = .escape
    case 0x0D, 0x0A: keys.append(.enter)
    case 0x09: keys.append(.tab)
    case 0x7F, 0x08: keys.append(.backspace)
    case 0x03: keys.append(.controlC)
    case 0x12: keys.append(.controlR)
    case 0x04: keys.append(.controlD)
    case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
    case 0xC2...0xDF: state = .utf8([byte], length: 2)
    case 0xE0...0xEF: state = .utf8([byte], length: 3)
    case 0xF0...0xF4: state = .utf8([byte], length: 4)
    default: keys.append(.other)  // other control bytes, stray continuation bytes, bytes never in UTF-8
    }
  }

  /// Cursor keys are `ESC [ A` (or `ESC O A` in application mode, or `ESC [ 1 ; 5 A` with a modifier, read
  /// as the plain arrow); page keys are `ESC [ 5 ~` and `ESC [ 6 ~`.
  private static func key(introducer: UInt8, parameters: [UInt8], final: UInt8) -> Key {
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return .right
    case UInt8(ascii: "D"): return .left
    case UInt8(ascii: "~") where introducer == UInt8(ascii: "["):
      let number = parameters.prefix { $0 != UInt8(ascii: ";") }
      if number.elementsEqual("5".utf8) { return .pageUp }
      if number.elementsEqual("6".utf8) { return .pageDown }
      return .other
    default: return .other
    }
  }
}
