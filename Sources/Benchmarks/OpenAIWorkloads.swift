import ChatOpenAI
import ConversationState
import ConversationStore

/// A Chat Completions reply (one `content` chunk per word, as OpenAI streams) through `ChatCompletionsMapper`.
enum OpenAIWorkloads {
  static let body = AgentStreamBody.make(first: [], last: [finish, "[DONE]"]) { _ in
    ([], { word in chunk(#"{"content":"\#(word) "}"#, reason: "null") }, [])
  }

  static let finish = chunk("{}", reason: #""stop""#)

  static func chunk(_ delta: String, reason: String) -> String {
    #"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_fc9f1d7035","choices":[{"index":0,"delta":\#(delta),"logprobs":null,"finish_reason":\#(reason)}]}"#
  }

  /// `openai.decode.1mb`.
  static func decode() -> Workload {
    AgentStreamBody.decode("openai.decode.1mb", body) {
      ChatCompletionsMapper(
        key: "bench", conversationID: "bench", transcript: OpenAITranscript(), receivedAt: Conversations.start)
    }
  }
}

extension ChatCompletionsMapper: ReplyStreamMapping {}
