package import ConversationState
package import ConversationStore
import ServerSentEvents

/// The run lifecycle the agent backends share: one request's event stream over the transport, mapped by
/// its protocol's `ReplyMapping`, with what the stream carries besides the reply published in stream order
/// (delivered asynchronously; the newest 1,024 are kept while nobody reads). A backend keeps only how its
/// protocol encodes a request and which mapper reads the answer.
package struct AgentReplyStreams<SideEvent: Sendable>: Sendable {
  package let transport: HTTPTransport
  /// What the streams carry besides replies, for the host.
  package let sideEvents: AsyncStream<SideEvent>
  private let sink: AsyncStream<SideEvent>.Continuation

  package init(transport: HTTPTransport) {
    self.transport = transport
    (sideEvents, sink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
  }

  /// Ends `sideEvents` (the backend is gone).
  package func finish() { sink.finish() }

  /// The reply `endpoint` streams, read by `mapper`: the first request, or a resume's replay (`numbering`
  /// then drops what was applied); `noContent` is the error a `204` means. `skipped` is what building the
  /// request left out, reported first (`ReplyEvent.skipped`).
  package func stream<Mapper: ReplyMapping>(
    _ endpoint: Endpoint, _ mapper: Mapper, numbering: EventNumbering? = nil, noContent: ChatError? = nil,
    skipped: [ChatError] = []
  ) -> AsyncThrowingStream<ReplyEvent, any Error> where Mapper.SideEvent == SideEvent {
    let reply = mapped(endpoint, mapper, numbering: numbering, noContent: noContent)
    guard !skipped.isEmpty else { return reply }
    // Rare (a stored payload that could not be read): one task more to say so before the reply.
    return AsyncThrowingStream { continuation in
      let task = Task {
        for error in skipped { continuation.yield(.skipped(error)) }
        do {
          for try await event in reply { continuation.yield(event) }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  private func mapped<Mapper: ReplyMapping>(
    _ endpoint: Endpoint, _ mapper: Mapper, numbering: EventNumbering?, noContent: ChatError?
  ) -> AsyncThrowingStream<ReplyEvent, any Error> where Mapper.SideEvent == SideEvent {
    let sink = sink
    @Sendable func publish(_ mapper: inout Mapper) {
      for event in mapper.takeSideEvents() { sink.yield(event) }
    }
    return transport.eventStream(endpoint, mapper, opened: nil, numbering: numbering, noContent: noContent) {
      mapper, event, events throws(ChatError) in
      do throws(ChatError) {
        try mapper.map(event, into: &events)
        if mapper.hasSideEvents { publish(&mapper) }
      } catch {
        publish(&mapper)
        throw error
      }
    } end: { mapper throws(ChatError) in
      defer { publish(&mapper) }
      return try mapper.finish()
    } failed: { mapper, error in
      let failure = mapper.failure(ofTransport: error)
      publish(&mapper)
      return failure
    }
  }
}
