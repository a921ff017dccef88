import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

typealias ConformanceCase = SSEConformanceCase

enum Conformance {
  /// Beside this file, so a clone in any folder finds it.
  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Conformance/sse/cases.json")

  static let cases = SSEConformanceCase.load(from: file)
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
  func conformance(_ testCase: ConformanceCase) throws {
    for (feeding, pieces) in testCase.feedings() {
      var decoder = ServerSentEventDecoder()
      var events: [ServerSentEvent] = []
      var retries: [Int] = []
      for piece in pieces {
        for item in try decoder.feed(piece) {
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
