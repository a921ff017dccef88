/// One event of a `text/event-stream`.
public struct ServerSentEvent: Hashable, Sendable {
  /// The `event:` field, or "message".
  public var type: String
  /// The `data:` lines joined by newlines.
  public var data: String
  /// The stream's last event ID when this event was dispatched (it persists across events).
  public var lastEventID: String

  public init(type: String = "message", data: String, lastEventID: String = "") {
    self.type = type
    self.data = data
    self.lastEventID = lastEventID
  }
}
