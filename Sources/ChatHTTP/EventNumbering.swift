package import ConversationState
package import ServerSentEvents

/// Gives a reply's events the positions a resume needs (`ReplyEvent.positioned`), per Server-Sent Event;
/// a batch's last element carries the position of the last event it read, so runs of deltas still merge.
///
/// - `counting`: for a protocol whose events carry no position but whose server replays a dropped stream
///   from its start (the AI SDK's resume endpoint). Events are counted from 1, which a replay of the same
///   bytes repeats exactly; on a replay the events up to the cursor are still mapped, since the protocol's
///   state (which parts are open, the message being built) depends on them, but what they map to is
///   dropped, before deltas are merged, so a merged delta never mixes text already shown with new text.
/// - `eventIDs`: for a server that gives each event an `id:` and resumes after the one sent back as
///   `Last-Event-ID` (this repository's protocol): the position is the event's ID. An event that brings no
///   new ID (none of its own, so SSE's last ID carries over, or the same one again) leaves its batch
///   unpositioned: the store applies it and keeps the last position, since a position it already applied
///   would make the store drop the event as a replay. An ID over `maximumIDBytes` is not kept either (a
///   server would refuse a `Last-Event-ID` that long).
/// - `sequenceNumbers`: for a protocol whose events number themselves (the Responses API's
///   `sequence_number`), read by the mapper (`SequenceNumberedMapper`). On a replay from the start, events
///   numbered up to the cursor are mapped and dropped as in `counting`; an event without a number belongs to
///   the numbered one before it, and leaves its batch unpositioned as in `eventIDs`.
package struct EventNumbering: Sendable {
  private enum Mode: Sendable {
    case counting(skipping: UInt64)
    case eventIDs
    case sequenceNumbers(skippingThrough: UInt64?)
  }

  /// The longest event ID kept as a position (1 KiB), as for the realtime stream's `Last-Event-ID`.
  package static let maximumIDBytes = 1024

  private let mode: Mode
  private var count: UInt64 = 0
  private var lastID = ""
  /// Whether a numbered event was read (`sequenceNumbers`, whose first number may be 0).
  private var numbered = false
  /// Whether an event read since the last `takePosition()` moved the position.
  private var moved = false

  /// Counting for a fresh stream, or for a replay of one whose reply applied the events through `position`.
  package static func counting(resumingAfter position: StreamPosition? = nil) -> EventNumbering {
    guard case .sequence(let applied) = position else { return EventNumbering(mode: .counting(skipping: 0)) }
    return EventNumbering(mode: .counting(skipping: applied))
  }

  /// Positions by the events' own IDs.
  package static let eventIDs = EventNumbering(mode: .eventIDs)

  /// Positions by the numbers the mapper reads from the events, for a fresh stream or for a replay of one
  /// whose reply applied the events through `position`.
  package static func sequenceNumbers(resumingAfter position: StreamPosition? = nil) -> EventNumbering {
    guard case .sequence(let applied) = position else {
      return EventNumbering(mode: .sequenceNumbers(skippingThrough: nil))
    }
    return EventNumbering(mode: .sequenceNumbers(skippingThrough: applied))
  }

  private init(mode: Mode) { self.mode = mode }

  /// The position for a batch that ends here; nil when no event since the last batch moved it.
  package mutating func takePosition() -> StreamPosition? {
    guard moved else { return nil }
    moved = false
    switch mode {
    case .counting, .sequenceNumbers: return .sequence(count)
    case .eventIDs: return .eventID(lastID)
    }
  }

  /// Maps `event` with `map`, its elements appended to `elements` unless it is a replay.
  package mutating func map<Mapper, Element>(
    _ event: ServerSentEvent, _ mapper: inout Mapper, _ elements: inout [Element],
    _ map: (inout Mapper, ServerSentEvent, inout [Element]) throws(ChatError) -> Void
  ) throws(ChatError) {
    switch mode {
    case .eventIDs:
      let id = event.lastEventID
      if id != lastID, !id.isEmpty, id.utf8.count <= Self.maximumIDBytes {
        lastID = id
        moved = true
      }
      try map(&mapper, event, &elements)
    case .counting(let skipping):
      count &+= 1
      moved = true
      guard count <= skipping else { return try map(&mapper, event, &elements) }
      var replayed: [Element] = []
      try map(&mapper, event, &replayed)
    case .sequenceNumbers(let skipping):
      var mapped: [Element] = []
      try map(&mapper, event, &mapped)
      // Only this mode's mappers are asked, so the cast costs nothing on the other protocols' streams.
      if let number = (mapper as? any SequenceNumberedMapper)?.streamSequenceNumber, number != count || !numbered {
        (count, numbered, moved) = (number, true, true)
      }
      if let skipping, numbered, count <= skipping { return }
      elements += mapped
    }
  }
}

/// A mapper whose protocol numbers its events (the Responses API's `sequence_number`), for
/// `EventNumbering.sequenceNumbers`.
package protocol SequenceNumberedMapper {
  /// The number of the last event mapped that had one; nil before the first.
  var streamSequenceNumber: UInt64? { get }
}
