import Testing

@testable import Demo

@Suite("Keys from terminal bytes")
struct KeyDecoderTests {
  @Test(
    "bytes to keys",
    arguments: [
      ("\u{1B}[A", [Key.up]), ("\u{1B}[B", [.down]), ("\u{1B}[C", [.right]), ("\u{1B}[D", [.left]),
      ("\u{1B}OA", [.up]), ("\u{1B}[1;5A", [.up]), ("\u{1B}[5~", [.pageUp]), ("\u{1B}[6~", [.pageDown]),
      ("\u{1B}[3~", [.other]), ("\r", [.enter]), ("\n", [.enter]), ("\t", [.tab]), ("\u{7F}", [.backspace]),
      ("\u{8}", [.backspace]), ("\u{3}", [.controlC]), ("\u{4}", [.controlD]), ("\u{12}", [.controlR]),
      ("\u{1}", [.other]),
      ("hé日👍", [.character("h"), .character("é"), .character("日"), .character("👍")]),
      ("a\u{1B}[Ab", [.character("a"), .up, .character("b")]),
      ("\u{1B}x", [.escape, .character("x")]), ("\u{1B}\u{1B}[B", [.escape, .down]),
    ])
  func decode(input: String, expected: [Key]) {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array(input.utf8)) == expected)
    #expect(!decoder.hasPendingBytes)
  }

  @Test("bytes that are not UTF-8 are .other, and the byte after them still counts")
  func invalidUTF8() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0xFF, 0x80, 0x61]) == [.other, .other, .character("a")])
    #expect(decoder.decode([0xE6, 0x97, 0x61]) == [.other, .character("a")])
    #expect(decoder.decode([0xED, 0xA0, 0x80]) == [.other])  // a UTF-16 surrogate
  }

  @Test("a character or a sequence split across reads, at every split point", arguments: ["日", "👍", "\u{1B}[5~"])
  func splitAcrossReads(input: String) {
    let bytes = Array(input.utf8)
    let expected = KeyDecoderTests.decodeWhole(bytes)
    for split in 1..<bytes.count {
      var decoder = KeyDecoder()
      let first = decoder.decode(bytes[..<split])
      #expect(first.isEmpty)
      #expect(decoder.hasPendingBytes)
      #expect(first + decoder.decode(bytes[split...]) == expected)
    }
  }

  @Test("a lone ESC waits, in case a sequence follows; flushed, it is the Esc key")
  func loneEscape() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B]).isEmpty)
    #expect(decoder.hasLoneEscape)
    #expect(decoder.flush() == [.escape])
    #expect(!decoder.hasPendingBytes)
    #expect(decoder.decode([0x1B]).isEmpty)
    #expect(decoder.decode(Array("[A".utf8)) == [.up])
  }

  @Test("a sequence cut short is dropped as one .other when flushed or when it runs on too long")
  func garbage() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("\u{1B}[12".utf8)).isEmpty)
    #expect(!decoder.hasLoneEscape)
    #expect(decoder.flush() == [.other])
    // ESC [ and 16 parameter bytes are a sequence still; the 17th ends it, and the rest are typed.
    let runaway = "\u{1B}[" + String(repeating: "1", count: 40) + "A"
    let expected: [Key] = [.other] + Array(repeating: .character("1"), count: 24) + [.character("A")]
    #expect(decoder.decode(Array(runaway.utf8)) == expected)
  }

  private static func decodeWhole(_ bytes: [UInt8]) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.decode(bytes)
  }
}
