import ServerSentEvents
import Testing

/// What a stream can make the decoder hold is bounded by its limits; within them, a long event reads the
/// same however it is cut.
@Suite("Server-Sent Events decoder limits")
struct DecoderLimitTests {
  static let limits = ServerSentEventDecoder.Limits(maximumLineBytes: 64, maximumEventBytes: 200)

  private func events(_ items: [ServerSentEventDecoder.Item]) -> [ServerSentEvent] {
    items.compactMap { if case .event(let event) = $0 { event } else { nil } }
  }

  @Test(
    "a line that never ends is refused once it passes the line limit, however it is cut", arguments: [1, 7, 64, 500])
  func endlessLine(piece: Int) {
    var decoder = ServerSentEventDecoder(limits: Self.limits)
    let line = Array("data: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 1_000)
    var refused: ServerSentEventDecoder.LimitExceeded?
    var fed = 0
    for start in stride(from: 0, to: line.count, by: piece) where refused == nil {
      do {
        _ = try decoder.feed(line[start..<min(start + piece, line.count)])
        fed = start + piece
      } catch {
        refused = error
      }
    }
    #expect(refused == ServerSentEventDecoder.LimitExceeded(kind: .line, limit: 64))
    #expect(fed <= 64 + piece, "refused as soon as the limit was passed, not at the end")
  }

  @Test("an event of many short data lines is refused once its data passes the event limit")
  func longEvent() {
    var decoder = ServerSentEventDecoder(limits: Self.limits)
    let stream = Array(String(repeating: "data: 0123456789\n", count: 30).utf8) + Array("\n".utf8)
    #expect(throws: ServerSentEventDecoder.LimitExceeded(kind: .event, limit: 200)) {
      for start in stride(from: 0, to: stream.count, by: 10) {
        _ = try decoder.feed(stream[start..<min(start + 10, stream.count)])
      }
    }
  }

  @Test("a line and an event exactly at their limits are taken")
  func atTheLimits() throws {
    var decoder = ServerSentEventDecoder(limits: .init(maximumLineBytes: 16, maximumEventBytes: 21))
    // Two data lines of 10 bytes joined by a line feed: 21 bytes of data; each line is 16 bytes.
    let items = try decoder.feed(Array("data: 0123456789\ndata: abcdefghij\n\n".utf8))
    #expect(events(items).map(\.data) == ["0123456789\nabcdefghij"])
  }

  @Test("after a refusal the decoder starts over: the next stream decodes, the last event ID stays")
  func startsOver() throws {
    var decoder = ServerSentEventDecoder(limits: Self.limits)
    _ = try decoder.feed(Array("id: 7\ndata: ok\n\n".utf8))
    #expect(throws: ServerSentEventDecoder.LimitExceeded.self) {
      _ = try decoder.feed(Array(("data: " + String(repeating: "x", count: 100)).utf8))
    }
    let after = try decoder.feed(Array("data: next\n\n".utf8))
    #expect(events(after).map(\.data) == ["next"])
    #expect(decoder.lastEventID == "7")
  }

  @Test("an event spanning hundreds of feeds decodes to the same data as whole", arguments: [1, 3, 100, 1_400])
  func eventAcrossFeeds(piece: Int) throws {
    let lines = (0..<300).map { "data: line \($0) \(String(repeating: "é", count: $0 % 7))\n" }
    let stream = Array(("id: 1\n" + lines.joined() + "\nevent: after\ndata: small\n\n").utf8)
    var decoder = ServerSentEventDecoder()
    var decoded: [ServerSentEvent] = []
    for start in stride(from: 0, to: stream.count, by: piece) {
      decoded += events(try decoder.feed(stream[start..<min(start + piece, stream.count)]))
    }
    let expected = lines.map { String($0.dropFirst(6).dropLast()) }.joined(separator: "\n")
    #expect(decoded.map(\.data) == [expected, "small"])
    #expect(decoded.map(\.type) == ["message", "after"])
    #expect(decoded.map(\.lastEventID) == ["1", "1"])
  }

  @Test("copies of a decoder made inside a long event go on apart")
  func copiesInsideALongEvent() throws {
    var original = ServerSentEventDecoder()
    for index in 0..<50 { _ = try original.feed(Array("data: \(index)\n".utf8)) }
    var copy = original
    let fromOriginal = events(try original.feed(Array("data: original\n\n".utf8)))
    let fromCopy = events(try copy.feed(Array("data: copy\n\n".utf8)))
    let shared = (0..<50).map(String.init).joined(separator: "\n")
    #expect(fromOriginal.map(\.data) == [shared + "\noriginal"])
    #expect(fromCopy.map(\.data) == [shared + "\ncopy"])
  }
}
