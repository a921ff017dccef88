public import ConversationState
import Foundation

/// One request's view of a chat: its messages as UI messages (the protocol's own JSON), sent with every
/// request as `useChat` does. Built for each request from the stored conversation (`init(context:)`); the
/// backend keeps none between requests. A reasoning part's provider metadata goes back as it was stored
/// (`ReasoningPart.encryptedValue`); a message's own `metadata` is not kept.
public struct AISDKChat: Hashable, Sendable {
  /// The UI messages, oldest first.
  public var messages: [JSONValue]

  /// A chat holding these UI messages, oldest first (a test's, or a wrapper's own; the backend builds its
  /// chats with `init(context:)`).
  public init(messages: [JSONValue] = []) { self.messages = messages }

  /// The index of the message with this ID.
  public func index(of id: String) -> Int? {
    messages.firstIndex { $0.field("id")?.stringValue == id }
  }

  /// Adds a message, or replaces the one with its ID in place.
  public mutating func upsert(_ message: JSONValue) {
    if let id = message.field("id")?.stringValue, let index = index(of: id) {
      messages[index] = message
    } else {
      messages.append(message)
    }
  }

  /// The chat without the message `id` (all of it when nil or not held): the chat before a partial answer.
  func removing(_ id: String?) -> AISDKChat {
    guard let id, let index = index(of: id) else { return self }
    var chat = self
    chat.messages.remove(at: index)
    return chat
  }

  /// The user's message as a UI message: its text, and each attachment the server can fetch as a file part.
  public static func userMessage(_ message: Message) -> JSONValue {
    var parts: [JSONValue] = []
    if !message.text.isEmpty { parts.append(["type": "text", "text": .string(message.text)]) }
    for attachment in message.attachments {
      guard let url = attachment.url else { continue }
      parts.append([
        "type": "file", "mediaType": .string(attachment.contentType), "filename": .string(attachment.filename),
        "url": .string(url.absoluteString),
      ])
    }
    return ["id": .string(message.clientID.rawValue), "role": "user", "parts": .array(parts)]
  }

  /// Writes the outcomes and answers of `continuation` into the assistant message it continues, as
  /// `addToolOutput` and `addToolApprovalResponse` do: an app-run call's result (`output-available`) or
  /// error (`output-error`), an approval's answer (`approval-responded`). Returns the message's ID.
  ///
  /// - Throws: `UNKNOWN_MESSAGE` when the chat does not hold the message; `INVALID_ACTION` when a request
  ///   of the reply is not answered or is not an approval (nothing is changed then).
  public mutating func answer(_ continuation: RunContinuation) throws(ChatError) -> String {
    let id = continuation.answer?.rawValue ?? ""
    guard let index = index(of: id), case .object(var message) = messages[index],
      case .array(var parts)? = message["parts"]
    else {
      throw ChatError(.unknownMessage, "The chat does not hold the answer \(id) being continued.")
    }
    func update(_ callID: ToolCallID, _ change: (inout [String: JSONValue]) -> Void) {
      for (position, part) in parts.enumerated() {
        guard case .object(var fields) = part, fields["toolCallId"]?.stringValue == callID.rawValue else { continue }
        change(&fields)
        parts[position] = .object(fields)
      }
    }
    for request in continuation.inputAnswers {
      guard case .toolApproval(let callID) = request.kind else {
        throw ChatError(.invalidAction, "The AI SDK asks only for approvals; \(request.id.rawValue) is a question.")
      }
      var approval: [String: JSONValue] = ["id": .string(request.id.rawValue)]
      if let signature = request.signature { approval["signature"] = .string(signature) }
      switch request.answer {
      case .approved?: approval["approved"] = true
      case .denied(let reason)?:
        approval["approved"] = false
        if let reason { approval["reason"] = .string(reason) }
      default:
        throw ChatError(.invalidAction, "Approval \(request.id.rawValue) has no answer; nothing was sent.")
      }
      update(callID) {
        $0["state"] = "approval-responded"
        // What the request carried (a signature a server checks) goes back with the answer.
        if case .object(let asked)? = $0["approval"] { approval.merge(asked) { answer, _ in answer } }
        $0["approval"] = .object(approval)
      }
    }
    for call in continuation.toolResults {
      switch call.outcome {
      case .succeeded(let output):
        update(call.id) {
          $0["state"] = "output-available"
          $0["output"] = output
        }
      case .failed(let error):
        update(call.id) {
          $0["state"] = "output-error"
          $0["errorText"] = .string(error.message)
        }
      case .denied(let reason):
        update(call.id) {
          $0["state"] = "output-error"
          $0["errorText"] = .string(reason.map { "The user denied the call: \($0)" } ?? "The user denied the call.")
        }
      case .running, .inputStreaming, .awaitingApproval:
        throw ChatError(.invalidAction, "Tool call \(call.id.rawValue) has no outcome yet; nothing was sent.")
      }
    }
    message["parts"] = .array(parts)
    messages[index] = .object(message)
    return id
  }
}
