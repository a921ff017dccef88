import Foundation
import ServerSentEvents
import Testing

/// One case of `Conformance/sse/cases.json` (public SSE test suites, transcribed as data; vendored from the
/// team's shared conformance folder, with its README naming each source and licence).
struct ConformanceCase: Decodable, CustomTestStringConvertible, Sendable {
  struct Expected: Decodable, Sendable {
    var event: String
    var data: String
    var id: String
  }

  var name: String
  var inputHex: String
  var chunks: [String]?
  var chunksHex: [String]?
  var expected: [Expected]
  var retry: [Int]
  var retryAmbiguous: Bool?
  var lastEventIdAfter: String

  var testDescription: String { name }

  var bytes: [UInt8] { Self.bytes(fromHex: inputHex) }

  static func bytes(fromHex hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      result.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return result
  }

  /// Every way the case is fed: whole, in the source's own chunks, byte by byte, in 2- and 3-byte pieces.
  var feedings: [(String, [[UInt8]])] {
    let all = bytes
    var feedings: [(String, [[UInt8]])] = [("whole", [all])]
    if let chunksHex { feedings.append(("chunks", chunksHex.map(Self.bytes(fromHex:)))) }
    if let chunks { feedings.append(("chunks", chunks.map { Array($0.utf8) })) }
    for size in [1, 2, 3] {
      feedings.append(
        (
          "\(size)-byte pieces",
          stride(from: 0, to: all.count, by: size).map { Array(all[$0..<min($0 + size, all.count)]) }
        ))
    }
    return feedings
  }
}

enum Conformance {
  /// Beside this file, so a clone in any folder finds it.
  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Conformance/sse/cases.json")

  static let cases: [ConformanceCase] = {
    struct File: Decodable { var cases: [ConformanceCase] }
    guard let data = try? Data(contentsOf: file) else { return [] }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return (try? decoder.decode(File.self, from: data).cases) ?? []
  }()
}

@Suite("Server-Sent Events conformance")
struct ConformanceTests {
  @Test("the vendored conformance cases are present and all read")
  func casesLoaded() {
    #expect(Conformance.cases.count == 149, "expected 149 cases at \(Conformance.file.path)")
  }

  @Test(
    "every case decodes to the expected events, retry values and last event ID, however it is fed",
    arguments: Conformance.cases)
  func conformance(_ testCase: ConformanceCase) {
    for (feeding, pieces) in testCase.feedings {
      var decoder = ServerSentEventDecoder()
      var events: [ServerSentEvent] = []
      var retries: [Int] = []
      for piece in pieces {
        for item in decoder.feed(piece) {
          switch item {
          case .event(let event): events.append(event)
          case .retry(let milliseconds): retries.append(milliseconds)
          }
        }
      }
      decoder.finish()
      let expected = testCase.expected.map { ServerSentEvent(type: $0.event, data: $0.data, lastEventID: $0.id) }
      #expect(events == expected, "\(testCase.name), fed \(feeding)")
      if testCase.retryAmbiguous == true {
        #expect(Array(retries.prefix(testCase.retry.count)) == testCase.retry, "\(testCase.name), fed \(feeding)")
      } else {
        #expect(retries == testCase.retry, "\(testCase.name), fed \(feeding)")
      }
      #expect(decoder.lastEventID == testCase.lastEventIdAfter, "\(testCase.name), fed \(feeding)")
    }
  }
}
