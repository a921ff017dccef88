/// Whether a copy-on-write value may write `object` in place: it holds the only reference to it.
///
/// `isKnownUniquelyReferenced`, except in the ThreadSanitizer build (`-DCONVERSATION_STORE_TSAN`, see
/// `.ci/run`), where it is always false, so every write copies first. Why: the hand-over this relies on (a
/// thread drops its copy, another finds the object unique and writes to it) is ordered by the Swift runtime's
/// reference counting, which is not built with the sanitizer, so the sanitizer cannot see that order and
/// reports the first thread's earlier read and the write as a race. It did, on `ConversationState.connection`
/// in the runtime fuzz test, once in three CI runs. `Array` and `Dictionary` rely on the same order; their
/// code is not instrumented, so it is never reported there. Copying is always correct, only slower.
@inlinable
func isWritableInPlace<Object: AnyObject>(_ object: inout Object) -> Bool {
  #if CONVERSATION_STORE_TSAN
    false
  #else
    isKnownUniquelyReferenced(&object)
  #endif
}
