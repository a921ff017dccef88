import ChatAGUI
import Testing

@Suite("AG-UI 1.0 rules, event by event")
struct AGUIStreamVerifierTests {
  static let start = #"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#
  static let finish = #"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#

  struct Case: CustomTestStringConvertible, Sendable {
    var story: String
    var lines: [String]
    var rule: AGUIViolation.Rule?
    var testDescription: String { story }
  }

  static let cases: [Case] = [
    Case(
      story: "a run with text, a tool call and reasoning interleaved is fine",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        #"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#,
        #"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x","parentMessageId":"m"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
        #"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#, #"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#, finish,
      ], rule: nil),
    Case(
      story: "a stream that begins with text is rejected",
      lines: [
        #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#
      ], rule: .firstEvent),
    Case(story: "a stream may begin with RUN_ERROR", lines: [#"{"type":"RUN_ERROR","message":"no"}"#], rule: nil),
    Case(story: "a second RUN_STARTED inside a run", lines: [start, start], rule: .runAlreadyActive),
    Case(
      story: "text after RUN_FINISHED",
      lines: [
        start, finish, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
      ], rule: .eventAfterRunEnded),
    Case(
      story: "RUN_ERROR after RUN_FINISHED (a late failure) is allowed",
      lines: [
        start, finish, #"{"type":"RUN_ERROR","message":"late"}"#,
      ], rule: nil),
    Case(
      story: "anything but RUN_STARTED after RUN_ERROR",
      lines: [
        start, #"{"type":"RUN_ERROR","message":"x"}"#, #"{"type":"RUN_ERROR","message":"y"}"#,
      ], rule: .eventAfterRunEnded),
    Case(story: "a new run after one ended", lines: [start, finish, start, finish], rule: nil),
    Case(
      story: "RUN_FINISHED naming another run",
      lines: [
        start, #"{"type":"RUN_FINISHED","threadId":"t","runId":"other"}"#,
      ], rule: .runIDsDisagree),
    Case(
      story: "content for a message never started",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
      ], rule: .notOpen),
    Case(
      story: "a message started twice while open",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
      ], rule: .alreadyOpen),
    Case(
      story: "a message reopened after its end keeps appending",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#, #"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#, finish,
      ], rule: nil),
    Case(
      story: "a message reopened with another role",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#, #"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user"}"#,
      ], rule: .chunkOpener),
    Case(
      story: "a message left open at RUN_FINISHED",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#, finish,
      ], rule: .leftOpen),
    Case(
      story: "a step finished that never started",
      lines: [
        start, #"{"type":"STEP_FINISHED","stepName":"plan"}"#,
      ], rule: .notOpen),
    Case(
      story: "a step left open at RUN_FINISHED",
      lines: [
        start, #"{"type":"STEP_STARTED","stepName":"plan"}"#, finish,
      ], rule: .leftOpen),
    Case(
      story: "a reasoning span left open", lines: [start, #"{"type":"REASONING_START","messageId":"s"}"#, finish],
      rule: .leftOpen),
    Case(
      story: "a tool call reopened after its end",
      lines: [
        start, #"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x"}"#,
        #"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
        #"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x"}"#,
      ], rule: .reopenedToolCall),
    Case(
      story: "a result for a call never started",
      lines: [
        start, #"{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"ghost","content":"x"}"#,
      ], rule: .resultForUnknownCall),
    Case(
      story: "a text chunk opens, continues without an ID, and RUN_FINISHED closes it",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
        #"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
        finish,
      ], rule: nil),
    Case(
      story: "the first text chunk without a messageId",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_CHUNK","delta":"a"}"#,
      ], rule: .chunkOpener),
    Case(
      story: "the first tool chunk without its name",
      lines: [
        start, #"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","delta":"{}"}"#,
      ], rule: .chunkOpener),
    Case(
      story: "a later chunk changing the role",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
        #"{"type":"TEXT_MESSAGE_CHUNK","role":"user","delta":"b"}"#,
      ], rule: .chunkOpener),
    Case(
      story: "a chunk-opened message ended by hand is closed already: its END is not open",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
        #"{"type":"STATE_SNAPSHOT","snapshot":{}}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
      ], rule: .notOpen),
    Case(
      story: "a subagent's lane: its events carry its ID while it runs",
      lines: [
        start, #"{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"researcher"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"s1"}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"s1"}"#,
        #"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}"#, finish,
      ], rule: nil),
    Case(
      story: "an event in a subagent lane that is not open",
      lines: [
        start, #"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"ghost"}"#,
      ], rule: .subagentLane),
    Case(
      story: "an unknown event type is dropped, never fatal", lines: [start, #"{"type":"AGUI_PING"}"#, finish],
      rule: nil),
  ]

  @Test("a stream and the rule it breaks, if any", arguments: cases)
  func verdict(_ story: Case) throws {
    var verifier = AGUIStreamVerifier()
    do {
      for frame in try frames(story.lines) { _ = try verifier.accept(frame) }
      #expect(story.rule == nil, "accepted a stream that breaks \(story.rule?.rawValue ?? "")")
    } catch {
      #expect(error.rule == story.rule, "\(error)")
    }
  }

  @Test("chunks expand into start, content and end, with the ends the protocol synthesizes")
  func chunksExpand() throws {
    var verifier = AGUIStreamVerifier()
    var out: [AGUIEvent] = []
    for frame in try frames([
      Self.start, #"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hi"}"#,
      #"{"type":"TEXT_MESSAGE_CHUNK","delta":" there"}"#,
      #"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"lookup","delta":"{\"id\":"}"#,
      #"{"type":"TOOL_CALL_CHUNK","delta":"1}"}"#, Self.finish,
    ]) {
      out += try verifier.accept(frame).map(\.event)
    }
    #expect(
      out == [
        .runStarted(threadID: "t", runID: "r", parentRunID: nil, protocolVersion: nil),
        .textMessageStart(messageID: "m", role: "assistant", name: nil),
        .textMessageContent(messageID: "m", delta: "Hi"), .textMessageContent(messageID: "m", delta: " there"),
        .textMessageEnd(messageID: "m"),  // a tool-call chunk closes the text lane
        .toolCallStart(toolCallID: "c", name: "lookup", parentMessageID: nil),
        .toolCallArgs(toolCallID: "c", delta: #"{"id":"#), .toolCallArgs(toolCallID: "c", delta: "1}"),
        .toolCallEnd(toolCallID: "c"),  // the run's end closes every lane
        .runFinished(threadID: "t", runID: "r", outcome: .success(pendingToolCallIDs: [])),
      ])
    #expect(verifier.finish() == .complete)
  }

  @Test("a body that ends inside a run, or before any, is truncated, never complete")
  func truncation() throws {
    var verifier = AGUIStreamVerifier()
    #expect(verifier.finish() == .truncated)
    for frame in try frames([Self.start, #"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#]) {
      _ = try verifier.accept(frame)
    }
    #expect(verifier.finish() == .truncated)
  }
}
