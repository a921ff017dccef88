import ConversationState
import ConversationStore
import Foundation
import Reducers
import ServerSentEvents

/// A reply as an agent protocol streams it, about 1 MiB in socket-sized chunks: one text event per word
/// (a producer's shape), in messages of 400 words, decoded and mapped by the protocol's mapper, each
/// chunk's events coalesced as the transport does, and applied to a store. Against the SSE decode of the
/// same body (`sseDecode`, `sse.decode.<protocol>-body.1mb`): what reading the protocol costs over reading
/// its events alone.
struct AgentStreamBody: Sendable {
  let chunks: [[UInt8]]
  let bytes: Int
  let words: Int
  /// The body's SSE events (`data:` lines, one event each).
  let events: Int

  /// A body of `first`, then messages (`message(id)` gives a message's opening events, its event for a
  /// word, its closing events), then `last`.
  static func make(
    first: [String], last: [String], message: (String) -> ([String], (String) -> String, [String])
  ) -> AgentStreamBody {
    let words = ["I", "it", "the", "ship", "order", "Monday", "arrives", "tracking", "café", "résumé", "\"quoted\""]
    var events = first
    var size = first.reduce(0) { $0 + $1.utf8.count + 8 }
    var count = 0
    var index = 0
    var pick = 7
    while size < ServerSentEventsWorkloads.streamSize - 4_096 {
      let (opening, word, closing) = message("msg-\(index)-3f9a1c2e-8b7d-4e6f-a5c4-1d2e3f4a5b6c")
      var batch = opening
      for _ in 0..<400 {
        pick = (pick &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
        batch.append(word(words[pick % words.count].replacingOccurrences(of: "\"", with: "\\\"")))
        count += 1
      }
      batch += closing
      events += batch
      size += batch.reduce(0) { $0 + $1.utf8.count + 8 }
      index += 1
    }
    events += last
    let stream = Array(events.map { "data: \($0)\n\n" }.joined().utf8)
    let chunks = stride(from: 0, to: stream.count, by: ServerSentEventsWorkloads.chunkSize).map {
      Array(stream[$0..<min($0 + ServerSentEventsWorkloads.chunkSize, stream.count)])
    }
    return AgentStreamBody(chunks: chunks, bytes: stream.count, words: count, events: events.count)
  }

  /// The workload `name` (`sse.decode.<protocol>-body.1mb`): the same chunks through the SSE decoder alone,
  /// per byte, as `sse.decode.1mb` decodes its own body. The protocol's `decode` workload over this one is
  /// what its mapping and the store cost on the very same bytes.
  static func sseDecode(_ name: String, _ body: AgentStreamBody) -> Workload {
    Workload(name: name) {
      var decoder = ServerSentEventDecoder()
      var items = 0
      let nanoseconds = Harness.time {
        // An unlimited decoder never throws; a limited one would fail the precondition below.
        for chunk in body.chunks { items += (try? decoder.feed(chunk))?.count ?? 0 }
      }
      precondition(items == body.events, "decoded \(items) of \(body.events) events")
      return (body.bytes, nanoseconds)
    }
  }

  /// The workload `name`: `body` through the SSE decoder and `map`, into a store, per byte; `finish` must
  /// end the reply.
  static func decode<Mapper: ReplyStreamMapping>(
    _ name: String, _ body: AgentStreamBody, _ makeMapper: @escaping @Sendable () -> Mapper
  ) -> Workload {
    Workload(name: name) {
      var mapper = makeMapper()
      let store = Store(initialState: ConversationState(conversationID: "bench"), reducer: ConversationReducer())
      let request = Conversations.openReply(on: store.state, turn: 0) { store.send($0) }
      var decoder = ServerSentEventDecoder()
      let nanoseconds = Harness.time {
        for chunk in body.chunks {
          var events: [ReplyEvent] = []
          for case .event(let event) in (try? decoder.feed(chunk)) ?? [] {
            do throws(ChatError) {
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
      precondition((try? mapper.finish())?.isEmpty == false, "the reply did not finish")
      return (body.bytes, nanoseconds)
    }
  }

  /// The store actions the runtime sends for the events these replies have.
  private static func apply(_ event: ReplyEvent, _ request: RequestID, _ store: Store<ConversationReducer>) {
    switch event {
    case .partStarted(let id, let kind): store.send(.replyPartStarted(request, id, kind))
    case .partDelta(let id, let text): store.send(.replyPartDelta(request, id, text))
    case .partEnded(let id, let value): store.send(.replyPartEnded(request, id, encryptedValue: value))
    default: break
    }
  }
}

/// What the decode workloads need of a protocol's mapper.
protocol ReplyStreamMapping: SendableMetatype {
  mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError)
  mutating func finish() throws(ChatError) -> [ReplyEvent]
}
