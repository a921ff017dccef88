package import ConversationState
package import ServerSentEvents

/// Numbers the events of a stream whose protocol numbers none but whose server replays a dropped stream
/// from its start (the AI SDK's resume endpoint), so the replay can be told from what is new.
///
/// Counting is by Server-Sent Event, which a replay of the same bytes repeats exactly; a batch's last
/// element carries the count (`ReplyEvent.positioned(.sequence(count), …)`). On a resumed stream the events
/// up to the cursor are still mapped, since the protocol's state (which parts are open, the message being
/// built) depends on them, but what they map to is dropped, before deltas are merged: a merged delta never
/// mixes text already shown with new text.
package struct EventNumbering: Sendable {
  /// Events of this stream so far.
  package private(set) var count: UInt64 = 0
  /// Events already applied from an earlier connection, whose elements are dropped.
  package let skipping: UInt64

  /// Numbering for a fresh stream (`skipping` 0), or for a replay of one whose reply applied `position`.
  package init(resumingAfter position: StreamPosition? = nil) {
    if case .sequence(let applied) = position { skipping = applied } else { skipping = 0 }
  }

  /// Maps `event` with `map`, its elements appended to `elements` unless it is a replay.
  package mutating func map<Mapper, Element>(
    _ event: ServerSentEvent, _ mapper: inout Mapper, _ elements: inout [Element],
    _ map: (inout Mapper, ServerSentEvent, inout [Element]) throws(ChatError) -> Void
  ) throws(ChatError) {
    count &+= 1
    guard count <= skipping else { return try map(&mapper, event, &elements) }
    var replayed: [Element] = []
    try map(&mapper, event, &replayed)
  }
}
