import Foundation
import Testing

@testable import Demo

@Suite("JSON strings for decode-sse")
struct JSONTextTests {
  @Test(
    "quotes, backslashes and control characters are escaped; non-ASCII text is kept as it is",
    arguments: [
      ("plain", #""plain""#),
      (#"say "hi""#, #""say \"hi\"""#),
      (#"C:\path\"#, #""C:\\path\\""#),
      ("line\nnext\r\ttab", #""line\nnext\r\ttab""#),
      ("\u{0}\u{1}\u{8}\u{C}\u{1F}", #""\u0000\u0001\b\f\u001f""#),
      ("\u{7F}", "\"\u{7F}\""),
      ("café 日本 👍🏽", #""café 日本 👍🏽""#),
      ("\u{2028}", "\"\u{2028}\""),
      ("", #""""#),
    ])
  func escapes(text: String, json: String) {
    #expect(JSONText.string(text) == json)
  }

  @Test("every escaped string reads back as itself with a standard JSON parser")
  func roundTrips() throws {
    let texts = [
      "\u{FEFF}BOM first", "\"\\\n", String((UInt8(0)..<0x20).map { Character(Unicode.Scalar($0)) }), "é\u{FFFD}𝄞",
      #"{"delta":"Hi"}"#,
    ]
    for text in texts {
      let parsed = try JSONDecoder().decode([String].self, from: Data("[\(JSONText.string(text))]".utf8))
      #expect(parsed == [text], "JSONText.string(\(text.debugDescription)) does not parse back to the same text")
    }
  }
}
