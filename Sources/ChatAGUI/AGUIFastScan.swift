import Foundation

/// The common events of a streamed reply (text and reasoning content, tool arguments, and the starts and
/// ends around them) read straight from their bytes, without building a JSON tree: a flat object whose
/// values are strings and numbers. Anything else (a nested value, `true`, an escape it does not know, a
/// missing field) returns nil and the event takes the general path, which also gives the errors; so this
/// never accepts what the general path would refuse.
enum AGUIFastScan {
  /// The event in `bytes`, or nil for the general path. `knownID` is the message or call ID the last event
  /// named: an ID with the same bytes is that string again, not a new one (a reply names one message in
  /// hundreds of events in a row).
  static func frame(_ bytes: UnsafeBufferPointer<UInt8>, knownID: String? = nil) -> AGUIFrame? {
    var scanner = Scanner(bytes: bytes, knownID: knownID)
    return scanner.frame()
  }

  /// The delta of a `TEXT_MESSAGE_CONTENT` for the message `id` from the run's own agent, or nil for any other
  /// event (it gives up at the first field that says so): the hottest event, read without making a frame.
  static func textDelta(_ bytes: UnsafeBufferPointer<UInt8>, ofMessage id: String) -> String? {
    var scanner = Scanner(bytes: bytes, knownID: id, textDeltaOnly: true)
    guard case .textMessageContent(_, let delta)? = scanner.frame()?.event else { return nil }
    return delta
  }

  private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let knownID: String?
    /// Only a text delta of `knownID`, from no subagent, is wanted: anything else gives up early.
    let textDeltaOnly: Bool
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, knownID: String?, textDeltaOnly: Bool = false) {
      self.bytes = bytes
      self.knownID = knownID
      self.textDeltaOnly = textDeltaOnly
    }

    private enum Key { case type, messageID, toolCallID, delta, subagentRunID, role, name, other }

    /// The event types read here, by the bytes of their names.
    private enum Kind { case text, reasoning, toolArgs, textStart, textEnd, reasoningStart, reasoningEnd, toolEnd }

    mutating func frame() -> AGUIFrame? {
      var kind: Kind?
      var messageID: String?
      var toolCallID: String?
      var delta: String?
      var owner: String?
      var role: String?
      var name: String?
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
            if key == .type {
              // The type is compared as bytes: no string is made for it.
              guard let name = rawString(), let hot = Self.kind(of: name) else { return nil }
              if textDeltaOnly, hot != .text { return nil }
              kind = hot
            } else if key == .messageID || key == .toolCallID, let known = knownID, takeKnown(known) {
              if key == .messageID { messageID = known } else { toolCallID = known }
            } else {
              if textDeltaOnly, key == .messageID || key == .subagentRunID { return nil }
              guard let value = string() else { return nil }
              switch key {
              case .messageID: messageID = value
              case .toolCallID: toolCallID = value
              case .delta: delta = value
              case .subagentRunID: owner = value
              case .role: role = value
              case .name: name = value
              case .type, .other: break
              }
            }
          } else {
            // Only the timestamp and other numbers may be numbers; a known field holding one is the general
            // path's to refuse.
            guard key == .other, number() else { return nil }
          }
          if endOfMember() { break }
          if index > bytes.count { return nil }
        }
      }
      skipSpace()
      guard index == bytes.count, let kind else { return nil }
      // Each type's required fields, and no field of another type's that the general path would read.
      let event: AGUIEvent
      switch kind {
      case .text, .reasoning:
        guard let messageID, let delta, role == nil, name == nil else { return nil }
        event =
          kind == .text
          ? .textMessageContent(messageID: messageID, delta: delta)
          : .reasoningMessageContent(messageID: messageID, delta: delta)
      case .toolArgs:
        guard let toolCallID, let delta, role == nil, name == nil else { return nil }
        event = .toolCallArgs(toolCallID: toolCallID, delta: delta)
      case .textStart:
        guard let messageID else { return nil }
        event = .textMessageStart(messageID: messageID, role: role ?? "assistant", name: name)
      case .textEnd, .reasoningStart, .reasoningEnd:
        guard let messageID else { return nil }
        event =
          kind == .textEnd
          ? .textMessageEnd(messageID: messageID)
          : kind == .reasoningStart
            ? .reasoningMessageStart(messageID: messageID) : .reasoningMessageEnd(messageID: messageID)
      case .toolEnd:
        guard let toolCallID else { return nil }
        event = .toolCallEnd(toolCallID: toolCallID)
      }
      return AGUIFrame(event, subagentRunID: owner)
    }

    /// After a member's value: true at the object's end, false after a comma; `index` past the end when
    /// neither follows (the caller gives up).
    private mutating func endOfMember() -> Bool {
      skipSpace()
      if take(UInt8(ascii: ",")) {
        skipSpace()
        return false
      }
      if take(UInt8(ascii: "}")) { return true }
      index = bytes.count + 1
      return false
    }

    private static func kind(of name: UnsafeBufferPointer<UInt8>) -> Kind? {
      if equals(name, "TEXT_MESSAGE_CONTENT") { return .text }
      if equals(name, "REASONING_MESSAGE_CONTENT") { return .reasoning }
      if equals(name, "TOOL_CALL_ARGS") { return .toolArgs }
      if equals(name, "TEXT_MESSAGE_START") { return .textStart }
      if equals(name, "TEXT_MESSAGE_END") { return .textEnd }
      if equals(name, "REASONING_MESSAGE_START") { return .reasoningStart }
      if equals(name, "REASONING_MESSAGE_END") { return .reasoningEnd }
      if equals(name, "TOOL_CALL_END") { return .toolEnd }
      return nil
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
      guard bytes.count == literal.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
      return memcmp(base, literal.utf8Start, bytes.count) == 0
    }

    private mutating func key() -> Key? {
      guard let name = rawString() else { return nil }
      switch name.count {
      case 4 where Self.equals(name, "type"): return .type
      case 4 where Self.equals(name, "role"): return .role
      case 4 where Self.equals(name, "name"): return .name
      case 5 where Self.equals(name, "delta"): return .delta
      case 9 where Self.equals(name, "messageId"): return .messageID
      case 10 where Self.equals(name, "toolCallId"): return .toolCallID
      case 13 where Self.equals(name, "subagentRunId"): return .subagentRunID
      default: return .other
      }
    }

    /// Moves past the string at `index` when it is `known`, byte for byte (quotes included); else stays.
    private mutating func takeKnown(_ known: String) -> Bool {
      var known = known  // `withUTF8` reads a native string in place
      let length = known.utf8.count
      guard index + length + 2 <= bytes.count, bytes[index + length + 1] == UInt8(ascii: "\""),
        let base = bytes.baseAddress
      else { return false }
      let start = base + index + 1
      // An escape in the range would make the sent string differ from its bytes: that one is read in full.
      let same =
        known.withUTF8 { other in other.baseAddress.map { memcmp(start, $0, length) == 0 } ?? (length == 0) }
        && memchr(start, Int32(UInt8(ascii: "\\")), length) == nil
      if same { index += length + 2 }
      return same
    }

    /// A string without escapes, as its bytes; nil for one with an escape (rare in keys and types: the
    /// general path reads those).
    private mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = index
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        if bytes[index] == UInt8(ascii: "\\") || bytes[index] < 0x20 { return nil }
        index += 1
      }
      guard index < bytes.count else { return nil }
      let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
      index += 1
      return name
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
