import Foundation
import Testing

/// A case of the vendored SSE conformance suite (`Tests/ServerSentEventsTests/Conformance/sse/cases.json`,
/// whose README names the sources): the fields `demo decode-sse` must reproduce. Read in place rather than
/// copied, so there is one copy of the suite to refresh.
struct SSEConformanceCase: Decodable, CustomTestStringConvertible, Sendable {
  struct Event: Decodable, Equatable, Sendable {
    var event: String
    var data: String
    var id: String
  }

  var name: String
  var inputHex: String
  var chunks: [String]?
  var chunksHex: [String]?
  var expected: [Event]
  var retry: [Int]
  var retryAmbiguous: Bool?
  var lastEventIdAfter: String

  var testDescription: String { name }

  /// The stream whole, in the source's own chunks when it has them, and in 3-byte pieces (which split CRLFs,
  /// UTF-8 sequences and the byte-order mark).
  var feedings: [(name: String, chunks: [[UInt8]])] {
    let bytes = Self.bytes(fromHex: inputHex)
    var feedings = [("whole", [bytes])]
    if let chunksHex { feedings.append(("source chunks", chunksHex.map(Self.bytes(fromHex:)))) }
    if let chunks { feedings.append(("source chunks", chunks.map { Array($0.utf8) })) }
    feedings.append(
      ("3-byte pieces", stride(from: 0, to: bytes.count, by: 3).map { Array(bytes[$0..<min($0 + 3, bytes.count)]) }))
    return feedings
  }

  private static func bytes(fromHex hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
      UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
  }

  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("ServerSentEventsTests/Conformance/sse/cases.json")

  static let all: [SSEConformanceCase] = {
    struct File: Decodable { var cases: [SSEConformanceCase] }
    guard let data = try? Data(contentsOf: file) else { return [] }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return (try? decoder.decode(File.self, from: data).cases) ?? []
  }()
}
