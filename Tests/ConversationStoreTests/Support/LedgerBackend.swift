import ConversationStore
import ConversationTesting
import Foundation

/// A backend that holds every piece of work open and keeps a ledger of what is live, so a test can check
/// what the runtime left running at the I/O, not only what the state says.
///
/// Sends stream nothing until answered, the realtime connection opens at once and stays open, history and
/// catch-up requests wait until cancelled or answered. Work leaves the ledger when the runtime stops
/// consuming it (cancellation) or the test finishes it.
final class LedgerBackend: ChatBackend {
  enum Work: Hashable, Sendable {
    case send(ClientMessageID)
    case realtime(ConversationID?, serial: Int)
    case history(serial: Int)
    case sync(serial: Int)
  }

  private struct Ledger: Sendable {
    var serial = 0
    var live: [Work: @Sendable (Result<Void, ChatError>) -> Void] = [:]
    var calls: [Work] = []
  }

  private let ledger = StateLock(Ledger())

  /// What is running at the backend now.
  var live: Set<Work> { ledger.withLock { Set($0.live.keys) } }
  /// Every call the runtime made, in order.
  var calls: [Work] { ledger.withLock { $0.calls } }

  var liveSends: Set<ClientMessageID> {
    Set(live.compactMap { if case .send(let id) = $0 { id } else { nil } })
  }
  var liveRealtime: Int { live.filter { if case .realtime = $0 { true } else { false } }.count }
  var liveHistory: Int { live.filter { if case .history = $0 { true } else { false } }.count }
  var liveSyncs: Int { live.filter { if case .sync = $0 { true } else { false } }.count }

  /// Ends one live piece of work: successfully, or with `error`.
  func finish(_ work: Work, with error: ChatError? = nil) {
    let end = ledger.withLock { $0.live.removeValue(forKey: work) }
    end?(error.map { .failure($0) } ?? .success(()))
  }

  private func open(_ make: (Int) -> Work, end: @escaping @Sendable (Result<Void, ChatError>) -> Void) -> Work {
    ledger.withLock { ledger in
      ledger.serial += 1
      let work = make(ledger.serial)
      ledger.live[work] = end
      ledger.calls.append(work)
      return work
    }
  }

  /// Ends a stream the way the test asks: finished, or failed with an error.
  private static func finisher<Element>(_ continuation: AsyncThrowingStream<Element, any Error>.Continuation)
    -> @Sendable (Result<Void, ChatError>) -> Void
  {
    { result in
      if case .failure(let error) = result { continuation.finish(throwing: error) } else { continuation.finish() }
    }
  }

  private func close(_ work: Work) { _ = ledger.withLock { $0.live.removeValue(forKey: work) } }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    let work = open({ _ in .send(payload.clientID) }, end: Self.finisher(continuation))
    continuation.onTermination = { [weak self] _ in self?.close(work) }
    return stream
  }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    let (stream, continuation) = AsyncThrowingStream<RealtimeUpdate, any Error>.makeStream()
    let work = open({ .realtime(conversation, serial: $0) }, end: Self.finisher(continuation))
    continuation.onTermination = { [weak self] _ in self?.close(work) }
    continuation.yield(.opened)
    return stream
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    try await held({ .history(serial: $0) })
    return HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await held({ .sync(serial: $0) })
    return []
  }

  /// Waits until the test finishes the work or the calling task is cancelled.
  private func held(_ make: @escaping (Int) -> Work) async throws {
    let gate = StateLock<(continuation: CheckedContinuation<Void, any Error>?, work: Work?, cancelled: Bool)>(
      (nil, nil, false))
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let cancelled = gate.withLock { gate in
          gate.continuation = continuation
          return gate.cancelled
        }
        if cancelled { return continuation.resume(throwing: CancellationError()) }
        let work = open(make) { result in
          gate.withLock { gate in
            defer { gate.continuation = nil }
            return gate.continuation
          }?.resume(with: result.mapError { $0 as any Error })
        }
        let cancelledMeanwhile = gate.withLock { gate in
          gate.work = work
          return gate.cancelled
        }
        if cancelledMeanwhile { close(work) }
      }
    } onCancel: {
      let (continuation, work) = gate.withLock { gate in
        gate.cancelled = true
        defer { gate.continuation = nil }
        return (gate.continuation, gate.work)
      }
      if let work { close(work) }
      continuation?.resume(throwing: CancellationError())
    }
  }
}

extension LedgerBackend {
  /// Waits (in real time) until `condition` holds; the runtime's tasks settle in microseconds, so a
  /// condition still false after `seconds` is a leak, not slowness. 30 s, not 2: it returns as soon as the
  /// condition holds, and beside the whole suite and the crash test's kills a store once took over 2 s to
  /// connect; only a failure waits the whole time.
  func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
  }
}
