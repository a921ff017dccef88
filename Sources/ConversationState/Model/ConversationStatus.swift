/// Who has the conversation.
///
/// `ongoing <-> takenOver`, and either `-> ended`. The server moves it; the client only follows.
public enum ConversationStatus: String, Hashable, Sendable, Codable, CaseIterable {
  /// The AI agent answers. Sends and regenerations are allowed.
  case ongoing
  /// A human agent has it: sends go to them; regenerating an AI answer is refused.
  case takenOver
  /// Closed: no sends, no retries, no regenerations.
  case ended
}

/// What the AI agent is doing, for a "thinking…" or "running tool…" indicator.
public enum AgentActivity: Hashable, Sendable, Codable {
  /// Nothing in progress.
  case idle
  /// A send was accepted or a regeneration started; no text yet.
  case thinking
  /// The agent is running a tool.
  case runningTool(String)
  /// Text deltas are arriving.
  case generating
}
