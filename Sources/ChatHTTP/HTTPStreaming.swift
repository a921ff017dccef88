import ConversationState
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one HTTP exchange delivers: the response head, then the body in the pieces the network gives.
enum HTTPStreamEvent: Sendable {
  case response(HTTPURLResponse)
  case bytes(Data)
}

/// Runs HTTP requests on one `URLSession` and hands each body over incrementally, as it arrives (a reply
/// is decoded while it streams, never buffered whole).
///
/// Ending the returned stream early (the consumer's task is cancelled, or it stops iterating) cancels the
/// request, which closes its connection. A request with no response head within `requestTimeout`, or a
/// body that goes quiet for `idleTimeout`, fails with `TIMEOUT`: the server's heartbeats keep a stream alive.
final class HTTPStreaming: NSObject, URLSessionDataDelegate, Sendable {
  private struct Exchange {
    var continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation
    var lastActivity: ContinuousClock.Instant
    var hasResponse = false
  }

  private let exchanges = Mutex<[Int: Exchange]>([:])
  let requestTimeout: Double
  let idleTimeout: Double

  init(requestTimeout: Double, idleTimeout: Double) {
    self.requestTimeout = requestTimeout
    self.idleTimeout = idleTimeout
  }

  /// Starts `request` on `session` (whose delegate is this object).
  func start(_ request: URLRequest, on session: URLSession) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<HTTPStreamEvent, any Error>.makeStream()
    let task = session.dataTask(with: request)
    let id = task.taskIdentifier
    exchanges.withLock { $0[id] = Exchange(continuation: continuation, lastActivity: .now) }
    let watchdog = Task { [weak self] in await self?.watch(id, task: task) }
    continuation.onTermination = { [weak self] _ in
      watchdog.cancel()
      task.cancel()
      _ = self?.exchanges.withLock { $0.removeValue(forKey: id) }
    }
    task.resume()
    return stream
  }

  /// Fails the exchange with `TIMEOUT` once it has been quiet for longer than its limit.
  private func watch(_ id: Int, task: URLSessionDataTask) async {
    let tick = Duration.milliseconds(Int(min(requestTimeout, idleTimeout) * 250))
    while !Task.isCancelled {
      try? await Task.sleep(for: tick)
      let expired = exchanges.withLock { exchanges -> Exchange? in
        guard let exchange = exchanges[id] else { return nil }
        let limit = exchange.hasResponse ? idleTimeout : requestTimeout
        guard exchange.lastActivity.duration(to: .now) > .milliseconds(Int(limit * 1000)) else { return nil }
        return exchanges.removeValue(forKey: id)
      }
      guard let expired else { continue }
      expired.continuation.finish(throwing: ChatError(.timeout, "The server went quiet; no answer came in time."))
      task.cancel()
      return
    }
  }

  private func touch(_ id: Int, response: Bool = false) -> AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation?
  {
    exchanges.withLock { exchanges in
      exchanges[id]?.lastActivity = .now
      if response { exchanges[id]?.hasResponse = true }
      return exchanges[id]?.continuation
    }
  }

  // MARK: URLSessionDataDelegate

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    if let response = response as? HTTPURLResponse {
      touch(dataTask.taskIdentifier, response: true)?.yield(.response(response))
    }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    touch(dataTask.taskIdentifier)?.yield(.bytes(data))
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    if let error {
      exchange?.continuation.finish(throwing: HTTPFailure.transport(error))
    } else {
      exchange?.continuation.finish()
    }
  }
}
