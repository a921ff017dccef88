import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

@testable import ChatOpenAI

/// A content chunk with the same bytes as the last one the scanner took, around another plain string, is
/// taken against that template (`completionHotContent`). Every stream maps to the same events and the same
/// transcript as when no chunk can match the one before it (each laid out apart from its neighbours, so each
/// is read in full), whatever its chunks hold.
@Suite("Chat Completions content chunks taken against the last one")
struct ChatCompletionsHotContentTests {
  static let words = ["It ", "", "café ", "\\\"q\\\" ", "a\\u00e9\\n", "日本 ", "\\ud83d\\ude00", "x", "résumé "]

  /// A chunk; `gap` spaces before `choices` (a layout of its own).
  static func chunk(_ delta: String, created: Int = 1, reason: String = "null", gap: Int = 0) -> String {
    let space = String(repeating: " ", count: gap)
    return
      #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":\#(created),"model":"m",\#(space)"choices":[{"index":0,"delta":\#(delta),"logprobs":null,"finish_reason":\#(reason)}]}"#
  }

  /// A generated stream's chunks, each with its layout (`gap`): text in several shapes, reasoning, a tool
  /// call, another second's `created`.
  static func stream(seed: UInt64, gaps: (Int) -> Int) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var frames = [chunk(#"{"role":"assistant","content":""}"#, gap: gaps(0))]
    for index in 1..<60 {
      let word = words[next(words.count)]
      let gap = gaps(index)
      switch next(12) {
      case 0: frames.append(chunk(#"{"reasoning_content":"\#(word)"}"#, gap: gap))
      case 1: frames.append(chunk(#"{"content":"\#(word)"}"#, created: 2, gap: gap))
      case 2: frames.append(chunk(#"{"role":"assistant","content":"\#(word)"}"#, gap: gap))
      case 3: frames.append(chunk(#"{"content":"\#(word)"}"#, reason: #""length""#, gap: gap))
      case 4:
        frames.append(
          chunk(
            #"{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}]}"#, gap: gap))
      default: frames.append(chunk(#"{"content":"\#(word)"}"#, gap: gap))
      }
    }
    return frames + [chunk("{}", reason: #""stop""#), "[DONE]"]
  }

  static func mapped(_ frames: [String]) -> ([ReplyEvent], OpenAITranscript, ChatError?) {
    var mapper = ChatCompletionsMapper(
      key: "k", conversationID: "c", transcript: OpenAITranscript(), receivedAt: Date(timeIntervalSince1970: 1))
    var events: [ReplyEvent] = []
    do throws(ChatError) {
      for frame in frames { try mapper.map(ServerSentEvent(data: frame), into: &events) }
      events += try mapper.finish()
      return (events, mapper.transcript, nil)
    } catch {
      return (events, mapper.transcript, error)
    }
  }

  @Test("generated streams map alike against the template and read in full", arguments: 0..<64)
  func alike(seed: Int) {
    // The same chunks laid out alike (most match the one before) and each apart from its neighbours (none
    // can match: no two have a prefix of the same length).
    let hot = Self.mapped(Self.stream(seed: UInt64(seed)) { _ in 0 })
    let full = Self.mapped(Self.stream(seed: UInt64(seed)) { $0 })
    #expect(hot.0 == full.0)
    #expect(hot.1 == full.1)
    #expect(hot.2 == full.2)
    #expect(full.2 == nil, "a generated stream is a valid one")
  }

  @Test("the template takes a chunk with the same bytes around another string, and nothing else")
  func template() {
    var first = Self.chunk(#"{"content":"It "}"#)
    var contentAt = (open: 0, close: 0)
    let read = first.withUTF8 { bytes in
      var scanner = JSONByteScanner(bytes: bytes)
      return scanner.completionContent(contentAt: &contentAt)
    }
    #expect(read == "It ")
    let bytes = Array(first.utf8)
    let frame = Array(bytes[...contentAt.open]) + Array(bytes[(contentAt.close + 1)...])
    func taken(_ chunk: String) -> String? {
      var text = chunk
      return text.withUTF8 { bytes in
        var scanner = JSONByteScanner(bytes: bytes)
        return frame.withUnsafeBufferPointer { frame in
          switch scanner.completionHotContent(frame: frame, prefix: contentAt.open + 1) {
          case .raw(let raw)?: String(decoding: raw, as: UTF8.self)
          case .decoded(let text)?: text
          case nil: nil
          }
        }
      }
    }
    #expect(taken(Self.chunk(#"{"content":"café "}"#)) == "café ")
    #expect(taken(Self.chunk(#"{"content":""}"#)) == "")
    #expect(taken(Self.chunk(#"{"content":"\"q\""}"#)) == "\"q\"")
    #expect(taken(Self.chunk(#"{"content":"It "}"#, created: 2)) == nil)
    #expect(taken(Self.chunk(#"{"content":"It "}"#, reason: #""stop""#)) == nil)
    #expect(taken(Self.chunk(#"{"content":"It "}"#) + " ") == nil)
    #expect(taken(Self.chunk(#"{"content":"It ","refusal":"no"}"#)) == nil)
  }
}
