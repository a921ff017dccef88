public import ConversationState
import Foundation

/// Performs a conversation store's effects against a `ChatBackend`, and feeds results back as actions.
///
/// Each request (the realtime connection included) runs in its own task, keyed by its `RequestID`, so
/// `.cancel` stops exactly that work, and work cancelled before its task began never reaches the backend.
/// Tasks hold the store weakly: a dropped or closed store stops receiving results, and the work that would
/// deliver them is cancelled by `close()`.
public final class ConversationRuntime<R: ConversationReducing>: EffectRunner {
  /// The reducer whose effects this runtime performs.
  public typealias Runs = R

  /// Gets a fresh credential after an authorization failure (the host's token refresh); it throws when
  /// none can be had. Called at most once per failure: the reducer never asks twice in a row.
  ///
  /// It is never cancelled: when the request it serves is cancelled (a sign-out, `close()`), the store stops
  /// waiting and drops its result, and the provider runs on to its own end. (Cancelling it could deadlock a
  /// provider that awaits `URLSession.data(for:)` on Linux: see `ChatBackend`.)
  public typealias CredentialProvider = @Sendable () async throws -> Void

  /// Runs an app-side tool: its JSON arguments in, its JSON result out; throw to report a failure to the
  /// agent. Cancelled when the reply stops, the user signs out or the store closes.
  public typealias ToolHandler = @Sendable (JSONValue) async throws -> JSONValue

  /// Stores an operation in the durable outbox (see `ChatPolicy.offlineDelivery`). It is called on the
  /// thread performing effects, in the order the operations were made, and must keep that order; it must
  /// not write on that thread (hand the write to a serial worker) and calls `done` once, after the write:
  /// nil when the operation is on disk, else why it could not be kept. `ChatClient` supplies one over its
  /// storage.
  public typealias OutboxRecorder =
    @Sendable (OutboxOperation, _ done: @escaping @Sendable (ChatError?) -> Void) -> Void

  /// Keeps the person's standing approvals (`ApprovalMemory.always`): called on the thread performing
  /// effects with each change the user made in this store, which it must not write on (hand it to a serial
  /// worker). `ChatClient` supplies one that stores the change and tells the person's other conversations.
  public typealias StandingApprovalKeeper = @Sendable (StandingApprovalChange) -> Void

  /// Reads older pages from this device's storage (see the top-level `StoredHistoryReader`).
  public typealias StoredHistoryReader = ConversationStore.StoredHistoryReader

