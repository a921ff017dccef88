public import ConversationState

extension ClientDiagnostic {
  /// A bounded stream of a client's diagnostics and the sink to give the client
  /// (`ChatClientOptions.diagnostics`). The stream keeps the newest `limit` events (at least 1) that its
  /// consumer has not read yet: a consumer that falls further behind loses the oldest of them, never the
  /// latest, and the client never waits for it. The stream ends when the client closes or is dropped.
  ///
  /// ```swift
  /// let (events, sink) = ClientDiagnostic.makeStream(bufferingNewest: 256)
  /// let client = ChatClient(backend: MyServer(), options: ChatClientOptions(diagnostics: sink))
  /// Task { for await event in events { log(event) } }
  /// ```
  ///
  /// Give each client a sink of its own.
  public static func makeStream(bufferingNewest limit: Int = 256) -> (stream: AsyncStream<ClientDiagnostic>, sink: Sink)
  {
    let (stream, continuation) = AsyncStream<ClientDiagnostic>.makeStream(
      bufferingPolicy: .bufferingNewest(max(1, limit)))
    return (stream, Sink(continuation: continuation))
  }

  /// Where a client puts its diagnostics: the writing end of a stream made by `makeStream(bufferingNewest:)`.
  /// Writing never blocks and never runs the consumer's code; the client writes outside its lock.
  public struct Sink: Sendable {
    let continuation: AsyncStream<ClientDiagnostic>.Continuation

    func yield(_ event: ClientDiagnostic) { continuation.yield(event) }

    func finish() { continuation.finish() }
  }
}
