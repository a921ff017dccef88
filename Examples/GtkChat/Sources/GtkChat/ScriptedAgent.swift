import ConversationStore
import ConversationTesting

/// The in-process agent the window talks to: the testing kit's `ScriptedBackend`, given one scripted reply
/// per message just before it is sent.
///
/// The backend waits `interval` before every piece; it is zero here and each reply paces itself with
/// `<wait …>` pieces, so a conversational reply streams word by word while the self-test's long reply can
/// stream as fast as it likes.
struct ScriptedAgent: Sendable {
  /// The backend the `ChatClient` runs against.
  let backend: ScriptedBackend

  init() {
    // The scripted backend only throws for a malformed reply notation, and it is given none here.
    backend = try! ScriptedBackend(clock: SystemChatClock(), interval: 0)
  }

  /// Queues a short answer to `question`, streamed a word every `wordInterval` seconds.
  func queueAnswer(to question: String, wordInterval: Double = 0.04) {
    let words =
      "You asked: “\(question)”. This answer comes from the in-process scripted agent, one word at a time, "
      + "and every word is one snapshot the window applies as an in-place update of this row."
    queue(words.split(separator: " ").map { "\($0) " }, wait: wordInterval)
  }

  /// Queues a long answer: `chunks` pieces of `wordsPerChunk` short words, one piece every `chunkInterval`
  /// seconds. 10,000 × 10 words of 10 bytes is 1 MB.
  func queueLongAnswer(chunks: Int, wordsPerChunk: Int, chunkInterval: Double) {
    let pieces = (0..<chunks).map { chunk in
      (0..<wordsPerChunk).map { word in "w\(String(chunk * wordsPerChunk + word).leftPadded(to: 8)) " }.joined()
    }
    queue(pieces, wait: chunkInterval)
  }

  private func queue(_ pieces: [String], wait: Double) {
    // `|` and `<` are the notation's syntax; the generated text avoids them.
    let clean = pieces.map { $0.replacingOccurrences(of: "|", with: "/").replacingOccurrences(of: "<", with: "‹") }
    let notation = clean.map { "\($0)|<wait \(wait)>" }.joined(separator: "|") + "|<finish>"
    try! backend.enqueue(notation)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
