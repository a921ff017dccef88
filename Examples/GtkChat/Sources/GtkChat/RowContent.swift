import ConversationStore

/// What a message row shows besides its text, read from the state: the one place that decides it, used by
/// the row to fill its widgets and by the self-test to know what the widgets must say.
struct RowContent: Equatable {
  /// The reasoning, collapsed under `label`.
  struct Reasoning: Equatable {
    var label: String
    var text: String
  }

  var reasoning: Reasoning?
  /// One line per tool call: its name and outcome.
  var tools: [String]
  /// The approval the answer waits for, which Approve and Deny answer; the first open one.
  var approval: InputRequest?
  var sources: [KnowledgeSource]
  /// The message's place among its siblings, for ‹ i/n ›.
  var place: ConversationBranches.Place?

  init(_ row: ConversationRow, in state: ConversationState) {
    switch row {
    case .message(let message):
      let thoughts = message.parts.compactMap { part -> String? in
        if case .reasoning(let reasoning) = part.content, !reasoning.text.isEmpty { return reasoning.text }
        return nil
      }.joined(separator: "\n\n")
      reasoning = thoughts.isEmpty ? nil : Reasoning(label: Self.thoughtLabel(thoughts), text: thoughts)
      tools = message.toolCalls.map(Self.line)
      approval = Self.openApproval(in: message.reply)
      sources = message.sources
      place = state.branches.place(of: message.clientID)
    case .reply(let reply):
      // While it streams: reasoning stays one line (it is still being written), calls show as they run.
      let isThinking = reply.parts.contains { $0.kind == .reasoning }
      reasoning = isThinking ? Reasoning(label: "💭 Thinking…", text: "") : nil
      tools = reply.toolCalls.map(Self.line)
      approval = nil
      sources = []
      place = nil
    }
  }

  /// "💭 Thought for 23 words": the reasoning's length, since the state keeps no time for it.
  static func thoughtLabel(_ text: String) -> String {
    "💭 Thought for \(text.split(whereSeparator: \.isWhitespace).count) words"
  }

  /// A call and its outcome: "🔧 lookupOrder — succeeded".
  static func line(_ call: ToolCall) -> String {
    "🔧 \(call.name) — \(outcome(call.outcome))"
  }

  static func outcome(_ outcome: ToolCall.Outcome) -> String {
    switch outcome {
    case .inputStreaming, .running: "running…"
    case .succeeded: "succeeded"
    case .failed(let error): "failed: \(error.message)"
    case .awaitingApproval: "awaiting your approval"
    case .denied: "denied"
    }
  }

  /// The first approval of `reply` the user has not answered (and the agent did not answer itself).
  static func openApproval(in reply: ReplyState?) -> InputRequest? {
    guard case .awaitingInput(let requests) = reply else { return nil }
    return requests.first { request in
      guard request.answer == nil, !request.isAnsweredByAgent, case .toolApproval = request.kind else { return false }
      return true
    }
  }
}
