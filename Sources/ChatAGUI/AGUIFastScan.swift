import ChatHTTP
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
    var scanner = JSONByteScanner(bytes: bytes)
    return scanner.aguiFrame(knownID: knownID, textDeltaOnly: false)
  }

  /// The delta of a `TEXT_MESSAGE_CONTENT` for the message `id` from the run's own agent, or nil for any other
  /// event (it gives up at the first field that says so): the hottest event, read without making a frame.
  static func textDelta(_ bytes: UnsafeBufferPointer<UInt8>, ofMessage id: String) -> String? {
    var scanner = JSONByteScanner(bytes: bytes)
    guard case .textMessageContent(_, let delta)? = scanner.aguiFrame(knownID: id, textDeltaOnly: true)?.event else {
      return nil
    }
    return delta
  }
}

extension AGUIFastScan {
  /// The template of a `TEXT_MESSAGE_CONTENT` for the message `id` in the layout producers write (`type`,
  /// `messageId`, `delta`, in that order, no white space, no other field), through the delta's opening quote
  /// (`JSONByteScanner.templateString(after:)`); nil for an ID no template can hold. An event it matches is
  /// one `textDelta(_:ofMessage:)` reads as a delta of `id`, with the same text.
  static func hotTemplate(id: String) -> [UInt8]? {
    JSONByteScanner.template(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":""#, id: id, #"","delta":""#)
  }
}

/// The fields and types the fast path reads.
private enum AGUIKey { case type, messageID, toolCallID, delta, subagentRunID, role, name, other }

/// The event types read here, by the bytes of their names.
private enum AGUIKind { case text, reasoning, toolArgs, textStart, textEnd, reasoningStart, reasoningEnd, toolEnd }

extension JSONByteScanner {
  /// The event, or nil for the general path. Only a text delta of `knownID`, from no subagent, is wanted
  /// with `textDeltaOnly`: anything else gives up early.
  fileprivate mutating func aguiFrame(knownID: String?, textDeltaOnly: Bool) -> AGUIFrame? {
    var kind: AGUIKind?
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
        guard let key = aguiKey() else { return nil }
        skipSpace()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipSpace()
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
          if key == .type {
            // The type is compared as bytes: no string is made for it.
            guard let name = rawString(), let hot = Self.aguiKind(of: name) else { return nil }
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

  fileprivate static func aguiKind(of name: UnsafeBufferPointer<UInt8>) -> AGUIKind? {
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

  fileprivate mutating func aguiKey() -> AGUIKey? {
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
}
