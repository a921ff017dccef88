import ConversationStore
import ConversationTesting

/// The in-process agent the window talks to: the testing kit's `ScriptedBackend`, given one scripted reply
/// per message (or regeneration) just before it is sent, and one for the run that continues an answer once
/// the user answered its approval. Its reply notation (`ReplyScript`) says reasoning, sources, a failed call
/// and an approval too; each new conversation gets its own ID from it (`conv-scripted-1`, `-2`, …).
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

  /// Queues an answer that shows the agent at work: it thinks, looks the order up (which succeeds), checks
  /// the stock (which fails), answers citing two sources. `variant` changes its words, for a regeneration.
  func queueResearchedAnswer(variant: Int = 1) {
    let pieces = [
      "<reasoning The user asks about order 1042. Look it up first, then check the stock of what is missing, and "
        + "cite the shipping policy.>",
      "<tool lookupOrder>", "<result lookupOrder {\"status\":\"shipped\"}>", "<tool checkStock>",
      "<fail checkStock The stock service did not answer.>",
    ]
    let words =
      variant == 1
      ? "Order 1042 has shipped; it should arrive on Thursday. I could not check the stock of the rest."
      : "Take two: order 1042 left the warehouse and arrives on Thursday; the stock check did not answer."
    let sources = [
      "<source https://example.com/help/shipping Shipping policy>",
      "<source https://example.com/help/tracking Tracking an order>",
    ]
    queue(pieces + words.split(separator: " ").map { "\($0) " } + sources, wait: 0.02, raw: true)
  }

  /// Queues an answer that calls `tool` and asks the user to approve the call (`<approve …>`); the run ends
  /// there, and the answer waits for the user.
  func queueApproval(of tool: String, question: String) {
    let words = "I can do that with \(tool), once you approve it."
    queue(
      words.split(separator: " ").map { "\($0) " } + ["<tool \(tool)>", "<approve \(tool) \(question)>"], wait: 0.02,
      raw: true)
  }

  /// Queues the run that continues an answer once the user answered the approval of the call `call`: an
  /// approved call runs and succeeds, a denied one does not run; then a sentence saying which, word by word.
  func queueContinuation(of call: ToolCallID, approved: Bool) {
    let words = approved ? "Done: the tool ran." : "All right, I did not run it."
    let result = approved ? ["<result \(call.rawValue) {\"done\":true}>"] : []
    queue(result + words.split(separator: " ").map { "\($0) " }, wait: 0.04, raw: true)
  }

  private func queue(_ pieces: [String], wait: Double, raw: Bool = false) {
    // `|` and `<` are the notation's syntax; generated text avoids them, written directives keep them.
    let clean =
      raw ? pieces : pieces.map { $0.replacingOccurrences(of: "|", with: "/").replacingOccurrences(of: "<", with: "‹") }
    let notation = clean.map { "\($0)|<wait \(wait)>" }.joined(separator: "|") + "|<finish>"
    try! backend.enqueue(notation)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
