import ConversationState
import Foundation

/// The I/O half of an agent request's context: reads from storage what memory did not hold, then applies
/// the backend's `AgentContextPolicy`.
package enum AgentContextBuilder {
  /// The context of a request ending at `end`, from what memory held (`window`) and `storage`.
  ///
  /// - Throws: what the storage read throws (`STORAGE_FAILED`): a request sent without the context the
  ///   user sees would answer a different conversation, so it fails, retryable, instead.
  ///   `INVALID_CONFIGURATION` for a policy whose limits are below 1, and when its transform left a
  ///   regeneration without its prompt: nothing is sent.
  package static func build(
    _ window: AgentContextWindow, of conversation: ConversationID?, ending end: AgentContextEnd,
    policy: AgentContextPolicy, storage: StoredHistoryReader?
  ) async throws -> AgentContext {
    // A backend's own policy is checked here too: the shipped backends refuse a bad one at init, a host's
    // backend might not.
    try policy.validate()
    var messages = window.messages
    if window.storedNeeded > 0, let conversation, let storage {
      let query = StoredHistoryQuery.before(
        window.olderThan ?? MessageOrderKey(createdAt: .distantFuture, tieBreak: ""))
      var held = Set(messages.map(\.clientID))
      if case .before(let own) = end { held.insert(own) }
      let page = try await storage(conversation, query, window.storedNeeded)
      let older = page.messages.suffix(window.storedNeeded).filter {
        AgentContext.carries($0) && !held.contains($0.clientID)
      }
      messages = older + messages
    }
    let sent = policy.apply(to: messages)
    if case .through(let prompt) = end, sent.last?.serverID != prompt {
      throw ChatError(
        .invalidConfiguration,
        "The agent context policy left the regeneration without its prompt \(prompt.rawValue): nothing was sent.")
    }
    return AgentContext(messages: sent, agentState: window.agentState)
  }
}
