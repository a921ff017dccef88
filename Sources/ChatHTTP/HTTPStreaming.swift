import ConversationState
import ConversationStore
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The streaming HTTP layer every protocol backend shares: one `URLSession` whose delegate hands each
/// response to its `HTTPExchange`, to be read at the reader's pace (a reply is decoded while it streams,
/// never buffered whole).
///
/// The rules a misbehaving server meets are here, once, for every backend built on it:
/// - Timeouts (`ChatPolicy.requestTimeout`, `.idleTimeout`): no response head in time, a JSON answer that
///   takes longer in all (however it drips), a stream that completes no line in time: `TIMEOUT`.
/// - Redirects are followed only within the request's origin; any other fails with `REDIRECT_REFUSED`
///   before anything is sent there. The credential, attached to each request by its backend, never leaves.
/// - Bytes received and not yet read are bounded (`ChatPolicy.maximumUnreadBytes`).
/// - Cancelling is safe at any moment (see `HTTPExchange`): dropping an exchange cancels its transfer.
final class HTTPStreaming: NSObject, URLSessionDataDelegate, Sendable {
  private struct WeakExchange {
    weak var exchange: HTTPExchange?
  }

  private let exchanges = StateLock<[Int: WeakExchange]>([:])
  let policy: ChatPolicy
  /// Serial: the transport's callbacks run here, one at a time, in order.
  let delegateQueue: OperationQueue
  /// Checks every exchange's timeouts about four times per limit. A dispatch timer, not a task: a busy
  /// cooperative pool must not delay a timeout.
  private let watchdog = WatchdogTimer()

  init(policy: ChatPolicy) {
    self.policy = policy
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.name = "ChatHTTP.delegate"
    delegateQueue = queue
    super.init()
    watchdog.start(every: Self.tick(policy)) { [weak self] in self?.checkTimeouts() }
  }

  /// Starts `request` on `session` (whose delegate is this object); the exchange ends its transfer when it
  /// is dropped.
  func start(_ request: URLRequest, kind: HTTPExchange.Kind, on session: URLSession) -> HTTPExchange {
    let task = session.dataTask(with: request)
    let exchange = HTTPExchange(
      task: task, kind: kind, origin: request.url ?? URL(fileURLWithPath: "/"), policy: policy)
    exchanges.withLock { $0[task.taskIdentifier] = WeakExchange(exchange: exchange) }
    task.resume()
    return exchange
  }

  /// Fails each exchange past its timeout (outside the lock: failing one cancels its task).
  private func checkTimeouts() {
    let live = exchanges.withLock { $0.values.compactMap(\.exchange) }
    let now = ContinuousClock.now
    for exchange in live {
      if let expired = exchange.expired(at: now) { exchange.fail(expired) }
    }
  }

  /// A quarter of the shorter timeout, between 10 ms and 1 s, in seconds.
  private static func tick(_ policy: ChatPolicy) -> Double {
    min(max(min(policy.requestTimeout, policy.idleTimeout) / 4, 0.01), 1)
  }

  /// Cancels every exchange still running (the backend is going away).
  func cancelAll() {
    let running = exchanges.withLock { $0.values.compactMap(\.exchange) }
    for exchange in running { exchange.cancel() }
  }

  private func exchange(_ task: URLSessionTask) -> HTTPExchange? {
    exchanges.withLock { $0[task.taskIdentifier]?.exchange }
  }

  // MARK: URLSessionDataDelegate

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    if let response = response as? HTTPURLResponse { exchange(dataTask)?.received(response) }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    exchange(dataTask)?.received(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    let allowed = exchange(task)?.mayRedirect(to: request.url, status: response.statusCode) ?? false
    completionHandler(allowed ? request : nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier)?.exchange }
    exchange?.completed(error)
  }
}

/// A repeating timer on a queue of its own, cancelled when it goes.
///
/// `@unchecked Sendable`: a dispatch source may be used from any thread (libdispatch objects are
/// thread-safe); this one is configured once by `start`, called in its owner's `init` before the owner is
/// shared, and only cancelled after, in `deinit`.
private final class WatchdogTimer: @unchecked Sendable {
  private let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ChatHTTP.watchdog"))

  func start(every seconds: Double, _ fire: @escaping @Sendable () -> Void) {
    source.schedule(deadline: .now() + seconds, repeating: seconds, leeway: .milliseconds(Int(seconds * 100)))
    source.setEventHandler(handler: fire)
    source.resume()
  }

  deinit { source.cancel() }
}
