import ChatHTTP
public import ConversationState
import Foundation

extension AGUIFrame {
  /// Reads one event from its JSON text (the `data` of one Server-Sent Event).
  ///
  /// Unknown fields are ignored and an unknown event type is `.unknown`, as the protocol asks; text that is
  /// not a JSON object, a missing required field or a field of the wrong type is a `malformed` violation (a
  /// wrong type is never coerced). `null` in an optional field reads as absent.
  ///
  /// ```swift
  /// let frame = try AGUIFrame(json: #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}"#)
  /// // frame.event == .textMessageContent(messageID: "m1", delta: "Hi")
  /// ```
  public init(json: String) throws(AGUIViolation) {
    var text = json
    if let fast = text.withUTF8({ AGUIFastScan.frame($0) }) {
      self = fast
      return
    }
    let value: JSONValue
    do {
      value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    } catch {
      throw AGUIViolation(.malformed, "An event is not JSON: \(json.prefix(120))")
    }
    guard case .object(let object) = value else {
      throw AGUIViolation(.malformed, "An event is not a JSON object: \(json.prefix(120))")
    }
    self = try AGUIFrame(object: object)
  }

  /// Reads one event from its JSON object.
  public init(object: [String: JSONValue]) throws(AGUIViolation) {
    let fields = EventFields(object: object, type: "event")
    let type = try fields.string("type")
    let event = EventFields(object: object, type: type)
    self.init(try event.decode(), subagentRunID: try event.optionalString("subagentRunId"))
  }
}

/// An event's fields, read with the rules every protocol here shares (`JSONFields`); a broken one is a
/// `malformed` violation.
typealias EventFields = JSONFields<AGUIViolation>

extension JSONFields<AGUIViolation> {
  init(object: [String: JSONValue], type: String) {
    self.init(object: object, type: type) { AGUIViolation(.malformed, $0) }
  }

  func decode() throws(AGUIViolation) -> AGUIEvent {
    switch type {
    case "RUN_STARTED":
      return .runStarted(
        threadID: try string("threadId"), runID: try string("runId"), parentRunID: try optionalString("parentRunId"),
        protocolVersion: try optionalString("protocolVersion"))
    case "RUN_FINISHED":
      return .runFinished(threadID: try string("threadId"), runID: try string("runId"), outcome: try outcome())
    case "RUN_ERROR": return .runError(message: try string("message"), code: try optionalString("code"))
    case "STEP_STARTED": return .stepStarted(name: try string("stepName"))
    case "STEP_FINISHED": return .stepFinished(name: try string("stepName"))
    case "TEXT_MESSAGE_START":
      return .textMessageStart(
        messageID: try string("messageId"), role: try optionalString("role") ?? "assistant",
        name: try optionalString("name"))
    case "TEXT_MESSAGE_CONTENT":
      return .textMessageContent(messageID: try string("messageId"), delta: try string("delta"))
    case "TEXT_MESSAGE_END": return .textMessageEnd(messageID: try string("messageId"))
    case "TEXT_MESSAGE_CHUNK":
      return .textMessageChunk(
        messageID: try optionalString("messageId"), role: try optionalString("role"), name: try optionalString("name"),
        delta: try optionalString("delta"))
    case "TOOL_CALL_START":
      return .toolCallStart(
        toolCallID: try string("toolCallId"), name: try string("toolCallName"),
        parentMessageID: try optionalString("parentMessageId"))
    case "TOOL_CALL_ARGS": return .toolCallArgs(toolCallID: try string("toolCallId"), delta: try string("delta"))
    case "TOOL_CALL_END": return .toolCallEnd(toolCallID: try string("toolCallId"))
    case "TOOL_CALL_CHUNK":
      return .toolCallChunk(
        toolCallID: try optionalString("toolCallId"), name: try optionalString("toolCallName"),
        parentMessageID: try optionalString("parentMessageId"), delta: try optionalString("delta"))
    case "TOOL_CALL_RESULT":
      let content = try required("content")
      switch content {
      case .string, .array: break
      default: throw wrongType("content", "a string or an array of content parts")
      }
      return .toolCallResult(messageID: try string("messageId"), toolCallID: try string("toolCallId"), content: content)
    case "REASONING_START": return .reasoningStart(id: try string("messageId"))
    case "REASONING_END": return .reasoningEnd(id: try string("messageId"))
    case "REASONING_MESSAGE_START": return .reasoningMessageStart(messageID: try string("messageId"))
    case "REASONING_MESSAGE_CONTENT":
      return .reasoningMessageContent(messageID: try string("messageId"), delta: try string("delta"))
    case "REASONING_MESSAGE_END": return .reasoningMessageEnd(messageID: try string("messageId"))
    case "REASONING_MESSAGE_CHUNK":
      return .reasoningMessageChunk(messageID: try optionalString("messageId"), delta: try optionalString("delta"))
    case "REASONING_ENCRYPTED_VALUE":
      return .reasoningEncryptedValue(
        subtype: try string("subtype"), entityID: try string("entityId"), value: try string("encryptedValue"))
    case "STATE_SNAPSHOT": return .stateSnapshot(try required("snapshot"))
    case "STATE_DELTA": return .stateDelta(try array("delta"))
    case "MESSAGES_SNAPSHOT": return .messagesSnapshot(try array("messages"))
    case "ACTIVITY_SNAPSHOT":
      return .activitySnapshot(
        messageID: try string("messageId"), activityType: try string("activityType"), content: try required("content"),
        replace: try optionalBool("replace") ?? true)
    case "ACTIVITY_DELTA":
      return .activityDelta(
        messageID: try string("messageId"), activityType: try string("activityType"), patch: try array("patch"))
    case "CUSTOM": return .custom(name: try string("name"), value: try required("value"))
    case "RAW": return .raw(event: try required("event"), source: try optionalString("source"))
    case "SUBAGENT_STARTED":
      return .subagentStarted(
        subagentRunID: try string("subagentRunId"), name: try string("name"),
        parentSubagentRunID: try optionalString("parentSubagentRunId"))
    case "SUBAGENT_FINISHED": return .subagentFinished(subagentRunID: try string("subagentRunId"))
    case "SUBAGENT_ERROR":
      return .subagentError(
        subagentRunID: try string("subagentRunId"), message: try string("message"), code: try optionalString("code"))
    default: return .unknown(type: type)
    }
  }

