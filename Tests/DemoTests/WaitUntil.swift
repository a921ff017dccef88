import Foundation

/// Polls `condition` (yielding between tries) until it holds; the bound only ends a wait for something that
/// never comes, inside the suite's `hangGuard` (a whole CI run on two cores has taken 512 s).
func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(600)
  while Date() < deadline {
    if condition() { return true }
    try? await Task.sleep(nanoseconds: 1_000_000)
  }
  return condition()
}