  /// Opens a realtime connection in place of `backend.realtime` (`ChatClient`'s one shared connection).
  public typealias RealtimeSource =
    @Sendable (ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error>

  private let backend: any ChatBackend
  private let agent: (any AgentBackend)?
  private let realtime: RealtimeSource?
  private let storedHistory: StoredHistoryReader?
  private let refreshCredentials: CredentialProvider?
  private let tools: [String: ToolHandler]
  private let outbox: OutboxRecorder?
  private let standingApprovals: StandingApprovalKeeper?
  private let uploads = UploadDeduplicator()
  private let requests = CancellableRegistry<RequestID>()
  private let timers = CancellableRegistry<TimerID>()
  private let signals = CancellableRegistry<String>()

  /// A runtime whose requests go to `backend`; the store it is given to calls `close()`. `credentials`,
  /// when given, is asked for a fresh credential after an authorization failure before the state shows
  /// `needsCredentials`.
  ///
  /// `tools` are the app-side tools the agent may call, by name. `outbox` stores what the reducer hands to
  /// the outbox; without one such a message fails with `UNSUPPORTED`. `storedHistory` reads older pages
  /// from this device's storage; without one, storage is said to have none and paging goes to the server.
  /// `realtime`, when given, opens the realtime connection instead of the backend. `standingApprovals` keeps
  /// the user's "always" approvals beyond this store; without one they last as long as the store.
  ///
  /// An `AgentBackend` is sent each request with its `AgentContext`, built from the store's conversation
  /// (and `storedHistory` for older messages) when the request starts.
  public init(
    backend: any ChatBackend, credentials: CredentialProvider? = nil, tools: [String: ToolHandler] = [:],
    outbox: OutboxRecorder? = nil, storedHistory: StoredHistoryReader? = nil, realtime: RealtimeSource? = nil,
    standingApprovals: StandingApprovalKeeper? = nil
  ) {
    self.standingApprovals = standingApprovals
    self.backend = backend
    agent = backend as? any AgentBackend
    self.realtime = realtime
    self.storedHistory = storedHistory
    refreshCredentials = credentials
    self.tools = tools
    self.outbox = outbox
  }

  /// Tasks still running: requests (the realtime connection included) and timers.
  public var runningTaskCount: Int { requests.count + timers.count }

  /// Cancels every request, the realtime connection, timers and typing signals, and refuses later work; the store
  /// calls this when it closes.
  public func close() {
    requests.cancelAll(closing: true)
    timers.cancelAll(closing: true)
    signals.cancelAll(closing: true)
  }

  /// Starts or cancels the work of `effects`, in order; called by the store on the thread of the sender performing
  /// effects. Times in the resulting actions come from the store's `StoreEnvironment` clock.
  public func perform(_ effects: [ConversationEffect], for store: Store<R>) {
    let sink = StoreSink(store)
    for effect in effects { perform(effect, sink) }
  }

  private func perform(_ effect: ConversationEffect, _ store: StoreSink<R>) {
    let backend = backend
    switch effect {
    case .enqueueOutbox(let operation):
      // Handed over in effect order: the outbox keeps operations in the order they were made.
      guard let outbox else {
        store.send(.outboxRejected(operation.kind, ChatError(.unsupported, "This store has no outbox.")))
        return
      }
      // The message shows `queued` only once the write is done, off this thread.
      outbox(operation) { error in
        if let error {
          store.send(.outboxRejected(operation.kind, error))
        } else if case .send(let outgoing) = operation.kind {
          store.send(.outboxRecorded(outgoing.clientID))
        }
      }
    case .sendMessage(let requestID, let payload):
      reply(requestID, ending: .before(payload.clientID), store) {
        backend.send(payload)
      } agent: {
        $0.send(payload, context: $1)
      }
    case .regenerate(let requestID, let conversationID, let prompt, let answer):
      reply(requestID, ending: .through(prompt), store) {
        backend.regenerate(in: conversationID, replyTo: prompt, answer: answer)
      } agent: {
        $0.regenerate(in: conversationID, replyTo: prompt, answer: answer, context: $1)
      }
    case .continueRun(let requestID, let conversationID, let continuation):
      reply(requestID, ending: .before(continuation.message.clientID), store) {
        backend.continueRun(continuation, in: conversationID)
      } agent: {
        $0.continueRun(continuation, in: conversationID, context: $1)
      }
    case .resumeReply(let requestID, let cursor):
      reply(requestID, ending: .everything, store) {
        backend.resumeReply(from: cursor)
      } agent: {
        $0.resumeReply(from: cursor, context: $1)
      }
    case .changeStandingApprovals(let change):
      standingApprovals?(change)
    case .cancel(let requestID):
      requests.cancel(requestID)
    case .fetchHistory(let requestID, let conversationID, let cursor, let limit):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          let page = try await backend.history(of: conversationID, before: cursor, limit: limit)
          // A server that ignores the page size would grow the window by whatever it sends: such a page is
          // refused whole (keeping some would leave a hole between what is shown and the next cursor).
          guard page.messages.count <= limit else {
            throw ChatError(
              .invalidResponse, "The server sent \(page.messages.count) messages for a history page of \(limit).")
          }
          return .historyLoaded(requestID, page)
        }
      }
    case .fetchStoredHistory(let requestID, let conversationID, let before, let limit):
      readStored(requestID, conversationID, .before(before), limit: limit, store)
    case .fetchNewerStoredHistory(let requestID, let conversationID, let after, let limit):
      readStored(requestID, conversationID, .after(after), limit: limit, store)
    case .fetchMessagesAfter(let requestID, let conversationID, let after):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          let page = try await backend.catchUp(in: conversationID, after: after)
          return .syncLoaded(requestID, page.messages, hasMore: page.hasMore, jitter: store.jitter())
        }
      }
    case .submitRating(let requestID, let conversationID, let messageID, let rating):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.rate(messageID, in: conversationID, as: rating)
          return .requestSucceeded(requestID)
        }
      }
    case .submitFeedback(let requestID, let conversationID, let rating, let comment):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.submitFeedback(rating, comment: comment, in: conversationID)
          return .requestSucceeded(requestID)
        }
      }
    case .createTicket(let requestID, let conversationID, let draft):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          .ticketCreated(requestID, try await backend.createTicket(draft, from: conversationID))
        }
      }
    case .requestAgentStateSnapshot(let conversationID):
      // Best effort, as a typing signal: the snapshot comes back on the agent's own stream, and until it
      // does the state shows `needsAgentStateSnapshot`.
      signals.run("agent-state") { try? await backend.requestAgentState(in: conversationID) }
    case .sendTypingSignal(let conversationID, let isTyping, _):
      // Best effort: a lost typing signal is not worth an error banner. The latest one replaces the last.
      signals.run("typing") { try? await backend.sendTyping(isTyping, in: conversationID) }
    case .startTimer(let timer, let seconds):
      let clock = store.clock
      timers.start(timer, after: seconds, on: clock) { store.send(.timerFired(timer, at: clock.now())) }
    case .cancelTimer(let timer):
      timers.cancel(timer)
    case .submitReadCursor(let requestID, let conversationID, let upTo):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.markRead(upTo: upTo, in: conversationID)
          return .readCursorSaved(requestID)
        }
      }
    case .refreshCredentials(let requestID):
      let provider = refreshCredentials
      requests.run(requestID) {
        await Self.request(requestID, store) {
          guard let provider else {
            throw ChatError(.unauthorized, "The server refused the credential and no credential provider is set.")
          }
          try await uncancelledHostCall(provider)
          return .credentialsRefreshed
        }
      }
    case .uploadAttachment(let requestID, _, let attachment):
      let uploads = uploads
      requests.run(requestID) {
        await Self.request(requestID, store) {
          guard let source = attachment.source else {
            throw ChatError(.invalidAction, "\(attachment.filename) has nothing to upload.")
          }
          if case .memory(let bytes) = source, bytes.data.isEmpty, attachment.byteSize > 0 {
            throw ChatError(.attachmentUnavailable, "\(attachment.filename) is no longer in memory; attach it again.")
          }
          let hash = try source.contentHash()
          let upload = AttachmentUpload(
            source: source, contentType: attachment.contentType, filename: attachment.filename,
            byteSize: attachment.byteSize, contentHash: hash)
          let url = try await uploads.url(of: hash) {
            for try await event in backend.upload(upload) {
              switch event {
              case .progress(let fraction): store.send(.uploadProgressed(requestID, fraction))
              case .stored(let url): return url
              }
            }
            throw ChatError(.network, "The upload of \(attachment.filename) ended without a stored file.")
          }
          return .uploadFinished(requestID, url)
        }
      }
    case .runTool(let requestID, let call, let deadline):
      let handler = tools[call.name]
      let clock = store.clock
      requests.run(requestID) {
        let outcome = await Self.run(call, handler, deadline: deadline, clock: clock)
        if !Task.isCancelled { store.send(.toolRan(requestID, outcome)) }
      }
    case .submitToolResult(let requestID, let conversationID, let reply, let callID, let outcome):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.submitToolResult(outcome, for: callID, in: conversationID, reply: reply)
          return .requestSucceeded(requestID)
        }
      }
    case .connectRealtime(let requestID, let conversationID):
      let open = realtime ?? backend.realtime(conversation:)
      requests.run(requestID) { await Self.listen(open(conversationID), requestID, store) }
    }
  }

  /// Starts a request whose events are a reply: `plain` for a backend that keeps the conversation itself;
  /// for an `AgentBackend`, `agent` with the context ending at `end`. What memory holds of the context is
  /// read now, on the thread performing the effect (the state the reducer just left), and what storage must
  /// add is read in the request's task.
  private func reply(
    _ requestID: RequestID, ending end: AgentContextEnd, _ store: StoreSink<R>,
    _ plain: @escaping @Sendable () -> AsyncThrowingStream<ReplyEvent, any Error>,
    agent request: @escaping @Sendable (any AgentBackend, AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
  ) {
    guard let agent else {
      requests.run(requestID) { await Self.stream(plain(), requestID, into: store) }
      return
    }
    let policy = agent.contextPolicy
    let limit = policy.maximumMessages ?? .max
    let now = store.state
    // A store still reading its stored copy holds none of the conversation yet: the window is read once it
    // has it, so a message sent at once after a relaunch still carries what the user will see.
    let restoring = now?.isRestoring ?? false
    let early = restoring ? nil : now?.agentContextWindow(ending: end, limit: limit)
    let conversationID = now?.conversationID
    let reader = storedHistory
    requests.run(requestID) {
      var window = early
      if restoring {
        // A store gone or closed before it was restored sends nothing.
        guard let restored = await store.restoredState() else { return }
        window = restored.agentContextWindow(ending: end, limit: limit)
      }
      let context: AgentContext
      do {
        context = try await AgentContextBuilder.build(
          window ?? AgentContextWindow(messages: [], storedNeeded: 0), of: conversationID, ending: end,
          policy: policy, storage: reader)
      } catch {
        if let error = chatError(error) { store.fail(requestID, error) }
        return
      }
      guard !Task.isCancelled else { return }
      await Self.stream(request(agent, context), requestID, into: store)
    }
  }

  private static func stream(
    _ events: AsyncThrowingStream<ReplyEvent, any Error>, _ requestID: RequestID, into store: StoreSink<R>
  ) async {
    do {
      for try await event in events {
        // A closed or dropped store ends the loop, which ends the backend's stream.
        guard !Task.isCancelled, store.send(action(for: event, requestID, store)) else { return }
      }
      if !Task.isCancelled { store.send(.replyEnded(requestID)) }
    } catch {
      if let error = chatError(error) { store.fail(requestID, error) }
    }
  }

  private static func action(for event: ReplyEvent, _ requestID: RequestID, _ store: StoreSink<R>)
    -> ConversationAction
  {
    switch event {
    case .accepted(let message, let conversationID):
      return .sendAccepted(requestID, confirmed: message, conversationID: conversationID)
    case .started(let agent, let replyID):
      return .replyStarted(requestID, agent: agent, at: store.clock.now(), replyID: replyID)
    case .delta(let text): return .replyDelta(requestID, text)
    case .partStarted(let id, let kind): return .replyPartStarted(requestID, id, kind)
    case .partDelta(let id, let text): return .replyPartDelta(requestID, id, text)
    case .partEnded(let id, let encryptedValue): return .replyPartEnded(requestID, id, encryptedValue: encryptedValue)
    case .part(let part): return .replyPartAdded(requestID, part)
    case .agentState(let value): return .agentStateSnapshot(value)
    case .agentStateDelta(let patch): return .agentStateDelta(patch)
    case .toolInputStarted(let callID, let name, let execution):
      return .toolInputStarted(requestID, callID, name: name, execution: execution)
    case .toolInputDelta(let callID, let text): return .toolInputDelta(requestID, callID, text)
    case .stepReset(let parts, let calls): return .replyStepReset(requestID, parts: parts, toolCalls: calls)
    case .suggested(let texts): return .replySuggested(requestID, texts)
    case .toolCall(let call): return .toolCallStarted(requestID, call)
    case .toolResult(let callID, let outcome): return .toolCallFinished(requestID, callID, outcome)
    case .inputRequested(let request): return .inputRequested(requestID, request)
    case .finished(let message, let userMessageID):
      return .replyFinished(requestID, message: message, userMessageID: userMessageID)
    case .queued: return .sendQueued(requestID)
    case .restated(let messages): return .replyRestated(requestID, messages)
    case .described(let title, let status): return .conversationDescribed(requestID, title: title, status: status)
    case .skipped(let error): return .frameRejected(requestID, error)
    case .positioned(let position, .positioned(_, let event)):
      return action(for: .positioned(position, event), requestID, store)
    case .positioned(let position, let event):
      return .positioned(requestID, position, action(for: event, requestID, store))
    }
  }

  /// A stored page, older or newer; a store given no reader has none (the reducer then falls back to the
  /// server). More than `limit` messages are cut to the `limit` nearest to the position asked from.
  private func readStored(
    _ requestID: RequestID, _ conversationID: ConversationID, _ query: StoredHistoryQuery, limit: Int,
    _ store: StoreSink<R>
  ) {
    let reader = storedHistory
    requests.run(requestID) {
      await Self.request(requestID, store) {
        guard let reader else { return .storedHistoryLoaded(requestID, [], hasMore: false) }
        let page = try await reader(conversationID, query, limit)
        let messages: [Message]
        if case .before = query {
          messages = Array(page.messages.suffix(limit))
        } else {
          messages = Array(page.messages.prefix(limit))
        }
        return .storedHistoryLoaded(requestID, messages, hasMore: page.hasMore)
      }
    }
  }

  private static func request(
    _ requestID: RequestID, _ store: StoreSink<R>, _ operation: () async throws -> ConversationAction
  ) async {
    do {
      let result = try await operation()
      if !Task.isCancelled { store.send(result) }
    } catch {
      if let error = chatError(error) { store.fail(requestID, error) }
    }
  }

  /// Runs a tool handler against its deadline: a missing handler, one that throws and one that runs past the
  /// deadline all become a failed outcome the agent is told about, never a hang.
  private static func run(_ call: ToolCall, _ handler: ToolHandler?, deadline: Double, clock: any ChatClock) async
    -> ToolCall.Outcome
  {
    guard let handler else {
      return .failed(ChatError(.toolNotFound, "This app has no tool named \(call.name)."))
    }
    return await withTaskGroup(of: ToolCall.Outcome?.self) { group in
      group.addTask {
        do {
          return .succeeded(try await handler(call.input))
        } catch let error as ChatError {
          return .failed(error)
        } catch {
          return Task.isCancelled ? nil : .failed(ChatError(.toolFailed, "The tool \(call.name) failed: \(error)"))
        }
      }
      group.addTask {
        guard (try? await clock.sleep(seconds: deadline)) != nil else { return nil }
        return .failed(ChatError(.timeout, "The tool \(call.name) did not finish within \(deadline) seconds."))
      }
      // The first to finish wins; a nil means "cancelled", which only happens when the whole run is.
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? .failed(ChatError(.cancelled, "The tool \(call.name) was stopped."))
    }
  }

  /// Delivers the connection's updates tagged with its request ID, so a late report from an old
  /// connection can never touch the current one.
  private static func listen(
    _ updates: AsyncThrowingStream<RealtimeUpdate, any Error>, _ requestID: RequestID, _ store: StoreSink<R>
  ) async {
    var failure = ChatError(.network, "The realtime connection closed.")
    do {
      for try await update in updates {
        guard !Task.isCancelled else { return }
        let action: ConversationAction
        switch update {
        case .opened: action = .connectionOpened(requestID)
        case .rejected(let error): action = .frameRejected(requestID, error)
        case .event(let conversationID, let event):
          action = .realtime(conversationID, event, connection: requestID, receivedAt: store.clock.now())
        case .list:
          // The list's, not this conversation's: a `ChatClient` hands it to its list.
          continue
        }
        guard store.send(action) else { return }
      }
    } catch {
      guard let error = chatError(error) else { return }
      failure = error
    }
    guard !Task.isCancelled else { return }
    store.send(.connectionLost(requestID, failure, at: store.clock.now(), jitter: store.jitter()))
  }
}