  /// `RUN_FINISHED.outcome`: absent, or of a type this client does not know, reads as success.
  private func outcome() throws(AGUIViolation) -> AGUIRunOutcome {
    guard let value = object["outcome"], value != .null else { return .success(pendingToolCallIDs: []) }
    guard case .object(let fields) = value else { throw wrongType("outcome", "an object") }
    let outcome = EventFields(object: fields, type: "\(type).outcome")
    switch try outcome.string("type") {
    case "interrupt":
      let interrupts = try outcome.array("interrupts")
      guard !interrupts.isEmpty else {
        throw AGUIViolation(.malformed, "\(type) ends with an interrupt outcome that lists no interrupts.")
      }
      return .interrupt(try interrupts.map { value throws(AGUIViolation) in try Self.interrupt(value, in: type) })
    case "cancelled": return .cancelled
    default:
      let pending = try outcome.optionalArray("pendingToolCallIds") ?? []
      return .success(
        pendingToolCallIDs: try pending.map { value throws(AGUIViolation) in
          guard case .string(let id) = value else {
            throw outcome.wrongType("pendingToolCallIds", "an array of strings")
          }
          return id
        })
    }
  }

  private static func interrupt(_ value: JSONValue, in type: String) throws(AGUIViolation) -> AGUIInterrupt {
    guard case .object(let object) = value else {
      throw AGUIViolation(.malformed, "\(type) lists an interrupt that is not an object.")
    }
    let fields = EventFields(object: object, type: "\(type) interrupt")
    let schema = object["responseSchema"].flatMap { $0 == .null ? nil : $0 }
    if let schema, case .object = schema {
    } else if schema != nil {
      throw fields.wrongType("responseSchema", "an object")
    }
    return AGUIInterrupt(
      id: try fields.string("id"), reason: try fields.string("reason"), message: try fields.optionalString("message"),
      toolCallID: try fields.optionalString("toolCallId"), responseSchema: schema,
      expiresAt: try fields.optionalString("expiresAt"), payload: value)
  }
}
