import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

@testable import ChatAISDK

/// A text delta in producers' layout is taken from its bytes against a template
/// (`AISDKReplyMapper.hotTemplate`, `JSONByteScanner.templateString(after:)`); every stream maps to the same
/// events and the same chat as through the general path (`UIMessageChunk(json:)`, then `map(_ chunk:)`),
/// whatever its deltas hold and however they are laid out.
@Suite("AI SDK text deltas taken against their template")
struct AISDKHotDeltaTests {
  static let words = ["It ", "", "café ", "\\\"q\\\" ", "a\\u00e9\\n", "日本 ", "\\ud83d\\ude00", "x", "résumé "]

  /// A generated stream: deltas for two parts in several layouts, reasoning deltas, an end and a restart.
  static func stream(seed: UInt64) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var frames = [#"{"type":"start","messageId":"m1"}"#, #"{"type":"text-start","id":"t1"}"#]
    var open = ["t1"]
    for _ in 0..<60 {
      let id = open.isEmpty ? "t1" : open[next(open.count)]
      let word = words[next(words.count)]
      switch next(10) {
      case 0: frames.append(#"{ "type":"text-delta","id":"\#(id)","delta":"\#(word)" }"#)
      case 1: frames.append(#"{"type":"reasoning-delta","id":"\#(id)","delta":"\#(word)"}"#)
      case 2: frames.append(#"{"id":"\#(id)","type":"text-delta","delta":"\#(word)"}"#)
      case 3: frames.append(#"{"type":"text-delta","id":"\#(id)","delta":"\#(word)","providerMetadata":{"a":1}}"#)
      case 4 where open.count == 1:
        frames.append(#"{"type":"text-start","id":"t2"}"#)
        open.append("t2")
      case 5 where open.count == 2:
        frames.append(#"{"type":"text-end","id":"t2"}"#)
        open.removeLast()
      default: frames.append(#"{"type":"text-delta","id":"\#(id)","delta":"\#(word)"}"#)
      }
    }
    return frames + [#"{"type":"finish-step"}"#, #"{"type":"finish"}"#, "[DONE]"]
  }

  static func mapper() -> AISDKReplyMapper {
    AISDKReplyMapper(key: "k", conversationID: "c", chat: AISDKChat(), receivedAt: Date(timeIntervalSince1970: 1))
  }

  /// Events and chat, or the error, of `frames` fed as events (fast paths) or as chunks (general path).
  static func mapped(_ frames: [String], general: Bool) -> ([ReplyEvent], AISDKChat, ChatError?) {
    var mapper = mapper()
    var events: [ReplyEvent] = []
    do throws(ChatError) {
      for frame in frames {
        if general {
          try mapper.map(try UIMessageChunk(json: frame), into: &events)
        } else {
          try mapper.map(ServerSentEvent(data: frame), into: &events)
        }
      }
      events += try mapper.finish()
      return (events, mapper.chat, nil)
    } catch {
      return (events, mapper.chat, error)
    }
  }

  @Test("generated streams map alike through the template and the general path", arguments: 0..<64)
  func alike(seed: Int) {
    let frames = Self.stream(seed: UInt64(seed))
    let fast = Self.mapped(frames, general: false)
    let general = Self.mapped(frames, general: true)
    #expect(fast.0 == general.0)
    #expect(fast.1 == general.1)
    #expect(fast.2 == general.2)
    #expect(general.2 == nil, "a generated stream is a valid one")
  }

  @Test("the template takes producers' layout and nothing else")
  func template() {
    func taken(_ frame: String, known: String = "t1", isText: Bool = true) -> String? {
      guard let template = AISDKReplyMapper.hotTemplate(id: known, isText: isText) else { return nil }
      var text = frame
      return text.withUTF8 { bytes in
        // What the mapper calls: the delta, and the bytes it keeps for the part's text.
        var kept: [UInt8] = []
        let delta = JSONByteScanner.templateDelta(of: bytes, template: template, appendingTo: &kept)
        #expect((delta.map { Array($0.utf8) } ?? []) == kept, "the bytes kept are the delta's")
        return delta
      }
    }
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"It "}"#) == "It ")
    #expect(taken(#"{"type":"reasoning-delta","id":"t1","delta":"é"}"#, isText: false) == "é")
    #expect(taken(#"{"type":"reasoning-delta","id":"t1","delta":"é"}"#) == nil)
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"It "}"#, known: "t2") == nil)
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"\"q\""}"#) == "\"q\"")
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"It "} "#) == nil)
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"It ","x":1}"#) == nil)
    #expect(taken(#"{"type":"text-delta","id":"t1","delta":"It "#) == nil)
    #expect(taken(#"{"type":"text-delta","id":"t\"1","delta":"It "}"#, known: "t\"1") == nil)
  }
}
