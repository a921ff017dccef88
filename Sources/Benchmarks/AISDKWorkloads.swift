import ChatAISDK
import ConversationState
import ConversationStore

/// A UI message stream reply (`text-delta` per word, as `streamText` writes them) through `AISDKReplyMapper`.
enum AISDKWorkloads {
  static let body = AgentStreamBody.make(
    first: [#"{"type":"start","messageId":"msg-bench"}"#, #"{"type":"start-step"}"#],
    last: [#"{"type":"finish-step"}"#, #"{"type":"finish","finishReason":"stop"}"#, "[DONE]"]
  ) { id in
    (
      [#"{"type":"text-start","id":"\#(id)"}"#],
      { word in #"{"type":"text-delta","id":"\#(id)","delta":"\#(word) "}"# },
      [#"{"type":"text-end","id":"\#(id)"}"#]
    )
  }

  /// `aisdk.decode.1mb`.
  static func decode() -> Workload {
    AgentStreamBody.decode("aisdk.decode.1mb", body) {
      AISDKReplyMapper(key: "bench", conversationID: "bench", chat: AISDKChat(), receivedAt: Conversations.start)
    }
  }
}

extension AISDKReplyMapper: ReplyStreamMapping {}
