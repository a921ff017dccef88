/// How much work the heavy client stories do. The ThreadSanitizer build (`.ci/run` compiles it with
/// `-DCONVERSATION_STORE_TSAN`) runs everything several times slower beside the whole suite: there they keep
/// their promises on fewer conversations, so the other stories' waits are not starved out of their limits.
enum StoryScale {
  #if CONVERSATION_STORE_TSAN
    static let isSanitized = true
  #else
    static let isSanitized = false
  #endif

  /// `full`, or `sanitized` in the ThreadSanitizer build.
  static func count(_ full: Int, sanitized: Int) -> Int { isSanitized ? sanitized : full }
}
