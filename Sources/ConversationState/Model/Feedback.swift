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

  /// The question to show, as the server worded it.
  public var question: String
  /// The agent the question is about, for the UI to name; `nil` when the server gave none.
  public var agentName: String?
  /// Whether the question is waiting, rated or dismissed.
  public var phase: Phase

  /// A moment as the server offered it; it starts `open`.
  public init(question: String, agentName: String? = nil, phase: Phase = .open) {
    self.question = question
    self.agentName = agentName
    self.phase = phase
  }
}

/// The server's offer of a feedback moment.
public struct FeedbackPrompt: Hashable, Sendable, Codable {
  /// The question to ask, as the server worded it.
  public var question: String
  /// The agent the question is about, when the server names one.
  public var agentName: String?

  /// A prompt as the server sent it.
  public init(question: String, agentName: String? = nil) {
    self.question = question
    self.agentName = agentName
  }
}
