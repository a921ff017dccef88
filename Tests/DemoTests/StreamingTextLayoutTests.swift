import ConversationStore
import ConversationTesting
import Testing

@testable import Demo

/// The demo wraps a streamed reply a delta at a time; its lines must be exactly the lines of wrapping the
/// whole text, at every frame.
@Suite("Streaming text layout")
struct StreamingTextLayoutTests {
  static let replies = [
    "It ships on Monday. Tracking number follows once the carrier has it.",
    "Short words and a Supercalifragilisticexpialidocious one, then more.",
    "Two  spaces,\ta tab, a line\nbreak, an empty line\n\nand emoji 👋🏽👩‍👩‍👧 and 漢字 wide ones.",
    "Ends with a newline\n",
    "   leading spaces and trailing ones   ",
  ]

  @Test("streamed in random pieces, every frame's lines equal wrapping the whole text", arguments: [1, 4, 11, 30])
  func everyFrameMatches(width: Int) {
    for (number, reply) in Self.replies.enumerated() {
      var random = SplitMix64(seed: UInt64(width * 100 + number))
      var layout = StreamingTextLayout()
      var text = StreamedText()
      var rest = Substring(reply)
      while !rest.isEmpty {
        // Given the next delta, of 1 to 7 characters (a word may arrive split)
        let piece = rest.prefix(Int.random(in: 1...7, using: &random))
        rest = rest.dropFirst(piece.count)
        text.append(String(piece))
        // When the frame is drawn, then it matches a full wrap of the text so far
        let lines = layout.lines(of: text, reply: "r1", width: width)
        #expect(lines == TextWrap.lines(text.string, width: width), "width \(width), reply \(number)")
      }
    }
  }

  @Test("a new reply, a new width or text that does not continue the shown text is wrapped afresh")
  func resets() {
    var layout = StreamingTextLayout()
    let first = StreamedText("The first reply has some words")
    _ = layout.lines(of: first, reply: "r1", width: 10)
    // Another reply with unrelated text
    let second = StreamedText("Another one")
    #expect(layout.lines(of: second, reply: "r2", width: 10) == TextWrap.lines("Another one", width: 10))
    // The same reply at another width (the terminal was resized)
    #expect(layout.lines(of: second, reply: "r2", width: 4) == TextWrap.lines("Another one", width: 4))
    // Text of the same reply that is not the shown text plus more (built anew)
    let rebuilt = StreamedText("Completely different words")
    #expect(
      layout.lines(of: rebuilt, reply: "r2", width: 4) == TextWrap.lines("Completely different words", width: 4))
  }
}
