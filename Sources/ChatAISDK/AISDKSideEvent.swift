public import ConversationState

/// What a UI message stream carries besides the reply, for the host to use or log.
public enum AISDKSideEvent: Hashable, Sendable {
  /// A transient `data-<name>` chunk: an event only, never part of the message (`onData` in `useChat`).
  case data(name: String, id: String?, data: JSONValue)
  /// The message's metadata as it now stands (from `start`, `message-metadata` and `finish`, merged).
  case metadata(JSONValue)
  /// Something the client skipped: a chunk type it does not know, a preliminary tool output.
  case warning(String)
}
