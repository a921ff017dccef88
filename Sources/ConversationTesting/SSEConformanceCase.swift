package import Foundation
import Testing

/// A case of the vendored Server-Sent Events conformance suite
/// (`Tests/ServerSentEventsTests/Conformance/sse/cases.json`, whose README names each source and licence),
/// for any test that decodes event streams: the decoder's own, and `demo decode-sse`'s.
package struct SSEConformanceCase: Decodable, CustomTestStringConvertible, Sendable {
  /// An event the case expects, as the suite writes it (`id` is the last event ID at dispatch).
  package struct Event: Decodable, Equatable, Sendable {
    package var event: String
    package var data: String
    package var id: String
  }

  package var name: String
  package var inputHex: String
  package var chunks: [String]?
  package var chunksHex: [String]?
  package var expected: [Event]
  package var retry: [Int]
  /// When true, only the listed prefix of `retry` is certain.
  package var retryAmbiguous: Bool?
  package var lastEventIdAfter: String

  package var testDescription: String { name }

  /// The stream's bytes.
  package var bytes: [UInt8] { Self.bytes(fromHex: inputHex) }

  /// Every way the case is fed: whole, in the source's own chunks when it has them, and in pieces of each of
  /// `pieceSizes` bytes (small pieces split CRLFs, UTF-8 sequences and the byte-order mark).
  package func feedings(pieceSizes: [Int] = [1, 2, 3]) -> [(name: String, chunks: [[UInt8]])] {
    let all = bytes
    var feedings: [(name: String, chunks: [[UInt8]])] = [("whole", [all])]
    if let chunksHex { feedings.append(("source chunks", chunksHex.map(Self.bytes(fromHex:)))) }
    if let chunks { feedings.append(("source chunks", chunks.map { Array($0.utf8) })) }
    for size in pieceSizes {
      feedings.append(
        (
          "\(size)-byte pieces",
          stride(from: 0, to: all.count, by: size).map { Array(all[$0..<min($0 + size, all.count)]) }
        ))
    }
    return feedings
  }

  /// Every case in `file` (the suite's `cases.json`); empty when it cannot be read, which the caller's
  /// count check reports.
  package static func load(from file: URL) -> [SSEConformanceCase] {
    struct File: Decodable { var cases: [SSEConformanceCase] }
    guard let data = try? Data(contentsOf: file) else { return [] }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return (try? decoder.decode(File.self, from: data).cases) ?? []
  }

  private static func bytes(fromHex hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
      UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
  }
}
