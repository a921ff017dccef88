public import ConversationState
public import ConversationStore
public import ServerSentEvents

/// The one contract every reply mapper keeps: our HTTP protocol's (`ReplyStreamMapper`), AG-UI's, the AI
/// SDK's and OpenAI's two. A mapper is pure and incremental: it is fed each Server-Sent Event of one reply's
/// body in order (`map`), then told how the body ended: `finish()` at its end, or `failure(ofTransport:)`
/// when the transport failed. A throw ends the reply with that error; nothing is fed after it.
///
/// What a stream carries besides the reply (AG-UI's custom events, the AI SDK's transient data) is the
/// mapper's side events, taken in stream order; a protocol without any says `SideEvent == Never`.
public protocol ReplyMapping: Sendable {
  /// What the stream carries besides the reply.
  associatedtype SideEvent: Sendable
  /// Appends the store events one Server-Sent Event stands for to `events`; throws the error the reply ends
  /// with (`INVALID_EVENT` for a frame it cannot read, the server's own error).
  mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError)
  /// The store events the body's end stands for, or the error the reply ends with (`INCOMPLETE_STREAM` for
  /// a body that ends before the reply finished).
  mutating func finish() throws(ChatError) -> [ReplyEvent]
  /// The error a transport failure of the body ends the reply with (a dropped connection inside a run is
  /// `INCOMPLETE_STREAM` for the agent protocols; our HTTP protocol keeps it as it is, and resumes).
  mutating func failure(ofTransport error: ChatError) -> ChatError
  /// Whether side events wait to be taken (checked on every event: it must be O(1)).
  var hasSideEvents: Bool { get }
  /// Takes the side events gathered so far, oldest first.
  mutating func takeSideEvents() -> [SideEvent]
}
