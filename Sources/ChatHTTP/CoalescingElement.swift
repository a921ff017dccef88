public import ConversationStore

/// Elements of a stream whose runs of text deltas can be merged when they arrive together: bytes that piled
/// up while the store was busy reach it as one delta, not thousands of actions.
protocol CoalescingElement: Sendable {
  /// `elements` with each run of adjacent deltas of one reply merged into one, in order.
  static func coalesced(_ elements: [Self]) -> [Self]
}

extension ReplyEvent: CoalescingElement {
  static func coalesced(_ elements: [ReplyEvent]) -> [ReplyEvent] {
    guard elements.count > 1 else { return elements }
    var merged: [ReplyEvent] = []
    merged.reserveCapacity(elements.count)
    for element in elements {
      if case .delta(let next) = element, case .delta(let previous)? = merged.last {
        merged[merged.count - 1] = .delta(previous + next)
      } else {
        merged.append(element)
      }
    }
    return merged
  }
}

extension RealtimeUpdate: CoalescingElement {
  static func coalesced(_ elements: [RealtimeUpdate]) -> [RealtimeUpdate] {
    guard elements.count > 1 else { return elements }
    var merged: [RealtimeUpdate] = []
    merged.reserveCapacity(elements.count)
    for element in elements {
      if case .event(let conversation, .replyDelta(let reply, let next)) = element,
        case .event(conversation, .replyDelta(reply, let previous))? = merged.last
      {
        merged[merged.count - 1] = .event(conversation, .replyDelta(reply, previous + next))
      } else {
        merged.append(element)
      }
    }
    return merged
  }
}
