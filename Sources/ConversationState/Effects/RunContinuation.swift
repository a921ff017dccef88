/// What a continuation run carries to the agent (`ConversationEffect.continueRun`): the answer it
/// continues, with every app-run call of the earlier run and its outcome, and every request the agent made
/// with the user's answer. A backend maps it to its protocol: AG-UI sends the tool messages and `resume`
/// entries in a new run; the AI SDK resends the assistant message with the outputs and approvals.
///
/// ```swift
/// func continueRun(_ run: RunContinuation, in conversation: ConversationID)
///   -> AsyncThrowingStream<ReplyEvent, any Error>
/// {
///   let resume = run.inputAnswers.map { ($0.id, $0.answer) }  // every request, each answered
///   let toolMessages = run.toolResults.map { ($0.id, $0.outcome) }
///   return api.startRun(thread: conversation, resume: resume, toolMessages: toolMessages)
/// }
/// ```
public struct RunContinuation: Hashable, Sendable, Codable {
  /// The answer being continued: its server ID when the server named it.
  public var answer: ServerMessageID?
  /// The answer's whole message as it stands (its text, parts, tool calls with outcomes), for protocols
  /// that send the conversation's messages back on each run.
  public var message: Message
  /// The app-run calls the earlier run left to the app, each settled (`succeeded`, `failed`, `denied`).
  public var toolResults: [ToolCall]
  /// Every request the agent made, each with its answer.
  public var inputAnswers: [InputRequest]

  /// A continuation of `message`.
  public init(answer: ServerMessageID?, message: Message, toolResults: [ToolCall], inputAnswers: [InputRequest]) {
    self.answer = answer
    self.message = message
    self.toolResults = toolResults
    self.inputAnswers = inputAnswers
  }
}
