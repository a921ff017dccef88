public import Foundation

/// A support ticket the user asks for from the conversation.
public struct TicketDraft: Hashable, Sendable, Codable {
  /// How urgent the user says the ticket is: one of the values the server's ticket form configures,
  /// sent as it is (`"P2"`, `"blocker"`). `low`, `normal`, `high` and `urgent` are the common ones.
  ///
  /// ```swift
  /// let draft = TicketDraft(subject: "Refund", category: "billing", priority: "P2", body: "Charged twice.")
  /// ```
  public struct Priority: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let low: Priority = "low"
    public static let normal: Priority = "normal"
    public static let high: Priority = "high"
    public static let urgent: Priority = "urgent"

    /// Encoded as its string, as the closed set of four was.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(rawValue)
    }
  }

  /// The ticket's one-line title; a ticket needs one, and a `body`.
  public var subject: String
  /// The category the user picked ("typology"), one of the values the server's ticket form configures,
  /// sent as it is; nil when the form has none.
  public var category: String?
  /// How urgent the user says it is; `normal` unless they chose otherwise.
  public var priority: Priority
  /// What the user wrote to describe the problem.
  public var body: String

  /// A draft as the user filled it in; it is checked only when submitted.
  public init(subject: String, category: String? = nil, priority: Priority = .normal, body: String) {
    self.subject = subject
    self.category = category
    self.priority = priority
    self.body = body
  }
}

/// The server's receipt for a created ticket.
public struct TicketReceipt: Hashable, Sendable, Codable {
  /// The ticket's ID in the support system, to show the user.
  public var ticketID: String
  /// Where the user can follow the ticket, when the support system has a page for it.
  public var url: URL?

  /// A receipt as the server returned it.
  public init(ticketID: String, url: URL? = nil) {
    self.ticketID = ticketID
    self.url = url
  }
}

/// Escalation to a ticket.
///
/// `creating -> created`, or `creating -> failed -> creating` (the user tries again).
public enum Escalation: Hashable, Sendable, Codable {
  /// The ticket request is in flight; the draft is kept until the server answers.
  case creating(TicketDraft, RequestID)
  /// The server created the ticket. Final.
  case created(TicketReceipt)
  /// The draft is kept so that nothing the user wrote is lost.
  case failed(TicketDraft, ChatError)
}
