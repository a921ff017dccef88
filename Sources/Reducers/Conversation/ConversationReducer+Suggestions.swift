import ConversationState
import Foundation

/// Starter prompts and follow-up suggestions: offered by the host or the backend, shown while they apply
/// (`ConversationState.shownSuggestions`), sent with one tap as a message.
extension ConversationReducer {
  func offerFollowUps(_ texts: [String], after answer: ClientMessageID, _ state: inout ConversationState) {
    state.suggestions.followUps = Suggestions.cleaned(texts)
    state.suggestions.after = state.suggestions.followUps.isEmpty ? nil : answer
  }

  func sendSuggestion(_ index: Int, _ clientID: ClientMessageID, _ at: Date, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let shown = state.shownSuggestions
    guard shown.indices.contains(index) else {
      state.userError = ChatError(
        .invalidAction, "There is no suggestion \(index + 1) to send; \(shown.count) are shown.")
      return []
    }
    return sendOrQueue(OutgoingMessage(clientID: clientID, text: shown[index], createdAt: at), &state)
  }
}
