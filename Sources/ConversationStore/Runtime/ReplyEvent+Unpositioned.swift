extension ReplyEvent {
  /// The event without the position its protocol gave it: itself when it has none. For a host that reads a
  /// backend's reply stream itself; the store reads positions (`positioned`) to resume.
  ///
  /// ```swift
  /// for try await event in backend.send(payload) {
  ///   if case .delta(let text) = event.unpositioned { print(text, terminator: "") }
  /// }
  /// ```
  public var unpositioned: ReplyEvent {
    guard case .positioned(_, let event) = self else { return self }
    return event.unpositioned
  }
}
