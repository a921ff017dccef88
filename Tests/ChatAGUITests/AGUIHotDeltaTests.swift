import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

@testable import ChatAGUI

/// A `TEXT_MESSAGE_CONTENT` in producers' layout is taken from its bytes against a template
/// (`AGUIFastScan.hotTemplate`, `JSONByteScanner.templateString(after:)`); every stream maps to the same
/// events and the same thread as through the general path (`AGUIFrame(json:)`, then `map(_ frame:)`),
/// whatever its deltas hold and however they are laid out.
@Suite("AG-UI text deltas taken against their template")
struct AGUIHotDeltaTests {
  static let words = ["It ", "", "café ", "\\\"q\\\" ", "a\\u00e9\\n", "日本 ", "\\ud83d\\ude00", "x", "résumé "]
  static let run = #""threadId":"th","runId":"r1""#

  /// A generated stream: deltas for messages in several layouts, ends, new messages, a reasoning message.
  static func stream(seed: UInt64) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var frames = [#"{"type":"RUN_STARTED",\#(run)}"#]
    var message = 0
    var open = false
    for _ in 0..<60 {
      let id = "m\(message)"
      if !open {
        frames.append(#"{"type":"TEXT_MESSAGE_START","messageId":"\#(id)","role":"assistant"}"#)
        open = true
        continue
      }
      let word = words[next(words.count)]
      switch next(10) {
      case 0: frames.append(#"{ "type":"TEXT_MESSAGE_CONTENT","messageId":"\#(id)","delta":"\#(word)" }"#)
      case 1: frames.append(#"{"messageId":"\#(id)","type":"TEXT_MESSAGE_CONTENT","delta":"\#(word)"}"#)
      case 2: frames.append(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\#(id)","delta":"\#(word)","timestamp":7}"#)
      case 3:
        frames.append(#"{"type":"TEXT_MESSAGE_END","messageId":"\#(id)"}"#)
        message += 1
        open = false
      case 4:
        frames.append(#"{"type":"REASONING_MESSAGE_START","messageId":"r\#(message)"}"#)
        frames.append(#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r\#(message)","delta":"\#(word)"}"#)
        frames.append(#"{"type":"REASONING_MESSAGE_END","messageId":"r\#(message)"}"#)
      default: frames.append(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\#(id)","delta":"\#(word)"}"#)
      }
    }
    if open { frames.append(#"{"type":"TEXT_MESSAGE_END","messageId":"m\#(message)"}"#) }
    return frames + [#"{"type":"RUN_FINISHED",\#(run)}"#]
  }

  /// Events and thread, or the error, of `frames` fed as events (fast paths) or as frames (general path).
  static func mapped(_ frames: [String], general: Bool) -> ([ReplyEvent], AGUIThread, ChatError?) {
    var mapper = AGUIReplyMapper(
      runID: "r1", conversationID: "c", thread: AGUIThread(), receivedAt: Date(timeIntervalSince1970: 1))
    var events: [ReplyEvent] = []
    do throws(ChatError) {
      for frame in frames {
        if general {
          let decoded: AGUIFrame
          do throws(AGUIViolation) { decoded = try AGUIFrame(json: frame) } catch { throw error.chatError }
          try mapper.map(decoded, into: &events)
        } else {
          try mapper.map(ServerSentEvent(data: frame), into: &events)
        }
      }
      events += try mapper.finish()
      return (events, mapper.thread, nil)
    } catch {
      return (events, mapper.thread, error)
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
    func taken(_ frame: String, known: String = "m1") -> String? {
      guard let template = AGUIFastScan.hotTemplate(id: known) else { return nil }
      var text = frame
      return text.withUTF8 { bytes in
        // What the mapper calls: the delta, and the bytes it keeps for the part's text.
        var kept: [UInt8] = []
        let delta = JSONByteScanner.templateDelta(of: bytes, template: template, appendingTo: &kept)
        #expect((delta.map { Array($0.utf8) } ?? []) == kept, "the bytes kept are the delta's")
        return delta
      }
    }
    #expect(taken(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"It "}"#) == "It ")
    #expect(taken(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"It "}"#, known: "m2") == nil)
    #expect(taken(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\"q\""}"#) == "\"q\"")
    #expect(taken(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"It ","subagentRunId":"s"}"#) == nil)
    #expect(taken(#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"m1","delta":"It "}"#) == nil)
    #expect(taken(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"It "} "#) == nil)
  }
}
