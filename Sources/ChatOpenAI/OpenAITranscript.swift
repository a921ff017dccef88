public import ConversationState
import Foundation

/// What the model is sent of one conversation on one request, in the wire form of the API in use (Chat
/// Completions `messages`, or Responses `input` items): OpenAI's APIs keep no conversation, so every
/// request carries it. Built for each request from the stored conversation (`init(context:api:)`); a
/// Responses answer's output items go back as the server sent them (`Message.providerMetadata`).
public struct OpenAITranscript: Hashable, Sendable {
  /// One wire item, with the ID of the message it belongs to (the user's client ID; the answer's ID).
  public struct Entry: Hashable, Sendable {
    public var messageID: String
    public var item: JSONValue

    public init(messageID: String, item: JSONValue) {
      self.messageID = messageID
      self.item = item
    }
  }

  public var entries: [Entry]
  /// Messages of the context whose stored provider items could not be read (each sent as its other fields
  /// hold it): one typed error each.
  public var unreadable: [ChatError] = []

  public init(entries: [Entry] = []) { self.entries = entries }

  /// The wire items, oldest first.
  public var items: [JSONValue] { entries.map(\.item) }

  /// Replaces the items of `messageID` (a retry of the same message), or appends them.
  public mutating func set(_ items: [JSONValue], for messageID: String) {
    if let first = entries.firstIndex(where: { $0.messageID == messageID }) {
      entries.removeAll { $0.messageID == messageID }
      entries.insert(contentsOf: items.map { Entry(messageID: messageID, item: $0) }, at: first)
    } else {
      entries += items.map { Entry(messageID: messageID, item: $0) }
    }
  }

}

/// The two streaming APIs an OpenAI-compatible server offers.
public enum OpenAIAPI: String, Hashable, Sendable {
  /// `POST /chat/completions` with `stream: true`: the API nearly every compatible server speaks (vLLM,
  /// Ollama, llama.cpp, LiteLLM, OpenRouter…).
  case chatCompletions
  /// `POST /responses` with `stream: true`: typed events with sequence numbers, reasoning items.
  case responses

  /// The user's message as the API's item.
  func userItem(_ message: Message) -> JSONValue {
    let images = message.attachments.compactMap { attachment -> String? in
      attachment.contentType.hasPrefix("image/") ? attachment.url?.absoluteString : nil
    }
    switch self {
    case .chatCompletions:
      guard !images.isEmpty else { return ["role": "user", "content": .string(message.text)] }
      let parts: [JSONValue] =
        [["type": "text", "text": .string(message.text)]]
        + images.map { ["type": "image_url", "image_url": ["url": .string($0)]] }
      return ["role": "user", "content": .array(parts)]
    case .responses:
      let parts: [JSONValue] =
        [["type": "input_text", "text": .string(message.text)]]
        + images.map { ["type": "input_image", "image_url": .string($0)] }
      return ["type": "message", "role": "user", "content": .array(parts)]
    }
  }

  /// The item that gives the model an app-run call's outcome.
  func toolOutputItem(_ call: ToolCall) -> JSONValue? {
    let output: String
    switch call.outcome {
    case .succeeded(let result): output = result.wireText
    case .failed(let error): output = "Error: \(error.message)"
    case .denied(let reason): output = reason.map { "The user denied the call: \($0)" } ?? "The user denied the call."
    case .running, .inputStreaming, .awaitingApproval: return nil
    }
    switch self {
    case .chatCompletions:
      return ["role": "tool", "tool_call_id": .string(call.id.rawValue), "content": .string(output)]
    case .responses:
      return ["type": "function_call_output", "call_id": .string(call.id.rawValue), "output": .string(output)]
    }
  }

  /// The tools as the API lists them.
  func toolList(_ tools: [OpenAITool]) -> JSONValue {
    .array(
      tools.map { tool in
        switch self {
        case .chatCompletions:
          [
            "type": "function",
            "function": [
              "name": .string(tool.name), "description": .string(tool.description), "parameters": tool.parameters,
            ],
          ]
        case .responses:
          [
            "type": "function", "name": .string(tool.name), "description": .string(tool.description),
            "parameters": tool.parameters,
          ]
        }
      })
  }
}
