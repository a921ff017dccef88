import ConversationState
import ConversationStore

/// The wrapped lines of a reply as it streams, kept from frame to frame: each frame wraps only the text
/// appended since the previous one (`StreamedText.appended(since:)`) and the last line it joins, not the
/// whole reply, so a long reply costs the same per frame as a short one.
///
/// Its lines always equal `TextWrap.lines` of the whole text (a test streams replies in random pieces and
/// checks every frame).
struct StreamingTextLayout {
  private var reply: ClientMessageID?
  private var width = 0
  private var shown = StreamedText()
  /// Lines that no appended text can change.
  private var settled: [String] = []
  /// The text from the start of the last line on, to wrap again with what comes next.
  private var tail = ""
  private var last = ""

  /// The lines of `text`, the text of the reply `reply`, wrapped to `width`.
  mutating func lines(of text: StreamedText, reply: ClientMessageID, width: Int) -> [String] {
    if reply == self.reply, width == self.width, let appended = text.appended(since: shown) {
      guard !appended.isEmpty else { return settled + [last] }
      tail += appended
    } else {
      (self.reply, self.width, settled, tail) = (reply, width, [], text.string)
    }
    shown = text
    let (lines, lastLineStart) = TextWrap.layout(tail, width: width)
    settled += lines.dropLast()
    last = lines[lines.count - 1]
    tail = String(tail[lastLineStart...])
    return settled + [last]
  }
}

/// A `StreamingTextLayout` the demo's frames share; frames are drawn from several tasks (redraws, resizes,
/// the status tick), so it is behind a lock.
final class ReplyLayoutCache: Sendable {
  private let layout = StateLock(StreamingTextLayout())

  /// The lines of `text` wrapped to `width` (see `StreamingTextLayout`).
  func lines(of text: StreamedText, reply: ClientMessageID, width: Int) -> [String] {
    layout.withLock { $0.lines(of: text, reply: reply, width: width) }
  }
}
