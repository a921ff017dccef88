import ChatHTTP
public import ConversationState
import Foundation

extension AGUIThread {
  /// The key of AG-UI's entry in `Message.providerMetadata`: `{"runId": …, "interrupts": [ids]}`, the run
  /// an answer came from and the interrupts it ended with.
  static let metadataKey = "ag-ui"

  /// The history an AG-UI run carries for `context` (oldest first), in AG-UI's message shapes: a user
  /// message with its attachments as content parts; an answer as its reasoning messages, the assistant
  /// message (text and tool calls with their arguments) and a tool message for each call that has an
  /// outcome; an app call the conversation went on without is answered saying so (a thread that goes on
  /// answers every call). Message IDs are the store's (the server ID, else the client ID): some producers
  /// reuse their own across runs.
  public init(context: AgentContext) {
    self.init(state: context.agentState ?? .object([:]))
    for message in context.messages {
      for wire in Self.wireMessages(message, goesOn: true) { upsert(wire) }
    }
  }

  /// The messages of one stored message; `goesOn` answers its unanswered app calls (something followed it);
  /// `resuming` leaves out the tool messages of the agent's own calls the user denied (the run being
  /// resumed hears of those in `resume`). An answer is sent step by step (`Message.agentSteps`): each step's
  /// reasoning, its assistant message, then its calls' results.
  static func wireMessages(_ message: Message, goesOn: Bool = false, resuming: Bool = false) -> [JSONValue] {
    let id = message.serverID?.rawValue ?? message.clientID.rawValue
    switch message.role {
    case .user:
      var user = message
      user.clientID = ClientMessageID(rawValue: id)
      return [userMessage(user)]
    case .system:
      return [["id": .string(id), "role": "system", "content": .string(message.text)]]
    case .assistant, .humanAgent:
      var wire: [JSONValue] = []
      for (number, step) in message.agentSteps.enumerated() {
        let stepID = number == 0 ? id : "\(id)-step-\(number)"
        for (index, reasoning) in step.reasoning.enumerated() {
          var fields: [String: JSONValue] = [
            "id": .string("\(stepID)-reasoning-\(index)"), "role": "reasoning", "content": .string(reasoning.text),
          ]
          if let value = reasoning.encryptedValue { fields["encryptedValue"] = .string(value) }
          wire.append(.object(fields))
        }
        guard !step.text.isEmpty || !step.toolCalls.isEmpty else { continue }
        var assistant: [String: JSONValue] = ["id": .string(stepID), "role": "assistant"]
        if !step.text.isEmpty { assistant["content"] = .string(step.text) }
        if !step.toolCalls.isEmpty {
          assistant["toolCalls"] = .array(
            step.toolCalls.map { call in
              [
                "id": .string(call.id.rawValue), "type": "function",
                "function": ["name": .string(call.name), "arguments": .string(call.input.wireText)],
              ]
            })
        }
        wire.append(.object(assistant))
        for call in step.toolCalls {
          if resuming, case .denied = call.outcome, call.execution == .server { continue }
          if let result = toolMessage(answering: call) {
            wire.append(result)
          } else if goesOn, call.execution == .client, let result = toolMessage(answering: call.abandoned) {
            wire.append(result)
          }
        }
      }
      return wire
    }
  }

  /// The run an answer came from, and the interrupts it ended with (from its provider metadata).
  static func run(of message: Message) -> (runID: String?, interrupts: [String]) {
    let entry = message.providerMetadata?.field(metadataKey)
    let interrupts: [String]
    if case .array(let ids)? = entry?.field("interrupts") {
      interrupts = ids.compactMap(\.stringValue)
    } else {
      interrupts = []
    }
    return (entry?.field("runId")?.stringValue, interrupts)
  }

  /// What an answer keeps of its run: its ID and the interrupts it ended with.
  static func metadata(runID: String, interrupts: [String]) -> JSONValue {
    var entry: [String: JSONValue] = ["runId": .string(runID)]
    if !interrupts.isEmpty { entry["interrupts"] = .array(interrupts.map { .string($0) }) }
    return [metadataKey: .object(entry)]
  }
}
