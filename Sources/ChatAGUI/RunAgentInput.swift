public import ConversationState
public import Foundation

/// A tool the app runs, as AG-UI advertises it to the agent (`RunAgentInput.tools`): the agent calls it,
/// the run ends with the call pending, and the app's result goes back in the next run. The same value
/// OpenAI's requests offer (`OpenAITool`).
public typealias AGUITool = AppTool

/// The body of one AG-UI run request, built from the thread (pure: `runID` and everything else come in).
///
/// ```swift
/// let body = RunAgentInput(threadID: "conv-1", runID: "run-7", thread: thread, tools: tools).json()
/// ```
public struct RunAgentInput: Hashable, Sendable {
  public var threadID: String
  public var runID: String
  /// The run this one continues (the interrupted one, for a resume).
  public var parentRunID: String?
  public var thread: AGUIThread
  public var tools: [AGUITool]
  /// `[{description, value}]`: grounding for the model, as the host gives it.
  public var context: [(description: String, value: String)]
  /// The host's own payload, passed through untouched (an object; `{}` when the host gives none).
  public var forwardedProps: JSONValue
  /// The answers to the interrupts of the run this one resumes; every one is answered.
  public var resume: [JSONValue]

  public init(
    threadID: String, runID: String, parentRunID: String? = nil, thread: AGUIThread, tools: [AGUITool] = [],
    context: [(description: String, value: String)] = [], forwardedProps: JSONValue = .object([:]),
    resume: [JSONValue] = []
  ) {
    self.threadID = threadID
    self.runID = runID
    self.parentRunID = parentRunID
    self.thread = thread
    self.tools = tools
    self.context = context
    self.forwardedProps = forwardedProps
    self.resume = resume
  }

  public static func == (lhs: RunAgentInput, rhs: RunAgentInput) -> Bool { lhs.value == rhs.value }
  public func hash(into hasher: inout Hasher) { hasher.combine(value) }

  /// The request as JSON: `protocolVersion` "1.0", the thread's messages (the run's context; activity
  /// messages never go), no `null` for anything absent.
  public var value: JSONValue {
    var body: [String: JSONValue] = [
      "threadId": .string(threadID), "runId": .string(runID), "protocolVersion": "1.0",
      "state": thread.state, "messages": .array(thread.messages),
      "tools": .array(
        tools.map {
          .object(["name": .string($0.name), "description": .string($0.description), "parameters": $0.parameters])
        }
      ),
      "context": .array(context.map { .object(["description": .string($0.description), "value": .string($0.value)]) }),
      "forwardedProps": forwardedProps,
    ]
    if let parentRunID { body["parentRunId"] = .string(parentRunID) }
    if !resume.isEmpty { body["resume"] = .array(resume) }
    return .object(body)
  }

  /// The body's bytes.
  public func json() -> Data { value.encoded() }
}

extension AGUIThread {
  /// The user's message as an AG-UI user message: its client ID is the message's ID (the producer echoes it
  /// back, which confirms the message), its attachments content parts by URL.
  public static func userMessage(_ message: Message) -> JSONValue {
    let stored = message.attachments.compactMap { attachment -> JSONValue? in
      guard let url = attachment.url else { return nil }
      let type = attachment.contentType
      let kind =
        type.hasPrefix("image/")
        ? "image" : type.hasPrefix("audio/") ? "audio" : type.hasPrefix("video/") ? "video" : "document"
      return .object([
        "type": .string(kind),
        "source": .object(["type": "url", "value": .string(url.absoluteString), "mimeType": .string(type)]),
      ])
    }
    let content: JSONValue =
      stored.isEmpty
      ? .string(message.text) : .array([.object(["type": "text", "text": .string(message.text)])] + stored)
    return .object(["id": .string(message.clientID.rawValue), "role": "user", "content": content])
  }

  /// The tool message that answers an app-run call: its result as JSON text, or the error the agent should
  /// see (a failure and a denial are answers too).
  public static func toolMessage(answering call: ToolCall) -> JSONValue? {
    var message: [String: JSONValue] = [
      "id": .string("result-\(call.id.rawValue)"), "role": "tool", "toolCallId": .string(call.id.rawValue),
    ]
    switch call.outcome {
    case .succeeded(let result):
      message["content"] = .string(result.wireText)
    case .failed(let error):
      message["content"] = .string(error.message)
      message["error"] = .string(error.message)
    case .denied(let reason):
      let text = reason.map { "The user denied the call: \($0)" } ?? "The user denied the call."
      message["content"] = .string(text)
      message["error"] = .string(text)
    case .running, .inputStreaming, .awaitingApproval: return nil
    }
    return .object(message)
  }

  /// A `resume` entry answering one interrupt: an approval as `{"approved": …}` (with the reason of a
  /// denial), the answer to a question as its value, a declined question `cancelled`.
  public static func resumeEntry(_ request: InputRequest) -> JSONValue? {
    let id = JSONValue.string(request.id.rawValue)
    switch request.answer {
    case .approved?: return ["interruptId": id, "status": "resolved", "payload": ["approved": true]]
    case .denied(let reason)?:
      var payload: [String: JSONValue] = ["approved": false]
      if let reason { payload["reason"] = .string(reason) }
      return ["interruptId": id, "status": "resolved", "payload": .object(payload)]
    case .answered(let value)?: return ["interruptId": id, "status": "resolved", "payload": value]
    case .declined?: return ["interruptId": id, "status": "cancelled"]
    case nil: return nil
    }
  }
}
