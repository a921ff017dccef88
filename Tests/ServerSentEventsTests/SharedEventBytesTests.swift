import ServerSentEvents
import Testing

/// A decoded event keeps its data and ID as bytes shared with the other events of its feed; these stories
/// check that sharing is never visible.
@Suite("Decoded events' shared bytes")
struct SharedEventBytesTests {
  private func events(_ items: [ServerSentEventDecoder.Item]) -> [ServerSentEvent] {
    items.compactMap { if case .event(let event) = $0 { event } else { nil } }
  }

  @Test("events kept from earlier feeds and a dropped decoder still read what was sent")
  func eventsOutliveTheirFeedAndDecoder() throws {
    var kept: [ServerSentEvent] = []
    do {
      var decoder = ServerSentEventDecoder()
      kept += try events(decoder.feed(Array("id: 1\ndata: first\n\ndata: sec".utf8)))
      kept += try events(decoder.feed(Array("ond\n\nid: 3\ndata: third\n\n".utf8)))
      _ = try decoder.feed(Array("data: overwritten?\n\n".utf8))
      decoder.finish()
    }

    #expect(kept.map(\.data) == ["first", "second", "third"])
    #expect(kept.map(\.lastEventID) == ["1", "1", "3"])
  }

  @Test("a copy of a decoder made mid-block and the original each finish their own block")
  func copiesDecodeApart() throws {
    var original = ServerSentEventDecoder()
    _ = try original.feed(Array("id: a\ndata: shared start\ndata: ".utf8))
    var copy = original

    let fromOriginal = try events(original.feed(Array("original end\n\n".utf8)))
    let fromCopy = try events(copy.feed(Array("copy end\nid: b\n\n".utf8)))

    #expect(fromOriginal == [ServerSentEvent(data: "shared start\noriginal end", lastEventID: "a")])
    #expect(fromCopy == [ServerSentEvent(data: "shared start\ncopy end", lastEventID: "b")])
  }

  @Test("a decoded event equals, and hashes as, the same event made from strings")
  func decodedEqualsMade() throws {
    var decoder = ServerSentEventDecoder()
    let decoded = try events(decoder.feed(Array("event: text-delta\nid: 7\ndata: café\n\n".utf8)))
    let made = ServerSentEvent(type: "text-delta", data: "café", lastEventID: "7")

    #expect(decoded == [made])
    #expect(Set(decoded + [made]).count == 1)
    // The same text in another normalization (e + combining accent) is still equal, as strings are.
    #expect(decoded == [ServerSentEvent(type: "text-delta", data: "cafe\u{301}", lastEventID: "7")])
  }

  @Test("setting a decoded event's data or ID changes only that field")
  func settingAFieldKeepsTheOther() throws {
    var decoder = ServerSentEventDecoder()
    var event = try events(decoder.feed(Array("id: 9\ndata: sent\n\n".utf8)))[0]
    var renamed = event

    event.data = "edited"
    renamed.lastEventID = "10"

    #expect(event == ServerSentEvent(data: "edited", lastEventID: "9"))
    #expect(renamed == ServerSentEvent(data: "sent", lastEventID: "10"))
  }

  @Test(
    "withDataUTF8 hands over the data's UTF-8, repaired where the sent bytes were not UTF-8",
    arguments: [
      (Array("{\"delta\":\"héllo\"}".utf8), "{\"delta\":\"héllo\"}"),
      ([0x61, 0xFF, 0x62], "a\u{FFFD}b"),
      ([0xE6, 0x97], "\u{FFFD}"),
      ([], ""),
    ])
  func dataUTF8(sent: [UInt8], expected: String) throws {
    var decoder = ServerSentEventDecoder()
    let event = try events(decoder.feed(Array("data: ".utf8) + sent + Array("\n\n".utf8)))[0]

    let bytes = event.withDataUTF8 { Array($0) }

    #expect(bytes == Array(expected.utf8))
    #expect(event.data == expected)
    #expect(ServerSentEvent(data: expected).withDataUTF8 { Array($0) } == bytes)
  }

  struct Refused: Error, Equatable {}

  @Test("an error thrown while reading the bytes reaches the caller with its type")
  func typedThrows() throws {
    var decoder = ServerSentEventDecoder()
    let event = try events(decoder.feed(Array("data: x\n\n".utf8)))[0]

    #expect(throws: Refused()) { try event.withDataUTF8 { (_) throws(Refused) in throw Refused() } }
  }

  @Test("one feed of many events that repeat a long ID holds more than its input, and every event reads right")
  func repeatedIDsOutgrowTheFeed() throws {
    let id = String(repeating: "i", count: 200)
    let stream = "id: \(id)\n" + String(repeating: "data: x\n\n", count: 500)
    var decoder = ServerSentEventDecoder()

    let decoded = try events(decoder.feed(Array(stream.utf8)))

    #expect(decoded.count == 500)
    #expect(decoded.allSatisfy { $0.data == "x" && $0.lastEventID == id })
  }

  @Test("a huge event, then small ones, all decode whole")
  func hugeThenSmall() throws {
    let huge = String(repeating: "y", count: 200_000)
    var decoder = ServerSentEventDecoder()
    var decoded: [ServerSentEvent] = []

    let stream = Array("data: \(huge)\n\ndata: small\n\n".utf8)
    for start in stride(from: 0, to: stream.count, by: 1_400) {
      decoded += try events(decoder.feed(stream[start..<min(start + 1_400, stream.count)]))
    }

    #expect(decoded.map(\.data) == [huge, "small"])
  }

  @Test("events handed to other tasks read what was sent while the decoder goes on and reuses its buffers")
  func eventsCrossTasks() async throws {
    let bytes = Array((0..<2_000).map { "id: \($0)\ndata: event \($0)\n\n" }.joined().utf8)
    var decoder = ServerSentEventDecoder()
    var readers: [Task<[String], Never>] = []

    for start in stride(from: 0, to: bytes.count, by: 700) {
      let events = try events(decoder.feed(bytes[start..<min(start + 700, bytes.count)]))
      readers.append(Task.detached { events.map { "\($0.lastEventID):\($0.data)" } })
    }
    var read: [String] = []
    for reader in readers { read += await reader.value }

    #expect(read == (0..<2_000).map { "\($0):event \($0)" })
  }
}
