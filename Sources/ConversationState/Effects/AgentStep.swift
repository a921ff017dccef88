/// One step of an answer as an agent produced it: what it thought, what it wrote, and the tools it called,
/// whose results came before the next step. Protocols that send an answer back as several messages (AG-UI's
/// and Chat Completions' assistant and tool messages) send one per step, so a text written after a tool's
/// result stays after it.
public struct AgentStep: Hashable, Sendable {
  /// The step's reasoning, in order.
  public var reasoning: [ReasoningPart] = []
  /// The step's text.
  public var text = ""
  /// The step's tool calls, in call order.
  public var toolCalls: [ToolCall] = []

  /// Whether the step holds nothing.
  public var isEmpty: Bool { reasoning.isEmpty && text.isEmpty && toolCalls.isEmpty }
}

extension Message {
  /// The answer's steps, from its parts in the order they came: a step ends at text or reasoning that
  /// follows one of its tool calls, and at reasoning that follows its text. Source, file and data parts are
  /// in no step. An answer without parts is one step (its text, then its calls); calls no part places join
  /// the last step. (Read-only: `AgentStep` has no public initializer.)
  public var agentSteps: [AgentStep] {
    guard !parts.isEmpty else {
      let step = AgentStep(text: text, toolCalls: toolCalls)
      return step.isEmpty ? [] : [step]
    }
    let calls = Dictionary(toolCalls.map { ($0.id, $0) }) { first, _ in first }
    var steps: [AgentStep] = []
    var current = AgentStep()
    var placed = Set<ToolCallID>()
    for part in parts {
      switch part.content {
      case .text(let text):
        if !current.toolCalls.isEmpty {
          steps.append(current)
          current = AgentStep()
        }
        current.text += text
      case .reasoning(let reasoning):
        if !current.toolCalls.isEmpty || !current.text.isEmpty {
          steps.append(current)
          current = AgentStep()
        }
        current.reasoning.append(reasoning)
      case .toolCall(let id):
        guard let call = calls[id], placed.insert(id).inserted else { continue }
        current.toolCalls.append(call)
      case .source, .file, .data: continue
      }
    }
    current.toolCalls += toolCalls.filter { !placed.contains($0.id) }
    if !current.isEmpty { steps.append(current) }
    return steps
  }
}
