import ChatAISDK
import ConversationState
import Testing

@Suite("UI message stream chunks")
struct UIMessageChunkTests {
  @Test(
    "every chunk type of the protocol reads into its case",
    arguments: [
      (
        #"{"type":"start","messageId":"m1","messageMetadata":{"model":"x"}}"#,
        UIMessageChunk.start(messageID: "m1", metadata: ["model": "x"])
      ),
      (#"{"type":"start"}"#, .start(messageID: nil, metadata: nil)),
      (#"{"type":"start-step"}"#, .startStep),
      (#"{"type":"finish-step"}"#, .finishStep),
      (#"{"type":"text-start","id":"t1"}"#, .textStart(id: "t1", providerMetadata: nil)),
      (#"{"type":"text-delta","id":"t1","delta":"Hi"}"#, .textDelta(id: "t1", delta: "Hi")),
      (#"{"type":"text-end","id":"t1","providerMetadata":{"a":1}}"#, .textEnd(id: "t1", providerMetadata: ["a": 1])),
      (#"{"type":"reasoning-start","id":"r1"}"#, .reasoningStart(id: "r1", providerMetadata: nil)),
      (#"{"type":"reasoning-delta","id":"r1","delta":"hm"}"#, .reasoningDelta(id: "r1", delta: "hm")),
      (#"{"type":"reasoning-end","id":"r1"}"#, .reasoningEnd(id: "r1", providerMetadata: nil)),
      (
        #"{"type":"tool-input-start","toolCallId":"c1","toolName":"get_weather","dynamic":true}"#,
        .toolInputStart(.init(toolCallID: "c1", toolName: "get_weather", dynamic: true))
      ),
      (
        #"{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"ci"}"#,
        .toolInputDelta(toolCallID: "c1", delta: #"{"ci"#)
      ),
      (
        #"{"type":"tool-input-available","toolCallId":"c1","toolName":"get_weather","input":{"city":"Berlin"},"providerExecuted":true}"#,
        .toolInputAvailable(
          .init(toolCallID: "c1", toolName: "get_weather", providerExecuted: true), input: ["city": "Berlin"])
      ),
      (
        #"{"type":"tool-input-error","toolCallId":"c1","toolName":"f","input":"{oops","errorText":"bad JSON"}"#,
        .toolInputError(.init(toolCallID: "c1", toolName: "f"), input: "{oops", errorText: "bad JSON")
      ),
      (
        #"{"type":"tool-approval-request","approvalId":"a1","toolCallId":"c1"}"#,
        .toolApprovalRequest(approvalID: "a1", toolCallID: "c1")
      ),
      (
        #"{"type":"tool-output-available","toolCallId":"c1","output":{"ok":true}}"#,
        .toolOutputAvailable(toolCallID: "c1", output: ["ok": true], preliminary: false)
      ),
      (
        #"{"type":"tool-output-available","toolCallId":"c1","output":1,"preliminary":true}"#,
        .toolOutputAvailable(toolCallID: "c1", output: 1, preliminary: true)
      ),
      (
        #"{"type":"tool-output-error","toolCallId":"c1","errorText":"boom"}"#,
        .toolOutputError(toolCallID: "c1", errorText: "boom")
      ),
      (#"{"type":"tool-output-denied","toolCallId":"c1"}"#, .toolOutputDenied(toolCallID: "c1")),
      (
        #"{"type":"tool-input-start","toolCallId":"c1","toolName":"f","providerMetadata":{"g":{"sig":"s"}},"toolMetadata":{"clientName":"mcp"}}"#,
        .toolInputStart(
          .init(
            toolCallID: "c1", toolName: "f", providerMetadata: ["g": ["sig": "s"]], toolMetadata: ["clientName": "mcp"])
        )
      ),
      (
        #"{"type":"tool-output-available","toolCallId":"c1","output":2,"providerMetadata":{"g":{"r":1}},"toolMetadata":{"x":1}}"#,
        .toolOutputAvailable(toolCallID: "c1", output: 2, preliminary: false, providerMetadata: ["g": ["r": 1]])
      ),
      (
        #"{"type":"tool-output-error","toolCallId":"c1","errorText":"boom","providerMetadata":{"g":{"r":2}}}"#,
        .toolOutputError(toolCallID: "c1", errorText: "boom", providerMetadata: ["g": ["r": 2]])
      ),
      (
        #"{"type":"source-url","sourceId":"s1","url":"https://e.com","title":"E"}"#,
        .sourceURL(sourceID: "s1", url: "https://e.com", title: "E")
      ),
      (
        #"{"type":"source-document","sourceId":"s2","mediaType":"application/pdf","title":"Manual","filename":"m.pdf"}"#,
        .sourceDocument(sourceID: "s2", mediaType: "application/pdf", title: "Manual", filename: "m.pdf")
      ),
      (
        #"{"type":"file","url":"https://e.com/a.png","mediaType":"image/png"}"#,
        .file(url: "https://e.com/a.png", mediaType: "image/png")
      ),
      (
        #"{"type":"data-weather","id":"w1","data":{"t":20}}"#,
        .data(name: "weather", id: "w1", data: ["t": 20], transient: false)
      ),
      (
        #"{"type":"data-status","data":"busy","transient":true}"#,
        .data(name: "status", id: nil, data: "busy", transient: true)
      ),
      (#"{"type":"message-metadata","messageMetadata":{"k":"v"}}"#, .messageMetadata(["k": "v"])),
      (#"{"type":"finish","finishReason":"stop"}"#, .finish(finishReason: "stop", metadata: nil)),
      (#"{"type":"finish"}"#, .finish(finishReason: nil, metadata: nil)),
      (#"{"type":"abort","reason":"user"}"#, .abort(reason: "user")),
      (#"{"type":"error","errorText":"overloaded"}"#, .error(errorText: "overloaded")),
      ("[DONE]", .done),
      (#"{"type":"text-delta","id":"t1","delta":"x","extra":null,"later":[1]}"#, .textDelta(id: "t1", delta: "x")),
      (#"{"type":"tool-call-streaming-v9","x":1}"#, .unknown(type: "tool-call-streaming-v9")),
    ])
  func reads(_ json: String, _ expected: UIMessageChunk) throws {
    #expect(try UIMessageChunk(json: json) == expected)
  }

  @Test(
    "a chunk that breaks the schema is INVALID_EVENT, naming what is wrong, never coerced",
    arguments: [
      ("not json", "not a JSON object"),
      ("[1,2]", "not a JSON object"),
      (#"{"delta":"x"}"#, "has no \"type\""),
      (#"{"type":7}"#, "chunk.type is not a string"),
      (#"{"type":"text-delta","id":"t1"}"#, "text-delta has no \"delta\""),
      (#"{"type":"text-delta","id":1,"delta":"x"}"#, "text-delta.id is not a string"),
      (#"{"type":"tool-input-available","toolCallId":"c","toolName":"f"}"#, "has no \"input\""),
      (
        #"{"type":"tool-output-available","toolCallId":"c","output":1,"preliminary":"yes"}"#,
        "preliminary is not true or false"
      ),
      (#"{"type":"data-x"}"#, "data-x has no \"data\""),
      (
        #"{"type":"tool-input-start","toolCallId":"c","toolName":"f","toolMetadata":[1]}"#,
        "toolMetadata is not an object"
      ),
      (#"{"type":"error"}"#, "error has no \"errorText\""),
    ])
  func rejects(_ json: String, _ why: String) {
    #expect {
      _ = try UIMessageChunk(json: json)
    } throws: { error in
      guard let error = error as? ChatError else { return false }
      return error.code == .invalidEvent && error.message.contains(why)
    }
  }
}
