/// Identifies a question the agent asks the user within a reply (AG-UI's interrupt ID, the AI SDK's
/// approval ID); unique within the reply.
public struct InputRequestID: StringIdentifier {
  /// The ID as the agent's protocol carries it.
  public let rawValue: String
  /// Wraps an input request ID as received.
  public init(rawValue: String) { self.rawValue = rawValue }
}

/// The agent stops to ask the user: to approve a tool call, or to answer a question with a JSON value
/// (human in the loop). The reply then ends `awaitingInput`; the host answers each request with
/// `ConversationAction.answerInput`, and once every one is answered the store continues the run.
///
/// ```swift
/// if case .awaitingInput(let requests) = store.state.messages.last?.reply {
///   for request in requests where request.answer == nil {
///     if case .toolApproval(let callID) = request.kind { showApproval(for: callID, request.message) }
///   }
/// }
/// store.send(.answerInput("int-call-1", .approved))
/// ```
public struct InputRequest: Identifiable, Hashable, Sendable, Codable {
  /// What the agent asks.
  public enum Kind: Hashable, Sendable, Codable {
    /// May the tool call with this ID run? Answered `.approved` or `.denied(reason:)`; meanwhile the call
    /// shows `awaitingApproval`.
    case toolApproval(ToolCallID)
    /// A question the host answers with a JSON value (`.answered`) or declines (`.declined`). The payload
    /// is what the agent sent with it, as it sent it (a JSON Schema of the answer, details to show); the
    /// store never interprets it.
    case question(JSONValue)
  }

  /// Unique within the reply.
  public var id: InputRequestID
  /// An approval or a question.
  public var kind: Kind
  /// What to show the user, when the agent wrote it ("Approve delete_files?").
  public var message: String?
  /// The user's answer, once given; `nil` while the request is open.
  public var answer: InputAnswer?
  /// The tool whose remembered approval (`ConversationState.approvalGrants` or `standingApprovals`) answered
  /// this request on its own, without asking; nil when the user answered it, or it is open.
  public var grantedBy: String?
  /// Whether the agent's side answered its own request (an AI SDK 7 server that approves or denies a call by
  /// its own policy: `tool-approval-request` with `isAutomatic`, then `tool-approval-response`): the user
  /// was never asked and cannot answer it, and no continuation is needed for it (the agent went on in the
  /// same run). nil in the JSON when false.
  public var isAnsweredByAgent: Bool {
    get { answeredByAgent ?? false }
    set { answeredByAgent = newValue ? true : nil }
  }
  private var answeredByAgent: Bool?
  /// A token the agent's side bound the request to its call with (an AI SDK 7 server with a
  /// `toolApprovalSecret`): stored with the request and sent back with the answer, never read.
  public var signature: String?

  /// A request as the agent makes it: unanswered, or (`answeredByAgent`) answered by the agent's side, with
  /// `answer`. An answer given without `answeredByAgent` is dropped by the store: only the user answers.
  public init(
    id: InputRequestID, kind: Kind, message: String? = nil, answer: InputAnswer? = nil, answeredByAgent: Bool = false,
    signature: String? = nil
  ) {
    self.signature = signature
    self.id = id
    self.kind = kind
    self.message = message
    self.answer = answer
    self.answeredByAgent = answeredByAgent ? true : nil
  }
}

/// The user's answer to an `InputRequest`: an approval takes `approved` or `denied`, a question `answered`
/// or `declined`. Any other pairing is refused with `INVALID_ACTION`.
public enum InputAnswer: Hashable, Sendable, Codable {
  /// The tool call may run.
  case approved
  /// The tool call must not run; the reason, when given, goes back to the agent.
  case denied(reason: String?)
  /// The answer to a question.
  case answered(JSONValue)
  /// The user will not answer the question; the agent is told so.
  case declined
}

extension InputRequest {
  /// Whether `answer` fits this request's kind.
  public func accepts(_ answer: InputAnswer) -> Bool {
    switch (kind, answer) {
    case (.toolApproval, .approved), (.toolApproval, .denied), (.question, .answered), (.question, .declined): true
    default: false
    }
  }
}
