import ConversationState
import Foundation
import Testing

@testable import ChatAGUI

@Suite("AG-UI events: reading the wire")
struct AGUIEventDecodingTests {
  @Test(
    "a hot event reads the same on the fast path as on the general one, escapes and all",
    arguments: [
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#, true),
      (
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a \"quote\", a \\ and a line\nend","timestamp":1755300003100}"#,
        true
      ),
      (#"{ "type" : "TEXT_MESSAGE_CONTENT" , "delta" : "caf\u00e9 \ud83d\ude00 \/", "messageId" : "m1" }"#, true),
      (#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"thinking"}"#, true),
      (#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":\"Berlin\"}","timestamp":-1.5e3}"#, true),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"","subagentRunId":"sub-1"}"#, true),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","metadata":{"k":1}}"#, false),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","rawEvent":null}"#, false),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","timestamp":01}"#, false),
      (#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#, true),
      (#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"user","name":"Ana"}"#, true),
      (#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":null}"#, false),
      (#"{"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":5}"#, true),
      (#"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#, true),
      (#"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#, true),
      (#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#, true),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","role":"assistant"}"#, false),
      (#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"x"}"#, false),
    ])
  func fastPathAgrees(json: String, takesFastPath: Bool) throws {
    var text = json
    #expect(text.withUTF8 { AGUIFastScan.frame($0) != nil } == takesFastPath)
    guard json.contains("01}") == false else { return }  // not JSON: the general path refuses it (below)
    let frame = try AGUIFrame(json: json)
    // The general path, through JSONValue, is the reference the fast one must match.
    let object = try #require(try JSONDecoderValue.object(json))
    #expect(frame == (try AGUIFrame(object: object)))
  }

  @Test(
    "an ID the scanner already knows is reused only when the bytes are that ID",
    arguments: [
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"}"#, "m1"),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m12","delta":"x"}"#, "m1"),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a\"","delta":"x"}"#, #"a"#),
      (#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"x"}"#, "c1"),
    ])
  func knownIDs(json: String, known: String) throws {
    var text = json
    let fast = try #require(text.withUTF8 { AGUIFastScan.frame($0, knownID: known) })
    let object = try #require(try JSONDecoderValue.object(json))
    #expect(fast == (try AGUIFrame(object: object)))
  }

  @Test(
    "the hottest path takes only a text delta of the message streaming now, from the run's own agent",
    arguments: [
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi \u00e9"}"#, "Hi é"),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"Hi"}"#, nil),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi","subagentRunId":"s1"}"#, nil),
      (#"{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"Hi"}"#, nil),
      (#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi","role":"user"}"#, nil),
      (#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}"#, nil),
      (#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, nil),
    ] as [(String, String?)])
  func hottestPath(json: String, delta: String?) {
    var text = json
    #expect(text.withUTF8 { AGUIFastScan.textDelta($0, ofMessage: "m1") } == delta)
  }

  @Test("what each event type reads as")
  func eventsRead() throws {
    #expect(
      try AGUIFrame(json: #"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}"#).event
        == .runStarted(threadID: "t", runID: "r", parentRunID: nil, protocolVersion: "1.0"))
    #expect(
      try AGUIFrame(json: #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#).event
        == .textMessageStart(messageID: "m", role: "assistant", name: nil))
    #expect(
      try AGUIFrame(
        json:
          #"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["c1"]}}"#
      ).event == .runFinished(threadID: "t", runID: "r", outcome: .success(pendingToolCallIDs: ["c1"])))
    #expect(
      try AGUIFrame(json: #"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"someday"}}"#).event
        == .runFinished(threadID: "t", runID: "r", outcome: .success(pendingToolCallIDs: [])),
      "an outcome this client does not know reads as success, as the protocol says")
    let interrupted = try AGUIFrame(
      json:
        #"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"tool_call","toolCallId":"c1","message":"Approve?"}]}}"#
    )
    guard case .runFinished(_, _, .interrupt(let interrupts)) = interrupted.event else {
      Issue.record("not an interrupt: \(interrupted)")
      return
    }
    #expect(interrupts.map(\.id) == ["i1"])
    #expect(interrupts.first?.toolCallID == "c1")
    #expect(try AGUIFrame(json: #"{"type":"AGUI_PING"}"#).event == .unknown(type: "AGUI_PING"))
    #expect(
      try AGUIFrame(json: #"{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"s1"}"#)
        == AGUIFrame(.textMessageEnd(messageID: "m"), subagentRunID: "s1"))
  }

  @Test(
    "text that is not an event, a missing field or a wrong-typed one is malformed, never coerced",
    arguments: [
      #"{"type": broken json"#,
      #"[1,2]"#,
      #"{"messageId":"m1"}"#,
      #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}"#,
      #"{"type":"TEXT_MESSAGE_CONTENT","messageId":7,"delta":"x"}"#,
      #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":true}"#,
      #"{"type":"TOOL_CALL_START","toolCallId":"c1"}"#,
      #"{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":{"a":1}}"#,
      #"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}"#,
      #"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"x","content":{},"replace":"yes"}"#,
      #"{"type":"STATE_DELTA","delta":{"op":"add"}}"#,
      #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","timestamp":01}"#,
    ])
  func malformed(json: String) {
    #expect(throws: AGUIViolation.self) { try AGUIFrame(json: json) }
    do {
      _ = try AGUIFrame(json: json)
    } catch {
      #expect(error.rule == .malformed)
      #expect(error.chatError.code == .invalidEvent)
    }
  }
}

/// The general path's JSON object, for comparing with the fast path.
enum JSONDecoderValue {
  static func object(_ json: String) throws -> [String: JSONValue]? {
    guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return nil }
    return object
  }
}
