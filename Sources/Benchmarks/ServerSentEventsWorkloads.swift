import Foundation
import ServerSentEvents

/// A streamed reply's Server-Sent Events decoded as an HTTP client hands them over, against the floor of
/// only finding their line ends, and against only making a `String` for each event's data and ID.
enum ServerSentEventsWorkloads {
  /// What one read of a socket typically returns: a TCP segment's payload on an Ethernet path.
  static let chunkSize = 1_400
  static let streamSize = 1 << 20

  static func all() -> [(name: String, make: () -> Workload)] {
    [
      ("sse.decode.1mb", { decode(textDeltas) }),
      ("sse.scan.1mb", { scan(textDeltas) }),
      ("sse.strings.1mb", { strings(textDeltas) }),
      ("sse.event.64kb", { longEvent(bytes: 1 << 16) }),
      ("sse.event.8mb", { longEvent(bytes: 1 << 23) }),
    ]
  }

  /// One event of `bytes` bytes made of 1 KiB data lines, fed in socket-sized chunks, per byte: a long event
  /// costs the same per byte as a short one (it was quadratic: every chunk copied the event so far, twice).
  static func longEvent(bytes: Int) -> Workload {
    let line = Array("data: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 1_018) + [UInt8(ascii: "\n")]
    var stream: [UInt8] = []
    stream.reserveCapacity(bytes + line.count + 1)
    while stream.count < bytes { stream += line }
    stream.append(UInt8(ascii: "\n"))
    let chunks = stride(from: 0, to: stream.count, by: chunkSize).map {
      Array(stream[$0..<min($0 + chunkSize, stream.count)])
    }
    let size = stream.count
    return Workload(name: "sse.event.\(bytes >> 20 > 0 ? "\(bytes >> 20)mb" : "\(bytes >> 10)kb")") {
      var decoder = ServerSentEventDecoder()
      var events = 0
      let nanoseconds = Harness.time {
        // An unlimited decoder never throws; a limited one would fail the precondition below.
        for chunk in chunks { events += (try? decoder.feed(chunk))?.count ?? 0 }
      }
      precondition(events == 1, "decoded \(events) events of one")
      return (size, nanoseconds)
    }
  }

  /// A reply as typed events (style B), one `text-delta` per word, cut into socket-sized chunks.
  struct Stream: Sendable {
    let chunks: [[UInt8]]
    let bytes: Int
    let events: Int
    /// Where each event's `data:` and `id:` values are in the whole stream, grouped by the chunk that
    /// completes the event.
    let valuesByChunk: [[(data: Range<Int>, id: Range<Int>)]]
  }

  /// Built on first use (a static `let` is lazy), once for all three workloads.
  static let textDeltas: Stream = {
    // Words of 1 to 13 bytes, a few of them not ASCII, in an order that does not repeat with the chunks.
    let words = [
      "I", "it", "the", "ship", "order", "Monday", "arrives", "tracking", "delivery", "confirmed", "café",
      "résumé", "international",
    ]
    var stream: [UInt8] = []
    var events = 0
    var pick = 7
    while true {
      pick = (pick &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
      let frame = "event: text-delta\ndata: {\"delta\":\"\(words[pick % words.count]) \"}\nid: \(events + 1)\n\n"
      guard stream.count + frame.utf8.count <= streamSize else { break }
      stream += frame.utf8
      events += 1
    }
    let chunks = stride(from: 0, to: stream.count, by: chunkSize).map {
      Array(stream[$0..<min($0 + chunkSize, stream.count)])
    }
    var valuesByChunk = [[(data: Range<Int>, id: Range<Int>)]](repeating: [], count: chunks.count)
    var data = 0..<0
    var id = 0..<0
    var lineStart = 0
    while let lineEnd = stream[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
      let line = stream[lineStart..<lineEnd]
      if line.starts(with: "data: ".utf8) { data = lineStart + 6..<lineEnd }
      if line.starts(with: "id: ".utf8) { id = lineStart + 4..<lineEnd }
      if line.isEmpty { valuesByChunk[lineEnd / chunkSize].append((data, id)) }
      lineStart = lineEnd + 1
    }
    return Stream(chunks: chunks, bytes: stream.count, events: events, valuesByChunk: valuesByChunk)
  }()

  /// Every chunk through `ServerSentEventDecoder.feed`, per byte.
  static func decode(_ stream: Stream) -> Workload {
    Workload(name: "sse.decode.1mb") {
      var decoder = ServerSentEventDecoder()
      var items = 0
      let nanoseconds = Harness.time {
        // An unlimited decoder never throws; a limited one would fail the precondition below.
        for chunk in stream.chunks { items += (try? decoder.feed(chunk))?.count ?? 0 }
      }
      precondition(items == stream.events, "decoded \(items) of \(stream.events) events")
      return (stream.bytes, nanoseconds)
    }
  }

  /// Only making, from known positions, what a decoder that gives each event its own strings returns for
  /// each chunk: a `String` for the data (which needs storage) and one for the ID, and the array, made and
  /// freed. The decoder did that until it shared one buffer per feed among its events; this shows what the
  /// strings alone cost beside `sse.decode.1mb`.
  static func strings(_ stream: Stream) -> Workload {
    let whole = Array(stream.chunks.joined())
    return Workload(name: "sse.strings.1mb") {
      var made = 0
      let nanoseconds = Harness.time {
        whole.withUnsafeBufferPointer { bytes in
          var items: [ServerSentEventDecoder.Item] = []
          for values in stream.valuesByChunk {
            items.removeAll(keepingCapacity: true)
            for (data, id) in values {
              let event = ServerSentEvent(
                type: "text-delta", data: String(decoding: UnsafeBufferPointer(rebasing: bytes[data]), as: UTF8.self),
                lastEventID: String(unsafeUninitializedCapacity: id.count) {
                  $0.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[id]))
                })
              items.append(.event(event))
            }
            made += items.count
          }
        }
      }
      precondition(made == stream.events, "made \(made) of \(stream.events) events")
      return (stream.bytes, nanoseconds)
    }
  }

  /// Only finding each chunk's line ends with `firstIndex(of:)`, per byte: the least a decoder must do.
  static func scan(_ stream: Stream) -> Workload {
    Workload(name: "sse.scan.1mb") {
      var lineEnds = 0
      let nanoseconds = Harness.time {
        for chunk in stream.chunks {
          var start = chunk.startIndex
          while let end = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            lineEnds += 1
            start = end + 1
          }
        }
      }
      precondition(lineEnds == stream.events * 4, "found \(lineEnds) line ends, expected \(stream.events * 4)")
      return (stream.bytes, nanoseconds)
    }
  }
}
