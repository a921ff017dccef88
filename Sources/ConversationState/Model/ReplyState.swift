/// How an assistant reply in the list ended: one set of outcomes whatever protocol streamed it.
///
/// | Outcome | Why | Regenerate | Stop |
/// |---|---|---|---|
/// | `completed` | the server finished it (`Message.finishReason` says why) | yes | — |
/// | `awaitingToolResults` | the run ended with app-run calls unanswered; their results continue it | yes, abandoning the wait | cancels the tools: `cancelled` |
/// | `awaitingInput` | the agent asks the user (an approval, a question); the answers continue it | yes, abandoning the questions | `cancelled` |
/// | `cancelled` | the user stopped it, or the server says it was stopped on purpose | yes | — |
/// | `failed` | an error ended it (the run's own, a limit, authorization) | yes | — |
/// | `truncated` | the stream ended or dropped (network, idle timeout) without a terminal event and was not resumed; never shown as success | yes | — |
/// | `rejected` | the server broke the protocol's rules (`INVALID_EVENT`) | yes | — |
///
/// Every outcome keeps what streamed. Only the latest answer can be waiting: a newer send abandons the wait,
/// and so does a newer answer arriving from the server (a sync, another device answering first) or the
/// waiting answer's deletion; the waiting answer then ends `cancelled` and its app tools are cancelled.
///
/// ```swift
/// switch message.reply {
/// case .awaitingInput(let requests): showApprovals(requests.filter { $0.answer == nil })
/// case .failed(let error), .rejected(let error): showRetry(error.message)
/// case .truncated: showRetry("The answer was cut off.")
/// default: break
/// }
/// ```
public enum ReplyState: Hashable, Sendable {
  /// Still receiving deltas. Only the separate streaming reply is in this state.
  case streaming
  /// Finished by the server; `Message.finishReason` holds the reason it gave.
  case completed
  /// The run ended with these app-run tool calls unanswered (AG-UI's `pendingToolCallIds`, the AI SDK's
  /// `tool-calls` finish). The app's tools run; once every one has a result the store starts the
  /// continuation run (`ConversationEffect.continueRun`), which continues this same answer.
  case awaitingToolResults([ToolCallID])
  /// The agent asks the user before it goes on; each request is answered with `answerInput`, and once all
  /// are (and any awaited tool results are in) the store starts the continuation run.
  case awaitingInput([InputRequest])
  /// Stopped on purpose: by the user (`stopReply`) or, as the server reported, by the agent.
  case cancelled
  /// Ended by an error: the run's, the connection's, or a limit of `ChatPolicy`.
  case failed(ChatError)
  /// The stream ended without a terminal event (or a newer reply cut it off). Never a success: tools may
  /// have run, so nothing resends it on its own.
  case truncated
  /// The server broke the protocol's ordering rules (a producer bug), distinct from a failure it reported.
  case rejected(ChatError)
}

extension ReplyState {
  /// The outcome of a reply ended by `error`: `cancelled` for `CANCELLED`, `truncated` for
  /// `INCOMPLETE_STREAM`, `rejected` for `INVALID_EVENT`, else `failed`.
  public init(endedBy error: ChatError) {
    switch error.code {
    case .cancelled: self = .cancelled
    case .incompleteStream: self = .truncated
    case .invalidEvent: self = .rejected(error)
    default: self = .failed(error)
    }
  }

  /// The error a failed or rejected reply carries.
  public var error: ChatError? {
    switch self {
    case .failed(let error), .rejected(let error): error
    default: nil
    }
  }

  /// True while the answer waits for the app's tools or the user's answers to go on.
  public var isAwaiting: Bool {
    switch self {
    case .awaitingToolResults, .awaitingInput: true
    default: false
    }
  }

  /// True for an answer that did not reach its end: cancelled, failed, truncated or rejected.
  public var isCutShort: Bool {
    switch self {
    case .cancelled, .failed, .truncated, .rejected: true
    default: false
    }
  }
}

extension ReplyState: Codable {
  private enum CodingKeys: String, CodingKey {
    case streaming, completed, awaitingToolResults, awaitingInput, cancelled, failed, truncated, rejected
    // Before outcomes (fixtures and files written then): a finished reply, and one cut short by an error.
    case complete, interrupted
  }
  private enum PayloadKeys: String, CodingKey { case _0 }

  /// Reads the shape Swift synthesizes for an enum (`{"failed": {"_0": …}}`), and the two older states:
  /// `complete` as `completed`, `interrupted(error)` as `init(endedBy:)` makes it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard container.allKeys.count == 1, let key = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: container.codingPath, debugDescription: "A reply state has one key."))
    }
    func payload<T: Decodable>(_ type: T.Type) throws -> T {
      try container.nestedContainer(keyedBy: PayloadKeys.self, forKey: key).decode(type, forKey: ._0)
    }
    switch key {
    case .streaming: self = .streaming
    case .completed, .complete: self = .completed
    case .awaitingToolResults: self = .awaitingToolResults(try payload([ToolCallID].self))
    case .awaitingInput: self = .awaitingInput(try payload([InputRequest].self))
    case .cancelled: self = .cancelled
    case .failed: self = .failed(try payload(ChatError.self))
    case .truncated: self = .truncated
    case .rejected: self = .rejected(try payload(ChatError.self))
    case .interrupted: self = ReplyState(endedBy: try payload(ChatError.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    func write<T: Encodable>(_ key: CodingKeys, _ value: T?) throws {
      var nested = container.nestedContainer(keyedBy: PayloadKeys.self, forKey: key)
      if let value { try nested.encode(value, forKey: ._0) }
    }
    switch self {
    case .streaming: try write(.streaming, nil as Int?)
    case .completed: try write(.completed, nil as Int?)
    case .awaitingToolResults(let ids): try write(.awaitingToolResults, ids)
    case .awaitingInput(let requests): try write(.awaitingInput, requests)
    case .cancelled: try write(.cancelled, nil as Int?)
    case .failed(let error): try write(.failed, error)
    case .truncated: try write(.truncated, nil as Int?)
    case .rejected(let error): try write(.rejected, error)
    }
  }
}
