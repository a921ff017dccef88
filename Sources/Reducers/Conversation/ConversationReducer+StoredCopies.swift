public import ConversationState

/// What the client does to a conversation it is not running: a stored copy it brings back, and one whose
/// person's outbox queue ended. Pure, like the rest of the reducer: the client reads the copy and the outbox
/// at its edge, and these decide what the copy becomes. The effects the actions would ask for are dropped:
/// nothing of a copy is in flight.
extension ConversationReducer {
  /// `stored` (a file, or a store closed and parked in memory) as this run takes it: nothing of the run that
  /// left it is in flight (`.relaunched`), and each pending message the durable outbox already holds
  /// (`inOutbox`) shows `queued`, so it is never sent a second time as a request.
  ///
  /// ```swift
  /// let copy = reducer.settledForThisRun(file.restored!, inOutbox: ["m-7"])
  /// store.send(.restored(copy))
  /// ```
  public func settledForThisRun(_ stored: ConversationState, inOutbox: Set<ClientMessageID> = [])
    -> ConversationState
  {
    var state = stored
    _ = reduce(into: &state, action: .relaunched)
    for message in state.messages.outgoing where message.delivery == .pending && inOutbox.contains(message.clientID) {
      state.outboxRecording.insert(message.clientID)
      _ = reduce(into: &state, action: .outboxRecorded(message.clientID))
    }
    return state
  }

  /// `state` after its person's outbox queue ended holding `operations` (a sign-out, or another person): each
  /// of this conversation's messages among them fails with `error`, so the person finds it ready to retry
  /// when they come back, instead of `queued` forever. Operations of other conversations, and messages the
  /// copy does not hold, change nothing.
  public func endingQueue(_ state: ConversationState, dropping operations: [OutboxOperation], with error: ChatError)
    -> ConversationState
  {
    var state = state
    for operation in operations where operation.conversationID == state.conversationID {
      guard case .send(let outgoing) = operation.kind, state.messages[clientID: outgoing.clientID] != nil else {
        continue
      }
      _ = reduce(into: &state, action: .outboxRejected(operation.kind, error))
    }
    return state
  }
}
