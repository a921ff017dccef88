import ChatHTTP
public import ConversationState
import Foundation

extension AISDKChat {
  /// The key of the AI SDK's entry in `Message.providerMetadata`: `{"tools": {callId: fields}}`, what each
  /// tool part held that `ToolCall` does not (its title, `toolMetadata`, the provider's metadata about the
  /// call and its result, whether the provider ran it, a dynamic tool's name), to send the part back as
  /// `useChat` would: the server's `convertToModelMessages` hands the provider metadata back to the model.
  static let metadataKey = "ai-sdk"

  /// The fields of a tool part kept in the answer's `providerMetadata`.
  private static let keptToolFields: Set<String> = [
    "title", "toolMetadata", "callProviderMetadata", "resultProviderMetadata", "providerExecuted",
  ]

  /// The answer's `providerMetadata` for its UI `parts`: the kept fields of each tool part; nil when no
  /// tool part has any.
  static func metadata(ofToolParts parts: [JSONValue]) -> JSONValue? {
    var tools: [String: JSONValue] = [:]
    for part in parts {
      guard case .object(let fields) = part, let id = fields["toolCallId"]?.stringValue else { continue }
      var kept = fields.filter { keptToolFields.contains($0.key) }
      if fields["type"]?.stringValue == "dynamic-tool" {
        kept["dynamic"] = true
        kept["toolName"] = fields["toolName"]
      }
      if !kept.isEmpty { tools[id] = .object(kept) }
    }
    return tools.isEmpty ? nil : [metadataKey: ["tools": .object(tools)]]
  }

  /// The chat's UI messages for `context` (oldest first), as `useChat` would hold them: a user message's
  /// text and files; an answer's parts in the order they came (text, reasoning with its provider metadata,
  /// each tool call as a `tool-{name}` part in the state its outcome says, with what the answer kept of the
  /// part as streamed (`metadataKey`), sources, files, data). A
  /// message stored without parts sends its text as one text part. IDs are the server's (else the store's
  /// client ID).
  public init(context: AgentContext) {
    self.init(messages: context.messages.map(Self.uiMessage))
  }

  /// One stored message as a UI message.
  static func uiMessage(_ message: Message) -> JSONValue {
    let id = message.serverID?.rawValue ?? message.clientID.rawValue
    switch message.role {
    case .user:
      var user = message
      user.clientID = ClientMessageID(rawValue: id)
      return userMessage(user)
    case .system:
      return ["id": .string(id), "role": "system", "parts": [["type": "text", "text": .string(message.text)]]]
    case .assistant, .humanAgent:
      var parts: [JSONValue] = []
      var placed = Set<ToolCallID>()
      let approvals = approvalIDs(of: message)
      for part in message.parts {
        switch part.content {
        case .text(let text): parts.append(["type": "text", "text": .string(text), "state": "done"])
        case .reasoning(let reasoning):
          var fields: [String: JSONValue] = ["type": "reasoning", "text": .string(reasoning.text), "state": "done"]
          if let value = reasoning.encryptedValue {
            fields["providerMetadata"] =
              (try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8))) ?? .string(value)
          }
          parts.append(.object(fields))
        case .toolCall(let callID):
          guard let call = message.toolCalls.first(where: { $0.id == callID }) else { continue }
          placed.insert(callID)
          parts.append(toolPart(call, approval: approvals[callID], kept: keptFields(of: call, in: message)))
        case .source(let source):
          guard let url = source.url else { continue }
          parts.append([
            "type": "source-url", "sourceId": .string(part.id.rawValue), "url": .string(url.absoluteString),
            "title": .string(source.title),
          ])
        case .file(let file):
          parts.append(["type": "file", "url": .string(file.url.absoluteString), "mediaType": .string(file.mediaType)])
        case .data(let data):
          parts.append(["type": .string("data-\(data.kind)"), "id": .string(part.id.rawValue), "data": data.value])
        }
      }
      if message.parts.isEmpty, !message.text.isEmpty {
        parts.append(["type": "text", "text": .string(message.text), "state": "done"])
      }
      for call in message.toolCalls where !placed.contains(call.id) {
        parts.append(toolPart(call, approval: approvals[call.id], kept: keptFields(of: call, in: message)))
      }
      return ["id": .string(id), "role": "assistant", "parts": .array(parts)]
    }
  }

  /// What the answer kept of `call`'s part (`metadataKey`), if anything.
  private static func keptFields(of call: ToolCall, in message: Message) -> [String: JSONValue] {
    guard
      case .object(let fields)? = message.providerMetadata?.field(metadataKey)?.field("tools")?
        .field(call.id.rawValue)
    else { return [:] }
    return fields
  }

  /// A tool call as its UI part: `input-available` while it runs, `output-available` or `output-error`
  /// once settled, `approval-requested` while it waits for the user, `output-denied` when denied; with what
  /// the answer `kept` of the part as the server sent it (a dynamic tool goes back as `dynamic-tool`).
  private static func toolPart(_ call: ToolCall, approval request: InputRequest?, kept: [String: JSONValue])
    -> JSONValue
  {
    var approval: [String: JSONValue] = [:]
    if let request {
      approval["id"] = .string(request.id.rawValue)
      if let signature = request.signature { approval["signature"] = .string(signature) }
    }
    var part: [String: JSONValue] = [
      "type": .string("tool-\(call.name)"), "toolCallId": .string(call.id.rawValue), "input": call.input,
    ]
    for (key, value) in kept where keptToolFields.contains(key) { part[key] = value }
    if kept["dynamic"] == true {
      part["type"] = "dynamic-tool"
      part["toolName"] = .string(call.name)
    }
    switch call.outcome {
    case .inputStreaming: part["state"] = "input-streaming"
    case .running: part["state"] = "input-available"
    case .succeeded(let output):
      part["state"] = "output-available"
      part["output"] = output
    case .failed(let error):
      part["state"] = "output-error"
      part["errorText"] = .string(error.message)
    case .awaitingApproval:
      part["state"] = "approval-requested"
      if !approval.isEmpty { part["approval"] = .object(approval) }
    case .denied(let reason):
      part["state"] = "output-denied"
      approval["approved"] = false
      if let reason { approval["reason"] = .string(reason) }
      part["approval"] = .object(approval)
    }
    return .object(part)
  }

  /// The approval request of each call the answer asks the user about.
  private static func approvalIDs(of message: Message) -> [ToolCallID: InputRequest] {
    guard case .awaitingInput(let requests) = message.reply else { return [:] }
    var ids: [ToolCallID: InputRequest] = [:]
    for request in requests {
      if case .toolApproval(let callID) = request.kind { ids[callID] = request }
    }
    return ids
  }
}
