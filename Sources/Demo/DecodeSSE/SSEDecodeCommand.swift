import ServerSentEvents

/// `demo decode-sse`: a `text/event-stream` in, one JSON line per event out, and a closing line with the
/// retry values and the last event ID — for looking at what a server streams (`curl -N … | demo decode-sse`).
///
/// Pure: it turns chunks of bytes into lines, and `StandardInputDecoder` does the reading and writing.
///
/// ```swift
/// var command = SSEDecodeCommand()
/// let lines = command.lines(for: Array("data: Hi\n\n".utf8))  // [#"{"event": "message", "data": "Hi", "id": ""}"#]
/// let last = command.finish()  // #"{"retry": [], "lastEventId": ""}"#
/// ```
struct SSEDecodeCommand {
  private var decoder = ServerSentEventDecoder()
  private var retries: [Int] = []

  /// The lines for the events `chunk` completed, in order, without line ends; retry values are kept for
  /// `finish()`.
  mutating func lines(for chunk: [UInt8]) -> [String] {
    var lines: [String] = []
    let items: [ServerSentEventDecoder.Item]
    do {
      items = try decoder.feed(chunk)
    } catch {
      // The decoder has no limits here (this tool shows whatever a server sends), so this never happens.
      return [#"{"error": \#(JSONText.string(error.description))}"#]
    }
    for item in items {
      switch item {
      case .event(let event):
        lines.append(
          #"{"event": \#(JSONText.string(event.type)), "data": \#(JSONText.string(event.data)), "#
            + #""id": \#(JSONText.string(event.lastEventID))}"#)
      case .retry(let milliseconds):
        retries.append(milliseconds)
      }
    }
    return lines
  }

  /// Ends the input (an unterminated last block is dropped, as the standard says) and returns the closing
  /// line: every retry value, in order, and the decoder's last event ID.
  mutating func finish() -> String {
    decoder.finish()
    let retryList = retries.map(String.init).joined(separator: ", ")
    return #"{"retry": [\#(retryList)], "lastEventId": \#(JSONText.string(decoder.lastEventID))}"#
  }
}
