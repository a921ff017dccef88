import ChatAGUI
import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import Reducers
import ServerSentEvents

/// An AG-UI reply as a producer streams it (Pydantic AI's shape: one `TEXT_MESSAGE_CONTENT` per word, a
/// message ID on each), through the SSE decoder, `AGUIReplyMapper` and the transport's coalescing into a
/// store, per byte: against `sse.decode.1mb`, what reading AG-UI costs over reading the events alone.
enum AGUIWorkloads {
  static let runID = "run-0b7f2c1e-5d3a-4e7b-9c1d-2f6a8e4b3c5d"

  /// 1 MiB of events in socket-sized chunks: the text in messages of 400 words, with a reasoning message
  /// beside every fifth.
  static let body: (chunks: [[UInt8]], bytes: Int, words: Int) = {
    let words = ["I", "it", "the", "ship", "order", "Monday", "arrives", "tracking", "café", "résumé", "\"quoted\""]
    var events = [#"{"type":"RUN_STARTED","threadId":"bench","runId":"\#(runID)"}"#]
    var size = events[0].utf8.count
    var count = 0
    var message = 0
    var pick = 7
    while size < ServerSentEventsWorkloads.streamSize - 4_096 {
      let id = "msg-\(message)-3f9a1c2e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"
      var batch = [#"{"type":"TEXT_MESSAGE_START","messageId":"\#(id)","role":"assistant"}"#]
      for _ in 0..<400 {
        pick = (pick &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
        let word = words[pick % words.count].replacingOccurrences(of: "\"", with: "\\\"")
        batch.append(#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\#(id)","delta":"\#(word) "}"#)
        count += 1
      }
      batch.append(#"{"type":"TEXT_MESSAGE_END","messageId":"\#(id)"}"#)
      events += batch
      size += batch.reduce(0) { $0 + $1.utf8.count + 8 }
      message += 1
    }
    events.append(#"{"type":"RUN_FINISHED","threadId":"bench","runId":"\#(runID)"}"#)
    let stream = Array(events.map { "data: \($0)\n\n" }.joined().utf8)
    let chunks = stride(from: 0, to: stream.count, by: ServerSentEventsWorkloads.chunkSize).map {
      Array(stream[$0..<min($0 + ServerSentEventsWorkloads.chunkSize, stream.count)])
    }
    return (chunks, stream.count, count)
  }()

  /// `agui.decode.1mb`: the body decoded, verified and mapped, each chunk's events coalesced as the
  /// transport does, and applied to a store, per byte.
  static func decode() -> Workload {
    Workload(name: "agui.decode.1mb") {
      let store = Store(initialState: ConversationState(conversationID: "bench"), reducer: ConversationReducer())
      let request = Conversations.openReply(on: store.state, turn: 0) { store.send($0) }
      var mapper = AGUIReplyMapper(
        runID: runID, conversationID: "bench", thread: AGUIThread(), receivedAt: Conversations.start)
      var decoder = ServerSentEventDecoder()
      let nanoseconds = Harness.time {
        for chunk in body.chunks {
          var events: [ReplyEvent] = []
          for case .event(let event) in (try? decoder.feed(chunk)) ?? [] {
            do {
              try mapper.map(event, into: &events)
            } catch {
              preconditionFailure("the mapper refused the benchmark's stream: \(error)")
            }
          }
          for event in ReplyEvent.coalesced(events) { apply(event, request, store) }
        }
      }
      let text = store.state.streamingReply?.text.string ?? ""
      precondition(text.split(separator: " ").count == body.words, "the store holds \(text.count) characters")
      precondition((try? mapper.finish())?.count == 1, "the run did not finish")
      return (body.bytes, nanoseconds)
    }
  }

  /// The store actions the runtime sends for the events this reply has.
  private static func apply(_ event: ReplyEvent, _ request: RequestID, _ store: Store<ConversationReducer>) {
    switch event {
    case .partStarted(let id, let kind): store.send(.replyPartStarted(request, id, kind))
    case .partDelta(let id, let text): store.send(.replyPartDelta(request, id, text))
    case .partEnded(let id, let value): store.send(.replyPartEnded(request, id, encryptedValue: value))
    default: break
    }
  }
}
