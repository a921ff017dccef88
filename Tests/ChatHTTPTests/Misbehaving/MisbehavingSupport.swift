import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation

/// The typed error a misbehaving case left in a conversation, wherever the store put it: a failed
/// message's, a failed or rejected answer's, the user's or a background one (a truncated answer's error is
/// the user's).
func failure(in state: ConversationState) -> ChatError? {
  for message in state.messages {
    if case .failed(let error) = message.delivery { return error }
    if let error = message.reply?.error { return error }
  }
  return state.userError ?? state.backgroundError
}

/// A store on one case of the misbehaving server, with its short timeouts and a jitter of 1 (every wait its
/// backoff's longest), so request counts can be bounded exactly.
func misbehavingStore(
  _ server: MisbehavingServer, _ name: String, state: ConversationState = ConversationState(),
  policy: ChatPolicy = MisbehavingServer.policy
) throws -> ChatStore {
  var environment = StoreEnvironment.live
  environment.jitter = { 1 }
  return ChatStore(state, policy: policy, backend: try server.backend(name, policy: policy), environment: environment)
}

/// A conversation the server and the device already share: one question, one answer.
let sharedConversation: ConversationState = {
  var state = ConversationState()
  state.conversationID = "conv-1"
  let question = Message(
    clientID: "srv-m-1", serverID: "m-1", role: .user, text: "Where is my order?",
    createdAt: Date(timeIntervalSince1970: 1_764_558_000), delivery: .sent)
  let answer = Message(
    clientID: "srv-m-2", serverID: "m-2", role: .assistant, text: "It ships today.",
    createdAt: Date(timeIntervalSince1970: 1_764_558_001), delivery: .sent, reply: .completed)
  _ = state.messages.commit(question)
  _ = state.messages.commit(answer)
  return state
}()
