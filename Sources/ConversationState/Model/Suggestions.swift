/// What the user may send next with one tap (`ConversationState.suggestions`): starter prompts for an empty
/// conversation, and follow-up suggestions offered with an answer.
///
/// ```swift
/// for (index, text) in state.shownSuggestions.enumerated() {
///   chip(text) { store.sendSuggestion(index) }
/// }
/// ```
public struct Suggestions: Hashable, Sendable, Codable {
  /// The most suggestions of one kind kept (8); more are dropped, the first kept.
  public static let maximumCount = 8
  /// The longest suggestion kept, in characters (200); a longer one is cut, ending in "…".
  public static let maximumLength = 200

  /// Shown while the conversation has no message.
  public var starters: [String]
  /// Offered with the answer `after`; shown while it is the newest message.
  public var followUps: [String]
  /// The answer the follow-ups go with.
  public var after: ClientMessageID?

  public init(starters: [String] = [], followUps: [String] = [], after: ClientMessageID? = nil) {
    self.starters = Self.cleaned(starters)
    self.followUps = Self.cleaned(followUps)
    self.after = after
  }

  /// Whether there is nothing to offer.
  public var isEmpty: Bool { starters.isEmpty && followUps.isEmpty }

  /// `texts` as kept: trimmed, empty and repeated ones dropped, at most `maximumCount`, each at most
  /// `maximumLength` characters. A server's or a host's list is never refused for its size: what fits is
  /// kept.
  public static func cleaned(_ texts: [String]) -> [String] {
    var kept: [String] = []
    for text in texts where kept.count < maximumCount {
      var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !trimmed.isEmpty, !kept.contains(trimmed) else { continue }
      if trimmed.count > maximumLength { trimmed = String(trimmed.prefix(maximumLength - 1)) + "…" }
      kept.append(trimmed)
    }
    return kept
  }
}
