import ChatHTTP
public import ConversationState
import Foundation

extension AISDKChat {
  /// The chat's UI messages for `context` (oldest first), as `useChat` would hold them: a user message's
  /// text and files; an answer's parts in the order they came (text, reasoning with its provider metadata,
  /// each tool call as a `tool-{name}` part in the state its outcome says, sources, files, data). A
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
          parts.append(toolPart(call, approval: approvals[callID]))
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
        parts.append(toolPart(call, approval: approvals[call.id]))
      }
      return ["id": .string(id), "role": "assistant", "parts": .array(parts)]
    }
  }

  /// A tool call as its UI part: `input-available` while it runs, `output-available` or `output-error`
  /// once settled, `approval-requested` while it waits for the user, `output-denied` when denied.
  private static func toolPart(_ call: ToolCall, approval request: InputRequest?) -> JSONValue {
    var approval: [String: JSONValue] = [:]
    if let request {
      approval["id"] = .string(request.id.rawValue)
      if let signature = request.signature { approval["signature"] = .string(signature) }
    }
    var part: [String: JSONValue] = [
      "type": .string("tool-\(call.name)"), "toolCallId": .string(call.id.rawValue), "input": call.input,
    ]
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
