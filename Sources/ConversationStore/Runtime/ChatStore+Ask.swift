public import ConversationState

/// The awaited form of a send, for code written against an SDK whose `send` returns the answer or throws:
/// built on the store's own snapshots, so the state shows everything it does as it happens.
extension Store where R: ConversationReducing {
  /// Sends `text` (as `sendMessage` does) and returns the answer to it once it is committed: the first
  /// message after it from the agent or a person, whose reply completed. Throws the `ChatError` the message
  /// failed with (it stays in the conversation, `failed`, for a retry), the error the answer ended with
  /// (`failed`, `rejected`; `CANCELLED` for a stopped answer, `INCOMPLETE_STREAM` for one cut off), the
  /// refusal of the send itself (the state's `userError`), or `CANCELLED` when the message is taken back or
  /// the store closes.
  ///
  /// It waits as long as the message does: offline, the message waits in the conversation or the outbox and
  /// `ask` waits with it; while the agent answers something else, it waits in the follow-up queue; an answer
  /// that waits for the user (an approval) is answered through the state as usual, and `ask` returns when
  /// the run completes. Cancelling the calling task stops the wait (throwing `CANCELLED`), never the message:
  /// it is still sent and answered, and the state shows it.
  ///
  /// ```swift
  /// do {
  ///   let answer = try await chat.ask("Where is my order?")
  ///   print(answer.text)
  /// } catch {
  ///   print("No answer: \(error.message)")  // a typed ChatError
  /// }
  /// ```
  public func ask(_ text: String, attachments: [MessageAttachment] = []) async throws(ChatError) -> Message {
    // Subscribed before the send, so no state between the send and the first wait is missed.
    var snapshots = snapshots().makeAsyncIterator()
    let clientID = sendMessage(text, attachments: attachments)
    let sent = state
    if !sent.messages.contains(clientID), sent.followUps.index(of: clientID) == nil {
      throw sent.userError ?? ChatError(.invalidAction, "The message was not sent.")
    }
    while let snapshot = await snapshots.next() {
      switch AskProgress(of: clientID, in: snapshot.state) {
      case .waiting: continue
      case .answered(let answer): return answer
      case .failed(let error): throw error
      }
    }
    throw ChatError(.cancelled, Task.isCancelled ? "Stopped waiting for the answer." : "The store closed.")
  }
}

/// Where the message `ask` sent stands in a state: O(messages after it).
enum AskProgress: Equatable {
  case waiting
  case answered(Message)
  case failed(ChatError)

  init(of clientID: ClientMessageID, in state: ConversationState) {
    guard let index = state.messages.index(of: clientID) else {
      self =
        state.followUps.index(of: clientID) == nil
        ? .failed(ChatError(.cancelled, "The message was taken back.")) : .waiting
      return
    }
    if case .failed(let error) = state.messages[index].delivery {
      self = .failed(error)
      return
    }
    guard let answer = state.messages[(index + 1)...].first(where: { $0.role != .user && $0.role != .system }) else {
      self = .waiting
      return
    }
    switch answer.reply {
    case nil, .completed?: self = .answered(answer)
    case .failed(let error)?, .rejected(let error)?: self = .failed(error)
    case .cancelled?: self = .failed(ChatError(.cancelled, "The answer was stopped."))
    case .truncated?: self = .failed(ChatError(.incompleteStream, "The answer was cut off."))
    case .streaming?, .awaitingInput?, .awaitingToolResults?: self = .waiting
    }
  }
}
