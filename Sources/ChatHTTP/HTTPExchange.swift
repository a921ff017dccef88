import ConversationState
import ConversationStore
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one HTTP exchange delivers: the response head, then the body in the pieces its reader takes.
enum HTTPStreamEvent: Sendable {
  case response(HTTPURLResponse)
  case bytes(Data)
}

/// One request in flight, read at its reader's pace: `next()` hands over the response head, then every byte
/// received since the last call as one piece, so bytes that pile up while the reader is busy reach it at
/// once (and the deltas they hold as one).
///
/// What it may hold is bounded: received bytes not yet read by `ChatPolicy.maximumUnreadBytes` (past it the
/// exchange fails with `RESPONSE_TOO_LARGE`; FoundationNetworking cannot pause a transfer, so this bound
/// stands in for TCP back pressure). Failing, timing out, cancelling and dropping the exchange all end its
/// transfer; each is safe at any moment, also while the transfer completes (see `cancel()`).
final class HTTPExchange: Sendable {
  /// How progress is counted for the idle timeout.
  enum Kind: Sendable {
    /// A JSON answer: the whole exchange must end within `ChatPolicy.requestTimeout`.
    case answer
    /// An event stream: a line must end at least every `ChatPolicy.idleTimeout` seconds.
    case stream
  }

  private struct State {
    var response: HTTPURLResponse?
    var responseTaken = false
    /// Received, not yet read.
    var unread = Data()
    /// How the exchange ended, once it has: nil while it runs.
    var outcome: Result<Void, ChatError>?
    /// The reader waiting in `next()`, if any.
    var waiter: CheckedContinuation<Void, Never>?
    /// When the transfer last showed progress (its head, a line end, any byte of an answer).
    var lastProgress: ContinuousClock.Instant
    /// Whether the transport reported the task complete (it must not be cancelled after that).
    var transportCompleted = false
    /// Whether the task's cancellation was asked for already.
    var cancelRequested = false
    var redirects = 0
    /// Body bytes received in all, and how many are wanted (nil: no bound but `maximumUnreadBytes`).
    var received = 0
    var bodyLimit: Int?
  }

  let kind: Kind
  let origin: URL
  private let task: URLSessionDataTask
  private let policy: ChatPolicy
  private let startedAt = ContinuousClock.now
  private let state: StateLock<State>

  /// Where tasks are cancelled: never on the caller's thread (a cancel can wait for the transport's busy
  /// queue), never on the delegate queue (it must go on draining the transfer's pieces meanwhile), and
  /// concurrently (a cancel stuck behind one transfer's burst must not hold up another's).
  private static let cancelQueue = DispatchQueue(label: "ChatHTTP.cancel", attributes: .concurrent)

  init(task: URLSessionDataTask, kind: Kind, origin: URL, policy: ChatPolicy) {
    self.task = task
    self.kind = kind
    self.origin = origin
    self.policy = policy
    state = StateLock(State(lastProgress: .now))
  }

  deinit { cancel() }

