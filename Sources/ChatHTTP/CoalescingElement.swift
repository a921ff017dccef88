package import ConversationState
public import ConversationStore

/// Elements of a stream whose runs of text deltas can be merged when they arrive together: bytes that piled
/// up while the store was busy reach it as one delta, not thousands of actions.
package protocol CoalescingElement: Sendable {
  /// The text of `next` when `self` is a text delta and `next` continues it (a delta of the same reply);
  /// else nil. A delta continues itself, which is how a run's first text is read.
  func deltaText(continuedBy next: Self) -> String?

  /// This delta with its text replaced by `text`.
  func replacingDeltaText(with text: String) -> Self

  /// This element at `position` of its stream (`EventNumbering`).
  func positioned(_ position: StreamPosition) -> Self
}

extension CoalescingElement {
  /// `elements` with each run of adjacent deltas of one reply merged into one, in order.
  ///
  /// Each run's texts are joined once, so a batch of a hundred thousand tiny deltas costs its length, not
  /// its length squared.
  package static func coalesced(_ elements: [Self]) -> [Self] {
    guard elements.count > 1 else { return elements }
    var result: [Self] = []
    result.reserveCapacity(elements.count)
    var index = elements.startIndex
    while index < elements.endIndex {
      let head = elements[index]
      index += 1
      guard let first = head.deltaText(continuedBy: head) else {
        result.append(head)
        continue
      }
      var texts = [first]
      while index < elements.endIndex, let text = head.deltaText(continuedBy: elements[index]) {
        texts.append(text)
        index += 1
      }
      result.append(texts.count == 1 ? head : head.replacingDeltaText(with: texts.joined()))
    }
    return result
  }
}

extension ReplyEvent: CoalescingElement {
  package func deltaText(continuedBy next: ReplyEvent) -> String? {
    switch (self, next) {
    case (.delta, .delta(let text)): return text
    case (.partDelta(let id, _), .partDelta(let nextID, let text)) where id == nextID: return text
    case (.toolInputDelta(let id, _), .toolInputDelta(let nextID, let text)) where id == nextID: return text
    default: return nil
    }
  }

  package func positioned(_ position: StreamPosition) -> ReplyEvent { .positioned(position, self) }

  package func replacingDeltaText(with text: String) -> ReplyEvent {
    if case .partDelta(let id, _) = self { return .partDelta(id, text) }
    if case .toolInputDelta(let id, _) = self { return .toolInputDelta(id, text) }
    return .delta(text)
  }
}

extension RealtimeUpdate: CoalescingElement {
  package func deltaText(continuedBy next: RealtimeUpdate) -> String? {
    guard case .event(let conversation, .replyDelta(let reply, _)) = self,
      case .event(conversation, .replyDelta(reply, let text)) = next
    else { return nil }
    return text
  }

  /// The realtime stream keeps its own `Last-Event-ID` (`HTTPChatBackend`).
  package func positioned(_ position: StreamPosition) -> RealtimeUpdate { self }

  package func replacingDeltaText(with text: String) -> RealtimeUpdate {
    guard case .event(let conversation, .replyDelta(let reply, _)) = self else { return self }
    return .event(conversation, .replyDelta(reply, text))
  }
}

extension [ReplyEvent] {
  /// Appends text for `part`, joined with the last event when that is text for the same part: a chunk of
  /// the body with hundreds of deltas then hands the store one (the transport coalesces the rest).
  @inlinable package mutating func appendDelta(_ delta: String, to part: PartID) {
    guard !delta.isEmpty else { return }
    if let last = indices.last, self[last].append(delta, ifTextOf: part) { return }
    append(.partDelta(part, delta))
  }
}

extension ReplyEvent {
  /// Appends `delta` to this event's text when it is text for `part`, in place: the event gives its text up
  /// while it grows, so the text is not copied.
  @inlinable mutating func append(_ delta: String, ifTextOf part: PartID) -> Bool {
    guard case .partDelta(let id, var text) = self, id == part else { return false }
    self = .partEnded(id, encryptedValue: nil)
    text.append(delta)
    self = .partDelta(id, text)
    return true
  }
}
