#if CONVERSATION_STORE_TSAN
  public import Foundation
#else
  public import Synchronization
#endif

/// The one lock that guards a store's state (and the runtime's task tables).
///
/// Normally a `Synchronization.Mutex`. Why a second implementation exists: on Linux with Swift 6.3,
/// ThreadSanitizer reports a false "Swift access race" inside `Mutex` itself (a `Mutex<[Int]>` appended to
/// from two threads reproduces it). `.ci/run` builds the sanitizer run with `-DCONVERSATION_STORE_TSAN`,
/// which swaps in an `NSLock`, so every other report stays fatal and nothing is suppressed.
#if CONVERSATION_STORE_TSAN
  @usableFromInline
  package final class StateLock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, between lock() and unlock().
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    package init(_ value: Value) { self.value = value }

    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
      lock.lock()
      defer { lock.unlock() }
      return try body(&value)
    }
  }
#else
  @usableFromInline
  package final class StateLock<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    // Inlinable so a store's hot path is specialized for its state in the caller's module.
    @inlinable
    package func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
      try mutex.withLock { value in try body(&value) }
    }
  }
#endif
