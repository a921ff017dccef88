import Foundation
import ServerSentEvents
import Testing

// The Swift examples of the ServerSentEvents module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and run.

/// A frame of a JSON protocol carried in an event's data.
private struct Frame: Decodable, Equatable {
  var text: String
}

/// A response whose body arrives in chunks, as a host's HTTP client gives it.
private struct Response {
  var body: AsyncStream<[UInt8]>
}

@Suite("ServerSentEvents' doc-comment examples")
struct ServerSentEventsDocCommentTests {
  @Test("an event's data decodes as JSON without a string")
  func withDataUTF8() throws {
    let event = ServerSentEvent(data: #"{"text":"Hi"}"#)
    // DOCC-SERVERSENTEVENT-BEGIN
    let frame = try event.withDataUTF8 { try JSONDecoder().decode(Frame.self, from: Data($0)) }
    // DOCC-SERVERSENTEVENT-END
    #expect(frame == Frame(text: "Hi"))
  }

  @Test("events cut across chunks are decoded whole")
  func decoder() async throws {
    let response = Response(
      body: AsyncStream { continuation in
        continuation.yield(Array("event: greeting\ndata: Hel".utf8))
        continuation.yield(Array("lo\n\n".utf8))
        continuation.finish()
      })
    var handled: [String] = []
    func handle(_ type: String, _ data: String) { handled.append("\(type): \(data)") }
    // DOCC-SERVERSENTEVENTDECODER-BEGIN
    var decoder = ServerSentEventDecoder(limits: .init(maximumLineBytes: 1 << 20, maximumEventBytes: 1 << 20))
    for try await chunk in response.body {  // any sequence of byte chunks
      for item in try decoder.feed(chunk) {
        if case .event(let event) = item { handle(event.type, event.data) }
      }
    }
    // DOCC-SERVERSENTEVENTDECODER-END
    #expect(handled == ["greeting: Hello"])
  }
}
