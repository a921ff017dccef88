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
  /// Where a test feeds a send's or regeneration's events; finish it to end the reply.
  public typealias ReplyStream = AsyncThrowingStream<ReplyEvent, any Error>.Continuation
  /// Where a test feeds the realtime connection's updates; finish or fail it to drop the connection.
  public typealias RealtimeStream = AsyncThrowingStream<RealtimeUpdate, any Error>.Continuation

  /// One call from the runtime, with its answer channel.
  public enum Call: Sendable {
    /// A message send; answer on the stream, `.accepted` first.
    case send(SendPayload, ReplyStream)
    /// A request for a new answer to the user's message; answer on the stream.
    case regenerate(ConversationID, replyTo: ServerMessageID, answer: ServerMessageID?, ReplyStream)
    /// A request for the rest of a reply whose stream dropped, from the cursor; answer on the stream with
    /// positioned events (a replay from the start is fine), or fail it with `NOT_RESUMABLE`.
    case resume(ReplyCursor, ReplyStream)
    /// A history page request; resume with a page or an error.
    case history(ConversationID, cursor: PageCursor?, limit: Int, CheckedContinuation<HistoryPage, any Error>)
    /// A catch-up request for the messages after a server ID (all when nil); resume with them or an error.
    case messagesAfter(ConversationID, ServerMessageID?, CheckedContinuation<[Message], any Error>)
    /// A realtime connection attempt; yield `.opened` to make it live.
    case realtime(ConversationID?, RealtimeStream)
    /// A conversation-list page request; resume with a page or an error.
    case conversations(cursor: PageCursor?, limit: Int, CheckedContinuation<ConversationPage, any Error>)
    /// A rating of an assistant message; resume with success or an error.
    case rate(ServerMessageID, Rating, CheckedContinuation<Void, any Error>)
    /// A rating of the whole conversation; resume with success or an error.
    case feedback(Rating, comment: String?, CheckedContinuation<Void, any Error>)
    /// A support ticket request; resume with a receipt or an error.
    case ticket(TicketDraft, CheckedContinuation<TicketReceipt, any Error>)
    /// A batch of the durable outbox (`ChatClient` with storage); answer with a receipt or an error.
    case uploadOutbox(OutboxBatch, CheckedContinuation<OutboxReceipt, any Error>)
    /// The anonymous user's contact details; resume with success or an error.
    case contactDetails(ContactDetails, CheckedContinuation<Void, any Error>)
  }

  /// Every call, in the order the runtime made it.
  public let calls: AsyncStream<Call>
  private let log: AsyncStream<Call>.Continuation
  /// Typing signals sent, latest last.
  private let typingSignals = StateLock<[Bool]>([])
  private let uploads = StateLock(0)
  private let realtimeTally = StateLock((opened: 0, released: 0))
  private let epochs = StateLock<[UInt64]>([])

  /// The outbox epochs the client told this backend (`outboxEpochChanged`), in order.
  public var toldOutboxEpochs: [UInt64] { epochs.withLock { $0 } }

  public func outboxEpochChanged(_ epoch: UInt64) { epochs.withLock { $0.append(epoch) } }

  /// A backend with no calls yet; every call the runtime makes is then listed on `calls`.
  public init() { (calls, log) = AsyncStream.makeStream() }

  /// Typing signals the runtime sent, oldest first; these need no answer, so they do not appear on `calls`.
  public var sentTypingSignals: [Bool] { typingSignals.withLock { $0 } }

  /// How many outbox batches the runtime has uploaded so far (retries included).
  public var outboxUploadCount: Int { uploads.withLock { $0 } }

  /// Lists the send on `calls` and returns the stream the test answers on.
  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    log.yield(.send(payload, continuation))
    return stream
  }

  /// Lists the resume on `calls` and returns the stream the test answers on.
  public func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    log.yield(.resume(cursor, continuation))
    return stream
  }

  /// Lists the regeneration on `calls` and returns the stream the test answers on.
  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    log.yield(.regenerate(conversation, replyTo: prompt, answer: answer, continuation))
    return stream
  }

  /// Lists the request on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    try await withCheckedThrowingContinuation { log.yield(.history(conversation, cursor: cursor, limit: limit, $0)) }
  }

  /// Lists the request on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await withCheckedThrowingContinuation { log.yield(.messagesAfter(conversation, after, $0)) }
  }

  /// Lists the connection on `calls` and returns the stream the test feeds it through.
  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    let (stream, continuation) = AsyncThrowingStream<RealtimeUpdate, any Error>.makeStream()
    let tally = realtimeTally
    tally.withLock { $0.opened += 1 }
    // Set before the call is listed: a stream the runtime lets go before the test reads the call still
    // counts as let go (a handler set after the stream ended would never run).
    continuation.onTermination = { _ in tally.withLock { $0.released += 1 } }
    log.yield(.realtime(conversation, continuation))
    return stream
  }

  /// Realtime streams the runtime asked for, and how many of them ended (the runtime let go, or the test
  /// finished them). A test that sets its own `onTermination` on a stream replaces this count's handler.
  public var realtimeStreams: (opened: Int, released: Int) { realtimeTally.withLock { $0 } }

  /// Lists the request on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    try await withCheckedThrowingContinuation { log.yield(.conversations(cursor: cursor, limit: limit, $0)) }
  }

  /// Lists the rating on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    try await withCheckedThrowingContinuation { log.yield(.rate(message, rating, $0)) }
  }

  /// Lists the feedback on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    try await withCheckedThrowingContinuation { log.yield(.feedback(rating, comment: comment, $0)) }
  }

  /// Records the signal in `sentTypingSignals` and returns at once.
  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    typingSignals.withLock { $0.append(isTyping) }
  }

  /// Lists the ticket on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    try await withCheckedThrowingContinuation { log.yield(.ticket(draft, $0)) }
  }

  /// Lists the batch on `calls` and waits until the test resumes it. The test must resume it exactly once.
  public func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    uploads.withLock { $0 += 1 }
    return try await withCheckedThrowingContinuation { log.yield(.uploadOutbox(batch, $0)) }
  }

  public func updateContactDetails(_ details: ContactDetails) async throws {
    try await withCheckedThrowingContinuation { log.yield(.contactDetails(details, $0)) }
  }
}

extension Store {
  /// Waits for the first snapshot whose state satisfies `predicate` and returns that state; nil when none
  /// did within `seconds` of real time (60 by default) or the store closed, so a test that waits for
  /// something that never comes fails with a clear expectation instead of hanging. The bound is not a speed
  /// check: a wait that succeeds returns as soon as the state is there, and on a loaded two-core CI machine
  /// a 5 s default failed waits that did complete. In the ThreadSanitizer build (`.ci/run` compiles it with
  /// `-DCONVERSATION_STORE_TSAN`), which runs everything several times slower, it waits six times as long.
  public func state(within seconds: Double = 60, where predicate: @escaping @Sendable (State) -> Bool) async
    -> State?
  {
    let snapshots = snapshots()
    return await withTaskGroup(of: State?.self) { group in
      group.addTask {
        for await snapshot in snapshots where predicate(snapshot.state) { return snapshot.state }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds * sanitizerSlowdown))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}

#if CONVERSATION_STORE_TSAN
  /// How much longer waits for real time last under ThreadSanitizer: with the whole suite running under it,
  /// the README client story once missed its 5 s.
  let sanitizerSlowdown = 6.0
#else
  let sanitizerSlowdown = 1.0
#endif
