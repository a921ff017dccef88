import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Testing

@testable import ChatOpenAI

/// The chunk after the first is read from its bytes when it only streams text (`completionContent`); every
/// other chunk, and every chunk the general path would refuse, still reads as the general path reads it.
@Suite("Chat Completions chunks read from their bytes")
struct ChatCompletionsFastPathTests {
  static let head = #""id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m""#

  /// A chunk after the first, what the answer's text is then, and how the stream ends.
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var chunk: String
    var text: String
    var error: ChatError.Code? = nil
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "text", chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":"It "},"finish_reason":null}]}"#,
      text: "Hello It "),
    Case(
      name: "role and text, spaced",
      chunk:
        #"{ \#(head) , "choices" : [ { "index" : 0 , "delta" : { "role" : "assistant" , "content" : "It " } } ] }"#,
      text: "Hello It "),
    Case(
      name: "escapes",
      chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":"\"q\" \\ \u00e9\n"},"finish_reason":null}]}"#,
      text: "Hello \"q\" \\ é\n"),
    Case(
      name: "fields it ignores",
      chunk:
        #"{\#(head),"system_fingerprint":"fp","service_tier":"default","obfuscation":"x1","choices":[{"index":0,"delta":{"content":"It "},"logprobs":{"content":[{"token":"It","logprob":-0.1}]},"finish_reason":null}],"usage":null}"#,
      text: "Hello It "),
    Case(
      name: "another choice",
      chunk: #"{\#(head),"choices":[{"index":1,"delta":{"content":"other"},"finish_reason":null}]}"#, text: "Hello "),
    Case(
      name: "index 10", chunk: #"{\#(head),"choices":[{"index":10,"delta":{"content":"other"}}]}"#, text: "Hello "),
    Case(
      name: "text and its finish",
      chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":"It "},"finish_reason":"stop"}]}"#,
      text: "Hello It "),
    Case(name: "empty text", chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":""}}]}"#, text: "Hello "),
    Case(
      name: "text beside a tool call",
      chunk:
        #"{\#(head),"choices":[{"index":0,"delta":{"content":"It ","tool_calls":[{"index":0,"id":"call_1","function":{"name":"lookup","arguments":"{}"}}]}}]}"#,
      text: "Hello It "),
    Case(
      name: "an id that is not a string",
      chunk: #"{"id":7,"choices":[{"index":0,"delta":{"content":"It "}}]}"#, text: "Hello ", error: .invalidEvent),
    Case(
      name: "text that is not a string",
      chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":7}}]}"#, text: "Hello ", error: .invalidEvent),
    Case(
      name: "an error",
      chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":"It "}}],"error":{"message":"overloaded"}}"#,
      text: "Hello ", error: .providerError),
    Case(
      name: "not JSON", chunk: #"{\#(head),"choices":[{"index":0,"delta":{"content":"It "#, text: "Hello ",
      error: .invalidEvent),
  ]

  @Test("a chunk after the first reads as the general path reads it", arguments: cases)
  func readsAsTheGeneralPath(example: Case) {
    // Given an answer that has begun, when the chunk comes and the stream ends
    let stream = MappedOpenAIStream(
      chat: [Chunk.role, Chunk.content("Hello "), example.chunk, Chunk.finish("stop"), "[DONE]"])

    // Then the text, and how it ends, are what the chunk says
    #expect(stream.text == example.text)
    #expect(stream.error?.code == example.error)
    if example.error == nil { #expect(stream.finished?.finishReason == .stop) }
  }

  @Test(
    "only a chunk that streams nothing but text is read from its bytes; the rest go the general way",
    arguments: [0, 1, 2, 3])
  func takenFromBytes(index: Int) {
    var chunk = Self.cases[index].chunk
    let read = chunk.withUTF8 { bytes in
      var scanner = JSONByteScanner(bytes: bytes)
      return scanner.completionContent()
    }
    #expect(read != nil && "Hello " + read! == Self.cases[index].text)
    for other in Self.cases[4...] where other.name != "empty text" {
      var text = other.chunk
      let taken = text.withUTF8 { bytes in
        var scanner = JSONByteScanner(bytes: bytes)
        return scanner.completionContent()
      }
      #expect(taken == nil, "\(other.name) must take the general path")
    }
  }

  @Test("text after reasoning ends the reasoning first, as on the general path")
  func textAfterReasoning() {
    let reasoning = #"{\#(Self.head),"choices":[{"index":0,"delta":{"reasoning_content":"Thinking."}}]}"#
    let stream = MappedOpenAIStream(chat: [Chunk.role, reasoning, Chunk.content("Hi"), Chunk.finish("stop"), "[DONE]"])
    let ended = stream.events.firstIndex { if case .partEnded = $0 { true } else { false } }
    let text = stream.events.firstIndex { if case .partStarted(_, .text) = $0 { true } else { false } }
    #expect(ended != nil && text != nil && ended! < text!)
    #expect(stream.text == "Hi")
  }
}
