import Foundation

/// Runs `work`, which blocks its thread (a child process, a read from a pipe, a sleep), on a thread of its
/// own and suspends until it is done, so that it holds none of Swift's cooperative threads.
///
/// The cooperative pool has one thread per core, two on a small CI machine. A test that blocks one of them
/// for its whole run (the crash-safety test kills a writer 200 times) leaves every other test's tasks one
/// thread; on such a machine that made waits of five seconds elsewhere in the suite fail. Call it around the
/// blocking part only and keep `#expect` outside it: an expectation recorded on a thread of its own is not
/// attributed to the test.
///
/// ```swift
/// let status = try await offThePool {
///   try process.run()
///   process.waitUntilExit()
///   return process.terminationStatus
/// }
/// #expect(status == 0)
/// ```
package func offThePool<T: Sendable, Failure: Error>(
  _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
  let result: Result<T, Failure> = await withCheckedContinuation { continuation in
    // A thread per call, not a global queue: the work may block for minutes, and a test process makes few.
    let thread = Thread {
      do throws(Failure) {
        continuation.resume(returning: .success(try work()))
      } catch {
        continuation.resume(returning: .failure(error))
      }
    }
    thread.start()
  }
  return try result.get()
}
