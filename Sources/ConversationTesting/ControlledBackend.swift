public import ConversationState
public import ConversationStore

/// A `ChatBackend` whose every call your test answers, in order, by hand.
///
/// Each call the store's runtime makes appears on `calls` with the means to answer it: a stream
/// continuation for sends and the realtime connection, a checked continuation for requests. Nothing
/// happens until the test answers, so the test decides every interleaving.
///
/// ```swift
/// let backend = ControlledBackend()
/// let store = ChatStore(backend: backend)
/// var calls = backend.calls.makeAsyncIterator()
/// store.sendMessage("Hi")
/// guard case .send(_, let reply) = await calls.next() else { return }
/// reply.yield(.accepted(confirmed, conversationID: "c1"))
/// ```
public final class ControlledBackend: ChatBackend {
  public typealias ReplyStream = AsyncThrowingStream<ReplyEvent, any Error>.Continuation
  public typealias RealtimeStream = AsyncThrowingStream<RealtimeUpdate, any Error>.Continuation

  /// One call from the runtime, with its answer channel.
  public enum Call: Sendable {
    case send(SendPayload, ReplyStream)
    case regenerate(ConversationID, replyTo: ServerMessageID, ReplyStream)
    case history(ConversationID, cursor: PageCursor?, limit: Int, CheckedContinuation<HistoryPage, any Error>)
    case messagesAfter(ConversationID, ServerMessageID?, CheckedContinuation<[Message], any Error>)
    case realtime(ConversationID?, RealtimeStream)
    case conversations(cursor: PageCursor?, limit: Int, CheckedContinuation<ConversationPage, any Error>)
    case rate(ServerMessageID, Rating, CheckedContinuation<Void, any Error>)
    case feedback(Rating, comment: String?, CheckedContinuation<Void, any Error>)
    case ticket(TicketDraft, CheckedContinuation<TicketReceipt, any Error>)
  }

  /// Every call, in the order the runtime made it.
  public let calls: AsyncStream<Call>
  private let log: AsyncStream<Call>.Continuation
  /// Typing signals sent, latest last.
  private let typingSignals = StateLock<[Bool]>([])

  public init() { (calls, log) = AsyncStream.makeStream() }

  public var sentTypingSignals: [Bool] { typingSignals.withLock { $0 } }

  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    log.yield(.send(payload, continuation))
    return stream
  }

  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    log.yield(.regenerate(conversation, replyTo: prompt, continuation))
    return stream
  }

  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    try await withCheckedThrowingContinuation { log.yield(.history(conversation, cursor: cursor, limit: limit, $0)) }
  }

  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await withCheckedThrowingContinuation { log.yield(.messagesAfter(conversation, after, $0)) }
  }

  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    let (stream, continuation) = AsyncThrowingStream<RealtimeUpdate, any Error>.makeStream()
    log.yield(.realtime(conversation, continuation))
    return stream
  }

  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    try await withCheckedThrowingContinuation { log.yield(.conversations(cursor: cursor, limit: limit, $0)) }
  }

  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    try await withCheckedThrowingContinuation { log.yield(.rate(message, rating, $0)) }
  }

  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    try await withCheckedThrowingContinuation { log.yield(.feedback(rating, comment: comment, $0)) }
  }

  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    typingSignals.withLock { $0.append(isTyping) }
  }

  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    try await withCheckedThrowingContinuation { log.yield(.ticket(draft, $0)) }
  }
}

extension Store {
  /// Waits for the first snapshot whose state satisfies `predicate` and returns that state; nil when none
  /// did within `seconds` of real time (5 by default) or the store closed, so a test fails fast instead of
  /// hanging until its time limit.
  public func state(within seconds: Double = 5, where predicate: @escaping @Sendable (State) -> Bool) async
    -> State?
  {
    let snapshots = snapshots()
    return await withTaskGroup(of: State?.self) { group in
      group.addTask {
        for await snapshot in snapshots where predicate(snapshot.state) { return snapshot.state }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}