/// A runtime's way back to its store: weak, so work in flight never keeps a dropped store alive.
struct StoreSink<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  private weak let store: Store<R>?
  let clock: any ChatClock
  let jitter: @Sendable () -> Double

  init(_ store: Store<R>) {
    self.store = store
    clock = store.environment.clock
    jitter = store.environment.jitter
  }

  /// Sends `action`; false when the store is gone or closed, so the caller can stop its work.
  @discardableResult
  func send(_ action: R.Action) -> Bool { store?.send(action) ?? false }

  /// The store's state now; nil once it is gone.
  var state: R.State? { store?.state }
}

extension StoreSink where R: ConversationReducing {
  /// The store's state once it is no longer restoring (its stored copy read); nil once the store is gone or
  /// closed first.
  func restoredState() async -> ConversationState? {
    // The sequence holds the store's core, not the store: a store dropped meanwhile closes, which ends it.
    guard let snapshots = store?.snapshots() else { return nil }
    for await snapshot in snapshots where !snapshot.state.isRestoring { return snapshot.state }
    return nil
  }
}

extension StoreSink where R: ConversationReducing {
  /// Reports a failed request with the local time and a jitter value, which retries and rate limits need.
  func fail(_ requestID: RequestID, _ error: ChatError) {
    send(.requestFailed(requestID, error, at: clock.now(), jitter: jitter()))
  }
}

/// The typed error a backend failure becomes; nil only when our own task was cancelled.
///
/// A `CancellationError` thrown while our task was *not* cancelled is a failure like any other (HTTP
/// clients throw it for timeouts): reporting nothing would leave a send "sending" forever.
func chatError(_ error: any Error) -> ChatError? {
  if Task.isCancelled { return nil }
  if let error = error as? ChatError { return error }
  if error is CancellationError {
    return ChatError(.network, "The request was cancelled by the backend, not by this app (a timeout?).")
  }
  return ChatError(.network, String(describing: error))
}
