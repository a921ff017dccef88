public import ConversationState

/// What an AG-UI stream carries besides the reply, for the host to use or ignore (`AGUIBackend.sideEvents`):
/// extension events, provider passthroughs, progress the state layer does not model, and warnings about
/// what this client dropped or could not apply. Delivered in stream order, never on the store's thread.
public enum AGUISideEvent: Hashable, Sendable {
  /// `CUSTOM`: an application's own event.
  case custom(name: String, value: JSONValue)
  /// `RAW`: a provider-native event passed through.
  case raw(event: JSONValue, source: String?)
  /// `ACTIVITY_SNAPSHOT`: structured progress (the whole content; `replace` false asks to merge).
  case activitySnapshot(messageID: String, activityType: String, content: JSONValue, replace: Bool)
  /// `ACTIVITY_DELTA`: a JSON Patch to an activity's content.
  case activityDelta(messageID: String, activityType: String, patch: [JSONValue])
  /// `STEP_STARTED` / `STEP_FINISHED`: a progress label over a span of the run.
  case step(name: String, isFinished: Bool)
  /// `SUBAGENT_STARTED`, `SUBAGENT_FINISHED`, `SUBAGENT_ERROR`: a subagent's lane (its content joins the reply).
  case subagent(id: String, name: String?, error: String?, isFinished: Bool)
  /// `MESSAGES_SNAPSHOT`: the producer's copy of the conversation (already reconciled into the thread).
  case messagesSnapshot([JSONValue])
  /// Something the protocol says to drop or keep going past, with why (an unknown event type, a patch
  /// operation it does not know, a value for an unknown message).
  case warning(String)
}
