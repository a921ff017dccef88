import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import ChatHTTP

/// The JSON reader every protocol's events go through (`JSONByteScanner.value`) reads what Foundation's
/// decoder reads, to the same value, and takes nothing the decoder refuses.
@Suite("Reading a JSON value from its bytes")
struct JSONValueReaderTests {
  /// What the reader alone makes of `text` (nil: it leaves it to the decoder).
  static func readerOnly(_ text: String) -> JSONValue? {
    var text = text
    return text.withUTF8 { bytes in
      var scanner = JSONByteScanner(bytes: bytes)
      guard let value = scanner.value(), scanner.isAtEnd() else { return nil }
      return value
    }
  }

  static func decoder(_ text: String) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

  @Test(
    "a well-formed value reads as the decoder reads it",
    arguments: [
      #"{"type":"text-delta","id":"t1","delta":"It ships"}"#, "null", "true", "false", "0", "-0", "12", "-3.25",
      "1e3", "1E-2", "2.5e+10", "9007199254740993", "123456789012345678901234567890", #""""#, #""a\"b\\c\/d""#,
      #""\b\f\n\r\t""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""é中😀""#, "[]", "{}", " [ 1 , [ 2 , [ ] ] , { } ] ",
      #"{"k\u0065y":"v"}"#, #"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}"#,
    ])
  func wellFormed(text: String) throws {
    let read = try #require(Self.readerOnly(text), "the reader left \(text) to the decoder")
    #expect(read == Self.decoder(text))
    #expect(JSONByteScanner.value(of: text) == read)
  }

  @Test(
    "what is not JSON is refused by both: the reader takes none of it",
    arguments: [
      "", " ", "{", "}", "[1 2]", #"{"a"}"#, #"{"a":}"#, #"{a:1}"#, "'a'", "01", "1.", ".5",
      "-", "1e", "+1", "NaN", "Infinity", "tru", "nul", "[", #""abc"#, "\"a\nb\"", #""\x""#, #""\u12""#,
      #""\ud800""#, #""\udc00""#, "1 2", #"{"a":1}x"#, "1e400",
    ])
  func refused(text: String) {
    #expect(Self.readerOnly(text) == nil)
    #expect(Self.decoder(text) == nil)
    #expect(JSONByteScanner.value(of: text) == nil)
  }

  @Test(
    "what only Foundation's decoder takes (a trailing comma, a repeated key) is left to it, and read its way",
    arguments: ["[1,]", #"{"a":1,}"#, #"{"a":1,"a":2}"#, #"{"x":{"op":"add","op":"remove"}}"#])
  func leftToTheDecoder(text: String) throws {
    #expect(Self.readerOnly(text) == nil)
    let decoded = try #require(Self.decoder(text))
    #expect(JSONByteScanner.value(of: text) == decoded)
  }

  @Test("a value nested deeper than the reader goes is left to the decoder, which decides")
  func deepNesting() {
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(Self.readerOnly(deep) == nil)
    #expect(JSONByteScanner.value(of: deep) == Self.decoder(deep))
  }

  @Test("random values, encoded by Foundation, read back as the decoder reads them", arguments: 0..<4)
  func randomValues(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for _ in 0..<250 {
      let value = Self.randomValue(depth: 4, &random)
      let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
      let read = Self.readerOnly(text)
      #expect(read != nil && read == Self.decoder(text), "seed \(seed): \(text)")
    }
  }

  @Test("every event and request captured from the real producers reads as the decoder reads it")
  func captures() throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
    var texts: [(file: String, text: String)] = []
    for case let url as URL in files where ["json", "sse"].contains(url.pathExtension) {
      let content = try String(contentsOf: url, encoding: .utf8)
      if url.pathExtension == "json" {
        texts.append((url.lastPathComponent, content))
      } else {
        texts += content.split(separator: "\n").filter { $0.hasPrefix("data: {") }.map {
          (url.lastPathComponent, String($0.dropFirst(6)))
        }
      }
    }
    #expect(texts.count > 500, "the corpus is the repository's captures and fixtures")
    for (file, text) in texts {
      let expected = Self.decoder(text)
      let same = JSONByteScanner.value(of: text) == expected
      #expect(same, "\(file): read otherwise than the decoder reads it: \(text.prefix(200))")
      // The JSON Patch suite has operations with two "op" members, on purpose (a key the decoder reads).
      let taken = expected == nil || Self.readerOnly(text) != nil || file.hasSuffix("tests.json")
      #expect(taken, "\(file): left to the decoder: \(text.prefix(200))")
    }
  }

  @Test(
    "a string's plain run ends at the first quote, backslash or control byte, found a word at a time as one at a time",
    arguments: 0..<64)
  func firstStringSpecial(seed: UInt64) {
    // Given bytes around each boundary the word-at-a-time tests could blur: the specials, their neighbours,
    // bytes of 0x80 and above (whose high bit the tests use), at every offset within a word
    let alphabet: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0x61]
    var random = SplitMix64(seed: seed)
    let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
      // Mostly plain bytes, so runs of several words happen
      Int.random(in: 0..<4, using: &random) == 0 ? alphabet.randomElement(using: &random)! : 0x61
    }
    bytes.withUnsafeBufferPointer { buffer in
      let scanner = JSONByteScanner(bytes: buffer)
      for start in 0...buffer.count {
        // When the first special byte is looked for from any start
        let found = scanner.firstStringSpecial(from: start)
        // Then it is the one a byte-by-byte search finds
        let expected = buffer[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } ?? buffer.count
        #expect(found == expected, "bytes \(bytes) from \(start)")
      }
    }
  }

  @Test("invalid UTF-8 beside escapes is repaired as the unescaped bytes would be, never dropped or refused")
  func invalidUTF8BesideEscapes() {
    // Given a string whose bytes break UTF-8 just before and after escapes (a cut three-byte sequence, a
    // stray continuation byte, a lone lead byte)
    let bytes: [UInt8] =
      [0x22, 0xE6, 0x97] + Array(#"\u00e9"#.utf8) + [0xA9] + Array(#"\n"#.utf8) + [0xC3, 0x22]
    // When it is read
    let read = bytes.withUnsafeBufferPointer { buffer in
      var scanner = JSONByteScanner(bytes: buffer)
      return scanner.string()
    }
    // Then it is the text of its unescaped bytes, each broken sequence one U+FFFD
    #expect(read == String(decoding: [0xE6, 0x97, 0xC3, 0xA9, 0xA9, 0x0A, 0xC3], as: UTF8.self))
    #expect(read == "\u{FFFD}é\u{FFFD}\n\u{FFFD}")
  }

  static func randomValue(depth: Int, _ random: inout SplitMix64) -> JSONValue {
    switch Int.random(in: depth > 0 ? 0..<7 : 0..<4, using: &random) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &random))
    case 2:
      return Bool.random(using: &random)
        ? .number(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
        : .number(Double.random(in: -1e12...1e12, using: &random))
    case 3: return .string(randomString(&random))
    case 4, 5:
      return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomValue(depth: depth - 1, &random) })
    default:
      var members: [String: JSONValue] = [:]
      for _ in 0..<Int.random(in: 0..<5, using: &random) {
        members[randomString(&random)] = randomValue(depth: depth - 1, &random)
      }
      return .object(members)
    }
  }

  /// Text with quotes, backslashes, control characters and characters outside the BMP.
  static func randomString(_ random: inout SplitMix64) -> String {
    let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "中", "😀", "\u{2028}", "0"]
    return (0..<Int.random(in: 0..<8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
  }
}
