package import Testing

extension Trait where Self == TimeLimitTrait {
  /// The time limit every suite here uses: long enough that only a hang reaches it.
  ///
  /// A time limit is not a speed check (speed is measured in the benchmarks). The whole test run shares a
  /// cooperative pool as wide as the machine has cores, so on a slow or busy machine a test that needs a
  /// second may wait minutes for a thread: CI once saw a one-minute limit cut off a test that was only
  /// queued behind the fuzzers. Fifteen minutes still ends a hung test long before CI's own limit of ninety.
  package static var hangGuard: Self { .timeLimit(.minutes(15)) }
}
