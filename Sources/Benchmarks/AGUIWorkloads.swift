import ChatAGUI
import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import Reducers
import ServerSentEvents

/// An AG-UI reply as a producer streams it (Pydantic AI's shape: one `TEXT_MESSAGE_CONTENT` per word, a
/// message ID on each), through the SSE decoder, `AGUIReplyMapper` and the transport's coalescing into a
/// store, per byte: against `sse.decode.agui-body.1mb` (the same bytes through the SSE decoder alone), what
/// reading AG-UI costs over reading its events.
enum AGUIWorkloads {
  static let runID = "run-0b7f2c1e-5d3a-4e7b-9c1d-2f6a8e4b3c5d"

  /// 1 MiB of events in socket-sized chunks: the text in messages of 400 words.
  static let body = AgentStreamBody.make(
    first: [#"{"type":"RUN_STARTED","threadId":"bench","runId":"\#(runID)"}"#],
    last: [#"{"type":"RUN_FINISHED","threadId":"bench","runId":"\#(runID)"}"#]
  ) { id in
    (
      [#"{"type":"TEXT_MESSAGE_START","messageId":"\#(id)","role":"assistant"}"#],
      { word in #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\#(id)","delta":"\#(word) "}"# },
      [#"{"type":"TEXT_MESSAGE_END","messageId":"\#(id)"}"#]
    )
  }

  /// `agui.decode.1mb`: the body decoded, verified and mapped, each chunk's events coalesced as the
  /// transport does, and applied to a store, per byte.
  static func decode() -> Workload {
    AgentStreamBody.decode("agui.decode.1mb", body) {
      AGUIReplyMapper(runID: runID, conversationID: "bench", thread: AGUIThread(), receivedAt: Conversations.start)
    }
  }
}

extension AGUIReplyMapper: ReplyStreamMapping {}
