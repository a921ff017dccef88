public import ConversationState

/// One AG-UI 1.0 event, as the wire carries it (`data:` of one Server-Sent Event), with its fields typed.
///
/// The chunk forms (`TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK`, `REASONING_MESSAGE_CHUNK`) are kept as they came;
/// `AGUIStreamVerifier` expands them into start, content and end. An event type this client does not know
/// is `unknown`: the protocol says to drop it with a warning, never to fail the run.
public enum AGUIEvent: Hashable, Sendable {
  case runStarted(threadID: String, runID: String, parentRunID: String?, protocolVersion: String?)
  case runFinished(threadID: String, runID: String, outcome: AGUIRunOutcome)
  /// The run failed (`code` is the producer's, when it gave one). May come first, and may follow `runFinished`.
  case runError(message: String, code: String?)
  case stepStarted(name: String)
  case stepFinished(name: String)
  /// `role` is `assistant` when the event leaves it out.
  case textMessageStart(messageID: String, role: String, name: String?)
  case textMessageContent(messageID: String, delta: String)
  case textMessageEnd(messageID: String)
  case textMessageChunk(messageID: String?, role: String?, name: String?, delta: String?)
  case toolCallStart(toolCallID: String, name: String, parentMessageID: String?)
  case toolCallArgs(toolCallID: String, delta: String)
  case toolCallEnd(toolCallID: String)
  case toolCallChunk(toolCallID: String?, name: String?, parentMessageID: String?, delta: String?)
  /// A server-run tool's result; `content` is a string or an array of content parts, as sent.
  case toolCallResult(messageID: String, toolCallID: String, content: JSONValue)
  /// A reasoning span (its own ID space; it holds reasoning messages).
  case reasoningStart(id: String)
  case reasoningEnd(id: String)
  case reasoningMessageStart(messageID: String)
  case reasoningMessageContent(messageID: String, delta: String)
  case reasoningMessageEnd(messageID: String)
  case reasoningMessageChunk(messageID: String?, delta: String?)
  /// An opaque provider value for a reasoning message (`subtype` `message`) or a tool call (`tool-call`), to
  /// be kept and handed back unchanged.
  case reasoningEncryptedValue(subtype: String, entityID: String, value: String)
  case stateSnapshot(JSONValue)
  /// RFC 6902 operations as sent; unknown `op`s are dropped when applied, as the protocol says.
  case stateDelta([JSONValue])
  /// The producer's copy of the whole conversation, as wire messages.
  case messagesSnapshot([JSONValue])
  case activitySnapshot(messageID: String, activityType: String, content: JSONValue, replace: Bool)
  case activityDelta(messageID: String, activityType: String, patch: [JSONValue])
  case custom(name: String, value: JSONValue)
  case raw(event: JSONValue, source: String?)
  case subagentStarted(subagentRunID: String, name: String, parentSubagentRunID: String?)
  case subagentFinished(subagentRunID: String)
  case subagentError(subagentRunID: String, message: String, code: String?)
  /// An event type this client does not know (dropped, with a warning).
  case unknown(type: String)
}

/// How a run that did not fail ended (`RUN_FINISHED.outcome`; absent or unknown reads as success).
public enum AGUIRunOutcome: Hashable, Sendable {
  /// Done; the app's tool calls still unanswered, when the producer listed them.
  case success(pendingToolCallIDs: [String])
  /// Paused for the user: continue with a new run whose `resume` answers every interrupt.
  case interrupt([AGUIInterrupt])
  /// Stopped on purpose: neither a success nor a failure.
  case cancelled
}

/// What a paused run asks (`Interrupt`): an approval of the tool call `toolCallID`, or a question whose
/// answer `responseSchema` describes.
public struct AGUIInterrupt: Hashable, Sendable {
  public var id: String
  /// The producer's reason (an open string: `tool_call`, `confirm`, …).
  public var reason: String
  public var message: String?
  public var toolCallID: String?
  public var responseSchema: JSONValue?
  /// When it expires, as the producer wrote it (ISO 8601 by convention; the producer's clock).
  public var expiresAt: String?
  /// The whole interrupt as sent, for the host (metadata and fields this client does not read).
  public var payload: JSONValue

  public init(
    id: String, reason: String, message: String? = nil, toolCallID: String? = nil, responseSchema: JSONValue? = nil,
    expiresAt: String? = nil, payload: JSONValue = .object([:])
  ) {
    self.id = id
    self.reason = reason
    self.message = message
    self.toolCallID = toolCallID
    self.responseSchema = responseSchema
    self.expiresAt = expiresAt
    self.payload = payload
  }
}

/// An event with the subagent lane it belongs to (`subagentRunId`; nil for the run's own agent).
public struct AGUIFrame: Hashable, Sendable {
  public var event: AGUIEvent
  public var subagentRunID: String?

  public init(_ event: AGUIEvent, subagentRunID: String? = nil) {
    self.event = event
    self.subagentRunID = subagentRunID
  }
}

extension AGUIEvent {
  /// The event's wire name (`TEXT_MESSAGE_CONTENT`), for messages that name it.
  public var typeName: String {
    switch self {
    case .runStarted: "RUN_STARTED"
    case .runFinished: "RUN_FINISHED"
    case .runError: "RUN_ERROR"
    case .stepStarted: "STEP_STARTED"
    case .stepFinished: "STEP_FINISHED"
    case .textMessageStart: "TEXT_MESSAGE_START"
    case .textMessageContent: "TEXT_MESSAGE_CONTENT"
    case .textMessageEnd: "TEXT_MESSAGE_END"
    case .textMessageChunk: "TEXT_MESSAGE_CHUNK"
    case .toolCallStart: "TOOL_CALL_START"
    case .toolCallArgs: "TOOL_CALL_ARGS"
    case .toolCallEnd: "TOOL_CALL_END"
    case .toolCallChunk: "TOOL_CALL_CHUNK"
    case .toolCallResult: "TOOL_CALL_RESULT"
    case .reasoningStart: "REASONING_START"
    case .reasoningEnd: "REASONING_END"
    case .reasoningMessageStart: "REASONING_MESSAGE_START"
    case .reasoningMessageContent: "REASONING_MESSAGE_CONTENT"
    case .reasoningMessageEnd: "REASONING_MESSAGE_END"
    case .reasoningMessageChunk: "REASONING_MESSAGE_CHUNK"
    case .reasoningEncryptedValue: "REASONING_ENCRYPTED_VALUE"
    case .stateSnapshot: "STATE_SNAPSHOT"
    case .stateDelta: "STATE_DELTA"
    case .messagesSnapshot: "MESSAGES_SNAPSHOT"
    case .activitySnapshot: "ACTIVITY_SNAPSHOT"
    case .activityDelta: "ACTIVITY_DELTA"
    case .custom: "CUSTOM"
    case .raw: "RAW"
    case .subagentStarted: "SUBAGENT_STARTED"
    case .subagentFinished: "SUBAGENT_FINISHED"
    case .subagentError: "SUBAGENT_ERROR"
    case .unknown(let type): type
    }
  }
}
