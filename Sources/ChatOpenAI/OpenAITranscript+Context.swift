import ChatHTTP
public import ConversationState
import Foundation

extension OpenAITranscript {
  /// The key of the Responses API's entry in `Message.providerMetadata`: `{"output": [items]}`, an answer's
  /// output items as the server sent them (reasoning with its ID and encrypted content, function calls).
  static let responsesKey = "openai.responses"

  /// What the model is sent of `context` (oldest first) in `api`'s wire form: each user message with its
  /// images; each answer as its text and function calls (Chat Completions: one `assistant` message with
  /// `tool_calls`; Responses: the output items the server sent, kept on the message, else items built from
  /// its reasoning, text and calls), followed by the outcome of each call that has one. A call the
  /// conversation went on without is answered saying so (the API refuses a call left unanswered).
  ///
  /// A message whose stored output items are not a list of objects is sent as what its other fields hold;
  /// `unreadable` names it.
  public init(context: AgentContext, api: OpenAIAPI) {
    self.init()
    for message in context.messages {
      let wire = api.items(of: message, goesOn: true)
      set(wire.items, for: message.serverID?.rawValue ?? message.clientID.rawValue)
      if let error = wire.unreadable { unreadable.append(error) }
    }
  }
}

extension OpenAIAPI {
  /// One stored message's items; `goesOn` answers its unanswered calls (something followed it).
  func items(of message: Message, goesOn: Bool) -> (items: [JSONValue], unreadable: ChatError?) {
    switch message.role {
    case .user: return ([userItem(message)], nil)
    case .system:
      switch self {
      case .chatCompletions: return ([["role": "system", "content": .string(message.text)]], nil)
      case .responses: return ([["type": "message", "role": "system", "content": .string(message.text)]], nil)
      }
    case .assistant, .humanAgent:
      if self == .responses, let stored = message.providerMetadata?.field(OpenAITranscript.responsesKey) {
        if case .array(let list)? = stored.field("output"),
          list.allSatisfy({ if case .object = $0 { true } else { false } })
        {
          return (list + outputs(for: message.toolCalls, after: list, goesOn: goesOn), nil)
        }
        let unreadable = ChatError(
          .invalidResponse,
          "The stored output items of message \(message.clientID.rawValue) are not a list of objects; it was "
            + "sent as its text and calls.")
        return (stepItems(message, goesOn: goesOn), unreadable)
      }
      return (stepItems(message, goesOn: goesOn), nil)
    }
  }

  /// An answer built from its steps (`Message.agentSteps`): each step's reasoning (Responses, with its
  /// encrypted content), text and calls, then its calls' outcomes, so text written after a result follows it.
  private func stepItems(_ message: Message, goesOn: Bool) -> [JSONValue] {
    var items: [JSONValue] = []
    for step in message.agentSteps {
      switch self {
      case .chatCompletions:
        guard !step.text.isEmpty || !step.toolCalls.isEmpty else { continue }
        var answer: [String: JSONValue] = [
          "role": "assistant", "content": step.text.isEmpty ? .null : .string(step.text),
        ]
        if !step.toolCalls.isEmpty {
          answer["tool_calls"] = .array(
            step.toolCalls.map { call in
              [
                "id": .string(call.id.rawValue), "type": "function",
                "function": ["name": .string(call.name), "arguments": .string(call.input.wireText)],
              ]
            })
        }
        items.append(.object(answer))
      case .responses:
        for reasoning in step.reasoning {
          guard let encrypted = reasoning.encryptedValue else { continue }
          items.append([
            "type": "reasoning", "encrypted_content": .string(encrypted),
            "summary": [["type": "summary_text", "text": .string(reasoning.text)]],
          ])
        }
        if !step.text.isEmpty {
          items.append([
            "type": "message", "role": "assistant", "content": [["type": "output_text", "text": .string(step.text)]],
          ])
        }
        for call in step.toolCalls {
          items.append([
            "type": "function_call", "call_id": .string(call.id.rawValue), "name": .string(call.name),
            "arguments": .string(call.input.wireText),
          ])
        }
      }
      items += outputs(for: step.toolCalls, after: [], goesOn: goesOn)
    }
    return items
  }

  /// The outcome items of `calls` that `items` does not answer yet; with `goesOn`, a call without an outcome
  /// is answered saying the user went on without it.
  private func outputs(for calls: [ToolCall], after items: [JSONValue], goesOn: Bool) -> [JSONValue] {
    let answered = Set(
      items.compactMap { item -> String? in
        guard item.field("type")?.stringValue == "function_call_output" else { return nil }
        return item.field("call_id")?.stringValue
      })
    return calls.filter { !answered.contains($0.id.rawValue) }.compactMap { call in
      if let output = toolOutputItem(call) { return output }
      return goesOn ? toolOutputItem(call.abandoned) : nil
    }
  }
}