  /// The next thing received: the response head first, then all bytes that arrived since the last call;
  /// nil once the body has ended.
  ///
  /// - Throws: the exchange's typed error: `TIMEOUT`, `RESPONSE_TOO_LARGE`, `REDIRECT_REFUSED`, `NETWORK`,
  ///   or `CANCELLED` when the reading task is cancelled.
  func next() async throws(ChatError) -> HTTPStreamEvent? {
    while true {
      let step = state.withLock { state -> Step in
        if let response = state.response, !state.responseTaken {
          state.responseTaken = true
          return .event(.response(response))
        }
        // Bytes that came before the end are read first, also before a failure: a reply keeps what arrived.
        if !state.unread.isEmpty {
          defer { state.unread = Data() }
          return .event(.bytes(state.unread))
        }
        switch state.outcome {
        case .success: return .end
        case .failure(let error): return .failure(error)
        case nil: return .wait
        }
      }
      switch step {
      case .event(let event): return event
      case .end: return nil
      case .failure(let error): throw error
      case .wait:
        await withTaskCancellationHandler {
          await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
              let ready =
                state.outcome != nil || !state.unread.isEmpty || (state.response != nil && !state.responseTaken)
              if !ready { state.waiter = continuation }
              return ready
            }
            if ready { continuation.resume() }
          }
        } onCancel: {
          self.fail(ChatError(.cancelled, "The request was cancelled."))
        }
      }
    }
  }

  private enum Step {
    case event(HTTPStreamEvent)
    case end
    case failure(ChatError)
    case wait
  }

  /// Ends the exchange with `error` (unless it ended already) and stops its transfer.
  func fail(_ error: ChatError) {
    finish(.failure(error))
  }

  /// Stops the transfer; the reader sees `CANCELLED` unless the exchange already ended.
  func cancel() {
    finish(.failure(ChatError(.cancelled, "The request was cancelled.")))
  }

  /// Records how the exchange ended (the first word wins), wakes the reader, and, unless the transport is
  /// done with the task, cancels it, at most once.
  ///
  /// FoundationNetworking 6.x traps ("not in the registry") when a cancel's failure report runs after the
  /// task's completion removed it. With a URL cache that happened whenever a task was cancelled before the
  /// cache had answered (the report waited for the protocol the cache reply makes): the session has no
  /// cache. One that begins after the completion sees `transportCompleted` and does nothing. The cancel runs
  /// on `cancelQueue`, never on the spot. (A completion that waited for a cancel under way, to close the
  /// last window by reading of corelibs, stalled the delegate queue under load: removed.)
  private func finish(_ outcome: Result<Void, ChatError>, cancellingTask: Bool = true) {
    let (waiter, cancelTask) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
      if state.outcome == nil { state.outcome = outcome }
      let waiter = state.waiter
      state.waiter = nil
      let cancelTask = cancellingTask && !state.transportCompleted && !state.cancelRequested
      if cancelTask { state.cancelRequested = true }
      return (waiter, cancelTask)
    }
    waiter?.resume()
    guard cancelTask else { return }
    Self.cancelQueue.async { [task] in task.cancel() }
  }

  /// Wakes the reader after a change.
  private func update(_ change: (inout State) -> Void) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      change(&state)
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  // MARK: Transport callbacks (on the session's delegate queue)

  /// The head, and whether its body is to be read at all. How much of a body is wanted is decided here,
  /// where the transport delivers it, so a body past its bound is stopped at once, not when the reader next
  /// runs: an answer's is `maximumAnswerBytes`; an error's, `maximumErrorBodyBytes` (the rest is not read:
  /// the reader gets what came, then the end); a stream's has none but `maximumUnreadBytes`. A declared
  /// length over the bound is not read at all: an answer then fails with `RESPONSE_TOO_LARGE`, an error is
  /// read from its status alone. (FoundationNetworking disregards a `.cancel` disposition: only cancelling
  /// the task stops a body.)
  func received(_ response: HTTPURLResponse) {
    let isSuccess = (200..<300).contains(response.statusCode)
    let limit: Int? =
      !isSuccess ? policy.maximumErrorBodyBytes : kind == .answer ? policy.maximumAnswerBytes : nil
    update { state in
      guard state.outcome == nil else { return }
      state.response = response
      state.bodyLimit = limit
      state.lastProgress = .now
    }
    guard let limit, response.expectedContentLength > limit else { return }
    finish(isSuccess ? .failure(Self.tooLarge(limit, status: response.statusCode)) : .success(()))
  }

  func received(_ data: Data) {
    var ending: Result<Void, ChatError>?
    update { state in
      guard state.outcome == nil else { return }
      state.received += data.count
      if let limit = state.bodyLimit, state.received > limit {
        let isSuccess = (200..<300).contains(state.response?.statusCode ?? 0)
        if !isSuccess { state.unread.append(data.prefix(max(0, data.count - (state.received - limit)))) }
        ending = isSuccess ? .failure(Self.tooLarge(limit, status: state.response?.statusCode)) : .success(())
        return
      }
      state.unread.append(data)
      if state.unread.count > policy.maximumUnreadBytes {
        ending = .failure(
          ChatError(
            .responseTooLarge,
            "The server sent more than \(policy.maximumUnreadBytes) bytes faster than they could be read."))
        return
      }
      if kind == .answer || Self.containsLineEnd(data) { state.lastProgress = .now }
    }
    if let ending { finish(ending) }
  }

  /// Whether `data` holds an LF or a CR: `memchr` runs at memory speed, also in a debug build, where a
  /// loop over the bytes made the transport's own queue the slowest step of a fast stream.
  private static func containsLineEnd(_ data: Data) -> Bool {
    data.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return false }
      return memchr(base, 0x0A, bytes.count) != nil || memchr(base, 0x0D, bytes.count) != nil
    }
  }

  private static func tooLarge(_ limit: Int, status: Int?) -> ChatError {
    ChatError(.responseTooLarge, "The server's answer is larger than \(limit) bytes.", status: status)
  }

  /// The transport is done with the task (on the delegate queue): it is not cancelled after this.
  func completed(_ error: (any Error)?) {
    let outcome: Result<Void, ChatError> = error.map { .failure(HTTPFailure.transport($0)) } ?? .success(())
    update { state in
      state.transportCompleted = true
      if state.outcome == nil { state.outcome = outcome }
    }
  }

  /// Whether a redirect to `target` may be followed: only within the request's origin, at most
  /// `maximumRedirects` times. A refused one ends the exchange with `REDIRECT_REFUSED`; nothing is sent to
  /// the other origin, not even a connection.
  ///
  /// A refusal does not cancel the task: the transport then ends it with the redirect's response, and
  /// FoundationNetworking traps ("not waiting for it") when the answer to a redirect finds its task cancelled.
  func mayRedirect(to target: URL?, status: Int) -> Bool {
    let (count, ended) = state.withLock { state in
      state.redirects += 1
      return (state.redirects, state.outcome != nil)
    }
    if ended { return false }  // timed out or cancelled meanwhile: nothing more goes out
    let refusal: ChatError
    if let target, Self.isSameOrigin(target, origin) {
      guard count > Self.maximumRedirects else { return true }
      refusal = ChatError(
        .redirectRefused, "More than \(Self.maximumRedirects) redirects; not followed.", status: status)
    } else {
      refusal = ChatError(
        .redirectRefused, "The server redirected to another origin (\(target?.host ?? "?")); not followed.",
        status: status)
    }
    finish(.failure(refusal), cancellingTask: false)
    return false
  }

  /// Redirects one request may follow within its origin.
  static let maximumRedirects = 5

  /// Same scheme, host and port (a missing port is the scheme's default): an `https` URL is never the same
  /// origin as an `http` one.
  static func isSameOrigin(_ some: URL, _ other: URL) -> Bool {
    func parts(_ url: URL) -> (String, String, Int)? {
      guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
      let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
      return (scheme, host, port)
    }
    guard let some = parts(some), let other = parts(other) else { return false }
    return some == other
  }

  /// The timeout this exchange has passed at `now`, if any.
  func expired(at now: ContinuousClock.Instant) -> ChatError? {
    let (hasResponse, lastProgress, ended) = state.withLock { ($0.response != nil, $0.lastProgress, $0.outcome != nil) }
    if ended { return nil }
    if !hasResponse || kind == .answer {
      guard Self.seconds(from: startedAt, to: now) > policy.requestTimeout else { return nil }
      return ChatError(.timeout, "The server did not answer within \(policy.requestTimeout) s.")
    }
    guard Self.seconds(from: lastProgress, to: now) > policy.idleTimeout else { return nil }
    return ChatError(.timeout, "The server went quiet for \(policy.idleTimeout) s; no line came in time.")
  }

  /// Compared as `Double`s: `Duration.seconds(_:)` traps on a setting too large for it.
  private static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
    let components = start.duration(to: end).components
    return Double(components.seconds) + Double(components.attoseconds) * 1e-18
  }
}
