import ServerSentEvents
import Testing

@Suite("Server-Sent Events decoder edges")
struct DecoderEdgeTests {
  /// Every event and retry value of `stream` fed in `size`-byte pieces, then the last event ID.
  private func decode(_ stream: [UInt8], piecesOf size: Int) throws -> (
    items: [ServerSentEventDecoder.Item], lastEventID: String
  ) {
    var decoder = ServerSentEventDecoder()
    var items: [ServerSentEventDecoder.Item] = []
    for start in stride(from: 0, to: stream.count, by: size) {
      items += try decoder.feed(stream[start..<min(start + size, stream.count)])
    }
    decoder.finish()
    return (items, decoder.lastEventID)
  }

  @Test(
    "a stream decodes the same whole as one byte at a time, whatever bytes sit next to its line ends",
    arguments: 0..<200)
  func piecesAgree(seed: UInt64) throws {
    // Line ends and the bytes a word-at-a-time search could mistake for them (0x0B, 0x0C, 0x8A, 0x8D, 0x0E,
    // 0x09), field names, and multi-byte UTF-8 split anywhere, at every offset within a word.
    let alphabet: [[UInt8]] = [
      [0x0A], [0x0D], [0x0D, 0x0A], [0x0B], [0x0C], [0x8A], [0x8D], [0x0E], [0x09], [0x00], Array("data:".utf8),
      Array("data: ".utf8), Array("id:".utf8), Array("event:".utf8), Array("retry:".utf8), Array("7".utf8),
      Array(":".utf8), Array(" ".utf8), Array("é".utf8), Array("日".utf8), [0xFF], Array("word".utf8),
    ]
    var random = seed &+ 1
    var stream: [UInt8] = []
    for _ in 0..<60 {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      stream += alphabet[Int(random >> 33) % alphabet.count]
    }

    let whole = try decode(stream, piecesOf: stream.count)
    let byByte = try decode(stream, piecesOf: 1)
    let bySeven = try decode(stream, piecesOf: 7)

    #expect(whole.items == byByte.items, "stream \(stream)")
    #expect(whole.lastEventID == byByte.lastEventID, "stream \(stream)")
    #expect(whole.items == bySeven.items, "stream \(stream)")
  }

  @Test(
    "a field whose name only looks like a known one is ignored: names are matched whole, case and all",
    arguments: [
      "Data", "dat", "dataa", "datA", "Event", "evenT", "eventt", "even", "ID", "iD", "i", "idd", "retrY", "retr",
    ])
  func nearMissFieldNames(name: String) throws {
    // Given a block whose only field (besides its data) has a name one byte off a known one
    let stream = Array("\(name): value\ndata: kept\n\n".utf8)

    // When it is decoded
    let decoded = try decode(stream, piecesOf: stream.count)

    // Then only the data field counted: the type, the ID and the retry time are the defaults
    #expect(decoded.items == [.event(ServerSentEvent(type: "message", data: "kept", lastEventID: ""))])
    #expect(decoded.lastEventID == "")
  }

  @Test("invalid UTF-8 becomes U+FFFD in short and long IDs, types and data alike")
  func invalidUTF8() throws {
    let long = Array(repeating: UInt8(ascii: "x"), count: 20)
    var stream: [UInt8] = []
    stream += Array("id: ".utf8) + [0xFF] + long + [0x0A]
    stream += Array("event: ".utf8) + [0xC3] + Array("t\n".utf8)
    stream += Array("data: ".utf8) + [0xE6, 0x97] + Array("\n".utf8)
    stream += Array("data: ".utf8) + long + [0xF0] + Array("\n\n".utf8)
    stream += Array("id: ".utf8) + [0xFF] + Array("1\ndata: ok\n\n".utf8)

    let decoded = try decode(stream, piecesOf: stream.count)

    let x20 = String(repeating: "x", count: 20)
    #expect(
      decoded.items == [
        .event(ServerSentEvent(type: "\u{FFFD}t", data: "\u{FFFD}\n\(x20)\u{FFFD}", lastEventID: "\u{FFFD}\(x20)")),
        .event(ServerSentEvent(type: "message", data: "ok", lastEventID: "\u{FFFD}1")),
      ])
  }

  @Test("a block that repeats the previous type, or changes it, gets its own")
  func eventTypeChanges() throws {
    let stream = Array(
      "event: a\ndata: 1\n\nevent: a\ndata: 2\n\nevent: b\ndata: 3\n\ndata: 4\n\nevent:\ndata: 5\n\n".utf8)

    let types = try decode(stream, piecesOf: stream.count).items.compactMap { item -> String? in
      if case .event(let event) = item { return event.type }
      return nil
    }

    #expect(types == ["a", "a", "b", "message", "message"])
  }

  @Test("the events a caller keeps from one feed are not changed by the next")
  func keptItemsStay() throws {
    var decoder = ServerSentEventDecoder()

    let first = try decoder.feed(Array("data: one\n\n".utf8))
    let second = try decoder.feed(Array("data: two\n\n".utf8))

    #expect(first == [.event(ServerSentEvent(data: "one"))])
    #expect(second == [.event(ServerSentEvent(data: "two"))])
  }
}
