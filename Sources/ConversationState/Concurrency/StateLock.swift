#if CONVERSATION_STORE_TSAN
  public import Foundation
#else
  public import Synchronization
#endif

/// The lock that guards every piece of shared mutable state in the package: a store's state, the
/// runtime's task tables, the persistence writers and the demo's screen.
///
/// Normally a `Synchronization.Mutex`. Why a second implementation exists: on Linux with Swift 6.3,
/// ThreadSanitizer does not see the ordering `Mutex` gives (the Synchronization module is not built with
/// the sanitizer), so it reports false races on what a `Mutex` guards — a `Mutex<[Int]>` appended to from
/// two threads reproduces it. `.ci/run` builds the sanitizer run with `-DCONVERSATION_STORE_TSAN`, which
/// swaps in an `NSLock`, so every other report stays fatal and nothing is suppressed. That is why no
/// module here uses `Mutex` directly.
#if CONVERSATION_STORE_TSAN
  // `withLock` is overloaded on purpose, trailing closures included: a body that cannot throw takes the
  // overload for one, which the compiler inlines (see the other implementation's).
  // swift-format-ignore: AmbiguousTrailingClosureOverload
  @usableFromInline
  package final class StateLock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, between lock() and unlock().
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    package init(_ value: Value) { self.value = value }

    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
      throws(Failure) -> Result
    {
      lock.lock()
      defer { lock.unlock() }
      return try body(&value)
    }

    /// The same for a body that cannot throw (see the other implementation's).
    @inlinable
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
      lock.lock()
      defer { lock.unlock() }
      return body(&value)
    }
  }
#else
  // `withLock` is overloaded on purpose, trailing closures included: a body that cannot throw takes the
  // overload for one, which the compiler inlines.
  // swift-format-ignore: AmbiguousTrailingClosureOverload
  @usableFromInline
  package final class StateLock<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    // Inlinable so a store's hot path is specialized for its state in the caller's module.
    @inlinable
    package func withLock<Result: Sendable, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
      throws(Failure) -> Result
    {
      try mutex.withLock { (value: inout Value) throws(Failure) -> Result in try body(&value) }
    }

    /// The same for a body that cannot throw: a store's `send` and `state`. With the typed-throws overload
    /// alone (`Failure` == `Never`), the compiler kept the body and `Mutex.withLock`'s closure out of line,
    /// behind partial-apply thunks: about 110 instructions more per streamed delta (`frame.delta.h10k`,
    /// `hold.delta.h10k`).
    @inlinable
    package func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
      mutex.withLock { value in body(&value) }
    }
  }
#endif
