import ConversationTesting
import Foundation
import Testing

@testable import Demo

@Suite("demo decode-sse, without a process")
struct SSEDecodeCommandTests {
  @Test("a typed event prints as one JSON line with its keys in order: event, data, id")
  func oneEvent() {
    var command = SSEDecodeCommand()

    let lines = command.lines(for: Array("event: text-delta\ndata: {\"delta\":\"Hi\"}\nid: 1\n\n".utf8))

    #expect(lines == [#"{"event": "text-delta", "data": "{\"delta\":\"Hi\"}", "id": "1"}"#])
    #expect(command.finish() == #"{"retry": [], "lastEventId": "1"}"#)
  }

  @Test("an event split across chunks prints when its blank line arrives, not before")
  func splitEvent() {
    var command = SSEDecodeCommand()

    let first = command.lines(for: Array("data: It ships\r".utf8))
    let second = command.lines(for: Array("\ndata: today\r".utf8))
    let third = command.lines(for: Array("\n\r\n".utf8))

    #expect(first.isEmpty && second.isEmpty)
    #expect(third == [#"{"event": "message", "data": "It ships\ntoday", "id": ""}"#])
  }

  @Test("retry values are kept, in order, for the closing line; a block cut off by the end is never printed")
  func retriesAndCutOff() {
    var command = SSEDecodeCommand()

    let lines = command.lines(
      for: Array("retry: 3000\n\nid: 7\ndata: a\n\nretry: 500\nid: 8\ndata: never finished\n".utf8))

    #expect(lines == [#"{"event": "message", "data": "a", "id": "7"}"#])
    #expect(command.finish() == #"{"retry": [3000, 500], "lastEventId": "7"}"#)
  }

  @Test("the conformance suite is there to check against")
  func casesLoaded() {
    #expect(SSEConformanceCase.suite.count == 149, "expected 149 cases at \(SSEConformanceCase.suiteFile.path)")
  }

  @Test(
    "every conformance case's events, retry values and last event ID come out of the JSON lines",
    arguments: SSEConformanceCase.suite)
  func conformance(_ testCase: SSEConformanceCase) throws {
    for feeding in testCase.feedings(pieceSizes: [3]) {
      var command = SSEDecodeCommand()
      let eventLines = feeding.chunks.flatMap { command.lines(for: $0) }
      let closing = try parse(command.finish(), as: ClosingLine.self)

      let events = try eventLines.map { try parse($0, as: SSEConformanceCase.Event.self) }
      let context = "\(testCase.name), fed \(feeding.name)"
      #expect(events == testCase.expected, "\(context)")
      let retries = closing.retry
      if testCase.retryAmbiguous == true {
        #expect(Array(retries.prefix(testCase.retry.count)) == testCase.retry, "\(context)")
      } else {
        #expect(retries == testCase.retry, "\(context)")
      }
      #expect(closing.lastEventId == testCase.lastEventIdAfter, "\(context)")
    }
  }
}

@Suite("demo decode-sse arguments")
struct DecodeSSEArgumentsTests {
  @Test("decode-sse alone decodes stdin; with --help it prints the usage")
  func mode() throws {
    #expect(try DemoArguments(["decode-sse"]).mode == .decodeSSE)
    #expect(try DemoArguments(["decode-sse", "--help"]).mode == .help)
    #expect(DemoArguments.usage.contains("demo decode-sse"))
  }

  @Test("anything after decode-sse is refused by name", arguments: ["--seed", "stream.txt", "--memory"])
  func refusesArguments(argument: String) {
    #expect(throws: DemoArguments.Invalid.self) { try DemoArguments(["decode-sse", argument]) }
    do {
      _ = try DemoArguments(["decode-sse", argument])
    } catch {
      #expect(
        error.description
          == "decode-sse takes no arguments, it reads the event stream on stdin (got \"\(argument)\")")
    }
  }
}

/// The closing line, as a JSON parser reads it.
private struct ClosingLine: Decodable {
  var retry: [Int]
  var lastEventId: String
}

/// Parses a printed line with Foundation's `JSONDecoder`, so the test does not trust the writer it checks.
/// (Not `JSONSerialization`: on Linux it drops a U+FEFF that starts a string, which two cases have.)
private func parse<Line: Decodable>(_ line: String, as type: Line.Type) throws -> Line {
  try JSONDecoder().decode(type, from: Data(line.utf8))
}
