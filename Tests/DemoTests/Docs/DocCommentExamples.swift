import Testing

@testable import Demo

// The Swift example of the demo's doc comments, compiled between `DOCC-` markers (`DocumentationCodeTests`
// checks each doc comment's Swift blocks against them) and run.

@Suite("Demo's doc-comment examples")
struct DemoDocCommentTests {
  @Test("decode-sse prints one JSON line per event, then the retry values and the last event ID")
  func sseDecodeCommand() {
    // DOCC-SSEDECODECOMMAND-BEGIN
    var command = SSEDecodeCommand()
    let lines = command.lines(for: Array("data: Hi\n\n".utf8))  // [#"{"event": "message", "data": "Hi", "id": ""}"#]
    let last = command.finish()  // #"{"retry": [], "lastEventId": ""}"#
    // DOCC-SSEDECODECOMMAND-END
    #expect(lines == [#"{"event": "message", "data": "Hi", "id": ""}"#])
    #expect(last == #"{"retry": [], "lastEventId": ""}"#)
  }
}
