public import Foundation

/// A support ticket the user asks for from the conversation.
public struct TicketDraft: Hashable, Sendable, Codable {
  public enum Priority: String, Hashable, Sendable, Codable, CaseIterable {
    case low, normal, high, urgent
  }

  public var subject: String
  public var category: String?
  public var priority: Priority
  public var body: String

  public init(subject: String, category: String? = nil, priority: Priority = .normal, body: String) {
    self.subject = subject
    self.category = category
    self.priority = priority
    self.body = body
  }
}

/// The server's receipt for a created ticket.
public struct TicketReceipt: Hashable, Sendable, Codable {
  public var ticketID: String
  public var url: URL?

  public init(ticketID: String, url: URL? = nil) {
    self.ticketID = ticketID
    self.url = url
  }
}

/// Escalation to a ticket.
///
/// `creating -> created`, or `creating -> failed -> creating` (the user tries again).
public enum Escalation: Hashable, Sendable, Codable {
  case creating(TicketDraft, RequestID)
  case created(TicketReceipt)
  /// The draft is kept so that nothing the user wrote is lost.
  case failed(TicketDraft, ChatError)
}
