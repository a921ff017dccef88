/// Where an event sits in the stream that carried it, as the protocol numbers it: a sequence number (the
/// Responses API's `sequence_number`, a server's own counter) or an event ID (SSE `id:`, sent back as
/// `Last-Event-ID`). A streaming reply remembers the last one it applied (`StreamingReply.resumePosition`),
/// so an adapter can resume a dropped stream from there, and an event the resumed stream replays is dropped
/// rather than applied twice (`ConversationAction.positioned`).
///
/// ```swift
/// // In a backend's reply stream: each event with the position its protocol gave it.
/// continuation.yield(.positioned(.sequence(event.sequenceNumber), .delta(event.text)))
/// ```
public enum StreamPosition: Hashable, Sendable, Codable {
  /// An increasing number: an event at or below the last one applied is a replay.
  case sequence(UInt64)
  /// An opaque ID with no order: an event with the ID of the last one applied is a replay of it. (A
  /// stream resumed by ID starts after that event; this catches a server that repeats it.)
  case eventID(String)

  /// Whether an event at this position comes after one at `last`, and so has not been applied yet. A
  /// position of the other kind than `last` (a server that changed its numbering) counts as new.
  public func follows(_ last: StreamPosition) -> Bool {
    switch (self, last) {
    case (.sequence(let next), .sequence(let last)): next > last
    case (.eventID(let next), .eventID(let last)): next != last
    default: true
    }
  }
}
