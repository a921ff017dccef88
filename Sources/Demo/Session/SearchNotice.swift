import ConversationStore

/// How `/search` shows what it found: a heading, then one line per result (newest first) with the words
/// marked «like this» in a short excerpt of the message.
enum SearchNotice {
  /// Results shown at most; the rest are counted.
  static let shown = 5

  static func text(for words: String, _ page: SearchPage) -> String {
    guard !page.results.isEmpty else { return "No stored message has “\(words)”." }
    let more = page.results.count > shown || page.next != nil
    var lines = ["Found “\(words)”\(more ? " (first \(shown))" : ""):"]
    for result in page.results.prefix(shown) {
      lines.append("  \(result.conversationID.rawValue) · \(excerpt(result))")
    }
    return lines.joined(separator: "\n")
  }

  /// The message text around its first match, on one line, the match marked.
  static func excerpt(_ result: SearchResult, before: Int = 24, after: Int = 40) -> String {
    let text = result.message.text
    guard let match = result.matches.first else { return oneLine(String(text.prefix(before + after))) }
    let start = text.index(match.lowerBound, offsetBy: -before, limitedBy: text.startIndex) ?? text.startIndex
    let end = text.index(match.upperBound, offsetBy: after, limitedBy: text.endIndex) ?? text.endIndex
    let head = (start == text.startIndex ? "" : "…") + text[start..<match.lowerBound]
    let tail = text[match.upperBound..<end] + (end == text.endIndex ? "" : "…")
    return oneLine(head + "«" + text[match] + "»" + tail)
  }

  private static func oneLine(_ text: String) -> String {
    String(text.map { $0.isNewline ? " " : $0 })
  }
}
