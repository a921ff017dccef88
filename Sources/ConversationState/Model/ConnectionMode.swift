/// How a conversation hears of what happens on the server (`ChatPolicy.connectionMode`).
///
/// ```swift
/// var policy = ChatPolicy()
/// policy.connectionMode = .polling  // the backend has no realtime channel
/// policy.pollInterval = 1  // ask for new messages every second
/// ```
public enum ConnectionMode: String, Hashable, Sendable, Codable, CaseIterable {
  /// A realtime connection (`ChatBackend.realtime`), reconnected with backoff when it drops; while it is
  /// down, new messages are polled for every `ChatPolicy.pollInterval` seconds when that is set, and polling
  /// stops once it is live again.
  case realtime
  /// The backend has no realtime channel: `connect` opens none, and the conversation asks for the messages
  /// after its newest (`ChatBackend.catchUp`) every `ChatPolicy.pollingInterval` seconds from the first
  /// connect, paging and leaving gaps by the same rules as a catch-up after a reconnect. The connection
  /// state reads as a realtime one would: `syncing` until the first answer, `connected` while polls
  /// succeed, `reconnecting(attempt)` after one failed (the next waits the longer of the interval and the
  /// reconnect backoff), `closed` after `disconnect` or an authorization failure. Typing and streamed
  /// replies of other participants, which only realtime carries, are not seen; their finished messages are.
  case polling
}
