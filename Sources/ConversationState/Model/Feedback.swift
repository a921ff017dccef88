/// The conversation-level feedback question ("How did we do?"), offered at most once per conversation.
public struct FeedbackMoment: Hashable, Sendable, Codable {
  /// Where the moment is.
  public enum Phase: Hashable, Sendable, Codable {
    /// Shown, waiting for the user. Moves to `rated` or `dismissed`; goes away when the user writes again.
    case open
    /// Rated (optimistically until the server confirms; a failure returns it to `open`).
    case rated(Rating, comment: String?)
    /// The user closed it without rating. Final.
    case dismissed
  }

  public var question: String
  public var agentName: String?
  public var phase: Phase

  public init(question: String, agentName: String? = nil, phase: Phase = .open) {
    self.question = question
    self.agentName = agentName
    self.phase = phase
  }
}

/// The server's offer of a feedback moment.
public struct FeedbackPrompt: Hashable, Sendable, Codable {
  public var question: String
  public var agentName: String?

  public init(question: String, agentName: String? = nil) {
    self.question = question
    self.agentName = agentName
  }
}
