import ConversationState
import Foundation
import Reducers
import Testing

/// A conversation driven through the real reducer, one action at a time, checking every invariant and
/// transition rule after each step.
struct Chat {
  var state: ConversationState
  let reducer = ConversationReducer()

  init(_ state: ConversationState = ConversationState()) { self.state = state }

  /// An existing conversation with `messages` already committed.
  static func existing(_ messages: [Message] = [], id: ConversationID = "conv-1") -> Chat {
    var state = ConversationState(conversationID: id)
    for message in messages { state.messages.commit(message) }
    state.unreadCount = messages.filter { ReadCursor.isUnread($0, against: nil) }.count
    return Chat(state)
  }

  @discardableResult
  mutating func send(_ action: ConversationAction, sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConversationEffect]
  {
    let before = state
    let effects = reducer.reduce(into: &state, action: action)
    #expect(state.invariantViolations() == [], "after \(action)", sourceLocation: sourceLocation)
    #expect(state.transitionViolations(from: before) == [], "after \(action)", sourceLocation: sourceLocation)
    return effects
  }

  /// Sends `actions` in order and returns every effect they asked for.
  @discardableResult
  mutating func send(_ actions: [ConversationAction], sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConversationEffect]
  {
    actions.flatMap { send($0, sourceLocation: sourceLocation) }
  }

  /// The request ID the next request effect will carry.
  var nextRequestID: RequestID { RequestID(epoch: state.epoch, sequence: state.requestSequence + 1) }

  /// The user sends `text`; returns the send's request ID.
  @discardableResult
  mutating func userSends(_ text: String, id: ClientMessageID, at seconds: Double = 0) -> RequestID {
    let requestID = nextRequestID
    send(.send(OutgoingMessage(clientID: id, text: text, createdAt: time(seconds))))
    return requestID
  }

  var texts: [String] { state.messages.map(\.text) }
}

/// A fixed point in time, `seconds` after the start of every story.
func time(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_750_000_000 + seconds) }

extension Message {
  /// A committed message from the server.
  static func server(
    _ text: String, id: String, role: Role = .assistant, at seconds: Double, author: ParticipantID? = nil,
    clientID: ClientMessageID? = nil
  ) -> Message {
    Message(
      clientID: clientID ?? ClientMessageID("srv-\(id)"), serverID: ServerMessageID(id), role: role,
      author: author, text: text, createdAt: time(seconds), delivery: .sent,
      reply: role == .assistant ? .complete : nil)
  }

  /// The server's confirmation of the user's message `clientID`.
  static func confirmed(_ text: String, clientID: ClientMessageID, serverID: String, at seconds: Double) -> Message {
    Message(
      clientID: clientID, serverID: ServerMessageID(serverID), role: .user, text: text, createdAt: time(seconds),
      delivery: .sent)
  }
}

extension ConversationEffect {
  var requestID: RequestID? {
    switch self {
    case .sendMessage(let id, _), .regenerate(let id, _, _), .cancel(let id), .fetchHistory(let id, _, _, _),
      .fetchMessagesAfter(let id, _, _), .submitRating(let id, _, _, _), .submitFeedback(let id, _, _, _),
      .connectRealtime(let id, _), .createTicket(let id, _, _):
      return id
    case .sendTypingSignal, .startTimer, .cancelTimer, .disconnectRealtime:
      return nil
    }
  }
}
