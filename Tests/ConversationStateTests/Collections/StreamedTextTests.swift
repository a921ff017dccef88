import ConversationState
import ConversationTesting
import Foundation
import Testing

@Suite("StreamedText")
struct StreamedTextTests {
  @Test("a held copy keeps its text while the original keeps appending")
  func heldCopyIsStable() {
    var reply = StreamedText("Hel")
    let shown = reply
    reply.append("lo, wörld 👋")
    #expect(shown.string == "Hel")
    #expect(reply.string == "Hello, wörld 👋")
    #expect(reply.utf8Count == "Hello, wörld 👋".utf8.count)
  }

  @Test("appending to an old copy forks it and leaves the newer one alone")
  func oldCopyForks() {
    var reply = StreamedText("abc")
    var branch = reply
    reply.append("def")
    branch.append("XYZ")
    #expect(reply.string == "abcdef")
    #expect(branch.string == "abcXYZ")
    #expect(reply != branch)
  }

  @Test("text crossing many block boundaries reads back exactly", arguments: [1, 7, 1_000, 4_097])
  func blockBoundaries(deltaSize: Int) {
    var reply = StreamedText()
    var expected = ""
    var snapshots: [(StreamedText, String)] = []
    for index in 0..<200 {
      let delta = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: deltaSize)
      reply.append(delta)
      expected += delta
      if index.isMultiple(of: 37) { snapshots.append((reply, expected)) }
    }
    #expect(reply.string == expected)
    for (snapshot, text) in snapshots { #expect(snapshot.string == text) }
  }

  @Test("a 5 MB reply crosses the growing blocks into many fixed ones and reads back exactly")
  func longReply() {
    var reply = StreamedText()
    let chunk = String(repeating: "0123456789abcdef", count: 4_096)  // 64 KiB
    var snapshots: [StreamedText] = []
    for index in 0..<80 {
      reply.append(chunk)
      reply.append("|\(index)|")
      if index.isMultiple(of: 20) { snapshots.append(reply) }
    }
    let expected = (0..<80).map { chunk + "|\($0)|" }.joined()
    #expect(reply.utf8Count == expected.utf8.count)
    #expect(reply.string == expected)
    for snapshot in snapshots { #expect(expected.utf8.starts(with: snapshot.string.utf8)) }
  }

  @Test("it round-trips through JSON as a plain string")
  func codable() throws {
    let text = StreamedText("streamed")
    let data = try JSONEncoder().encode(text)
    #expect(String(decoding: data, as: UTF8.self) == "\"streamed\"")
    #expect(try JSONDecoder().decode(StreamedText.self, from: data) == text)
  }

  @Test("what was appended since a snapshot reads in O(delta), never splitting a character, across blocks")
  func substringSince() {
    var random = SplitMix64(seed: 3)
    var text = StreamedText()
    var reference = ""
    let pieces = ["a", "é", "👋🏽", "日本", " ", "long piece of text "]
    for _ in 0..<20_000 {
      let piece = pieces[Int.random(in: 0..<pieces.count, using: &random)]
      let before = text.utf8Count
      text.append(piece)
      reference += piece
      #expect(text.substring(fromUTF8: before) == piece)
    }
    let bytes = Array(reference.utf8)
    for _ in 0..<300 {
      let start = Int.random(in: 0...bytes.count, using: &random)
      let end = Int.random(in: start...bytes.count, using: &random)
      var lower = start
      while lower > 0 && lower < bytes.count && bytes[lower] & 0xC0 == 0x80 { lower -= 1 }
      var upper = end
      while upper > 0 && upper < bytes.count && bytes[upper] & 0xC0 == 0x80 { upper -= 1 }
      let expected = upper > lower ? String(decoding: bytes[lower..<upper], as: UTF8.self) : ""
      #expect(text.substring(fromUTF8: start, toUTF8: end) == expected)
    }
  }

  @Test(
    "a UI drawing every frame's new text gets each byte once, in order, whether a frame's text sits in one block or spans several",
    arguments: [1, 7, 1_000, 1_500, 4_097])
  func appendedEveryFrameAcrossBlocks(deltaBytes: Int) {
    // Given a reply streaming deltas of mixed-width characters, about `deltaBytes` bytes each
    let pieces = ["a", "é", "👋🏽", "日本"]
    var reply = StreamedText()
    var shown = reply
    var drawn = ""
    var reference = ""
    for index in 0..<300 {
      var delta = ""
      while delta.utf8.count < deltaBytes { delta += pieces[(index + delta.utf8.count) % pieces.count] }
      reply.append(delta)
      reference += delta
      // When the view takes what arrived since the frame it drew last
      let new = reply.appended(since: shown)
      // Then it is exactly this frame's delta
      #expect(new == delta)
      drawn += new ?? ""
      shown = reply
    }
    #expect(drawn == reference)
  }

  @Test("a UI appends what arrived since its previous snapshot; another reply, or a fork, asks for a full reset")
  func appendedSinceSnapshot() {
    // Given a reply the UI rendered at "It ships"
    var reply = StreamedText("It ships")
    let shown = reply

    // When more arrives
    reply.append(" on Mon")
    reply.append("day 👋🏽")

    // Then the UI gets only the new text
    #expect(reply.appended(since: shown) == " on Monday 👋🏽")
    #expect(reply.appended(since: reply) == "")
    // A different reply is not a continuation; an equal copy built elsewhere is
    #expect(reply.appended(since: StreamedText("Something else")) == nil)
    #expect(reply.appended(since: StreamedText("It ships on")) == " Monday 👋🏽")
    // A newer text is never "earlier"
    #expect(shown.appended(since: reply) == nil)
    // A copy that forked (an old snapshot appended to) still continues from its own prefix
    var forked = shown
    forked.append(" soon")
    #expect(forked.appended(since: shown) == " soon")
    #expect(forked.appended(since: reply) == nil)
  }
}
