/// The hot events of a streamed reply (`TEXT_MESSAGE_CONTENT`, `REASONING_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`)
/// read straight from their bytes, without building a JSON tree: a flat object whose values are strings and
/// numbers. Anything else (a nested value, `true`, an escape it does not know, a missing field) returns nil
/// and the event takes the general path, which also gives the errors; so this never accepts what the
/// general path would refuse.
enum AGUIFastScan {
  static func frame(_ bytes: UnsafeBufferPointer<UInt8>) -> AGUIFrame? {
    var scanner = Scanner(bytes: bytes)
    return scanner.frame()
  }

  private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private enum Key { case type, messageID, toolCallID, delta, subagentRunID, other }

    mutating func frame() -> AGUIFrame? {
      var type: String?
      var messageID: String?
      var toolCallID: String?
      var delta: String?
      var owner: String?
      skipSpace()
      guard take(UInt8(ascii: "{")) else { return nil }
      skipSpace()
      if !take(UInt8(ascii: "}")) {
        while true {
          guard let key = key() else { return nil }
          skipSpace()
          guard take(UInt8(ascii: ":")) else { return nil }
          skipSpace()
          guard index < bytes.count else { return nil }
          if bytes[index] == UInt8(ascii: "\"") {
            guard let value = string() else { return nil }
            switch key {
            case .type: type = value
            case .messageID: messageID = value
            case .toolCallID: toolCallID = value
            case .delta: delta = value
            case .subagentRunID: owner = value
            case .other: break
            }
          } else {
            // Only the timestamp and other numbers may be numbers; a known field holding one is the general
            // path's to refuse.
            guard key == .other, number() else { return nil }
          }
          skipSpace()
          if take(UInt8(ascii: ",")) {
            skipSpace()
            continue
          }
          guard take(UInt8(ascii: "}")) else { return nil }
          break
        }
      }
      skipSpace()
      guard index == bytes.count, let type, let delta else { return nil }
      switch type {
      case "TEXT_MESSAGE_CONTENT":
        guard let messageID else { return nil }
        return AGUIFrame(.textMessageContent(messageID: messageID, delta: delta), subagentRunID: owner)
      case "REASONING_MESSAGE_CONTENT":
        guard let messageID else { return nil }
        return AGUIFrame(.reasoningMessageContent(messageID: messageID, delta: delta), subagentRunID: owner)
      case "TOOL_CALL_ARGS":
        guard let toolCallID else { return nil }
        return AGUIFrame(.toolCallArgs(toolCallID: toolCallID, delta: delta), subagentRunID: owner)
      default: return nil
      }
    }

    private mutating func key() -> Key? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = index
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        // An escaped key is rare enough to leave to the general path.
        if bytes[index] == UInt8(ascii: "\\") { return nil }
        index += 1
      }
      guard index < bytes.count else { return nil }
      let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
      index += 1
      if name.elementsEqual("type".utf8) { return .type }
      if name.elementsEqual("messageId".utf8) { return .messageID }
      if name.elementsEqual("toolCallId".utf8) { return .toolCallID }
      if name.elementsEqual("delta".utf8) { return .delta }
      if name.elementsEqual("subagentRunId".utf8) { return .subagentRunID }
      return .other
    }

    /// A JSON string, its escapes decoded; nil for one that is not well formed.
    private mutating func string() -> String? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = index
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") {
          let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
          index += 1
          return text
        }
        if byte == UInt8(ascii: "\\") {
          index = start
          return escapedString()
        }
        if byte < 0x20 { return nil }
        index += 1
      }
      return nil
    }

    private mutating func escapedString() -> String? {
      var scalars = String.UnicodeScalarView()
      var plain: [UInt8] = []
      func flush() {
        guard !plain.isEmpty else { return }
        scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
        plain.removeAll(keepingCapacity: true)
      }
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          flush()
          return String(scalars)
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { return nil }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): plain.append(escape)
          case UInt8(ascii: "b"): plain.append(0x08)
          case UInt8(ascii: "f"): plain.append(0x0C)
          case UInt8(ascii: "n"): plain.append(0x0A)
          case UInt8(ascii: "r"): plain.append(0x0D)
          case UInt8(ascii: "t"): plain.append(0x09)
          case UInt8(ascii: "u"):
            guard let unit = hex4() else { return nil }
            flush()
            if (0xD800..<0xDC00).contains(unit) {
              guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                (0xDC00..<0xE000).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
              else { return nil }
              scalars.append(scalar)
            } else {
              guard let scalar = Unicode.Scalar(unit) else { return nil }  // a lone low surrogate
              scalars.append(scalar)
            }
          default: return nil
          }
        default:
          if byte < 0x20 { return nil }
          plain.append(byte)
        }
      }
      return nil
    }

    private mutating func hex4() -> UInt32? {
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
    private mutating func number() -> Bool {
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

    private mutating func digits() -> Int {
      let start = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
      return index - start
    }

    private mutating func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    private mutating func skipSpace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0A, 0x0D: index += 1
        default: return
        }
      }
    }
  }
}
