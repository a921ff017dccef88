import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A conversation story on the testing kit's `TestStore`, non-exhaustive: each step checks what the test
/// asserts, and the kit checks every invariant and transition rule after every step.
struct Chat {
  let store: ConversationTestStore

  init(_ state: ConversationState = ConversationState(), policy: ChatPolicy = ChatPolicy()) {
    store = ConversationTestStore(state, policy: policy, exhaustivity: .off)
  }

  /// An existing conversation with `messages` already committed.
  static func existing(_ messages: [Message] = [], id: ConversationID = "conv-1", policy: ChatPolicy = ChatPolicy())
    -> Chat
  {
    Chat(.existing(messages, id: id), policy: policy)
  }

  /// The current state; setting it arranges a story's "given" without going through the reducer.
  var state: ConversationState {
    get { store.state }
    nonmutating set { store.arrange { $0 = newValue } }
  }

  @discardableResult
  func send(_ action: ConversationAction, sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConversationEffect]
  {
    store.send(action, sourceLocation: sourceLocation)
  }

  /// Sends `actions` in order and returns every effect they asked for.
  @discardableResult
  func send(_ actions: [ConversationAction], sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConversationEffect]
  {
    actions.flatMap { send($0, sourceLocation: sourceLocation) }
  }

  /// The request ID the next request effect will carry.
  var nextRequestID: RequestID { store.nextRequestID }

  /// The user sends `text`; returns the send's request ID.
  @discardableResult
  func userSends(_ text: String, id: ClientMessageID, at seconds: Double = 0) -> RequestID {
    let requestID = nextRequestID
    send(.send(OutgoingMessage(clientID: id, text: text, createdAt: time(seconds))))
    return requestID
  }

  /// Connects and lets the connection open (and any catch-up finish, with nothing missed); returns the
  /// live connection's request ID.
  @discardableResult
  func connected(sourceLocation: SourceLocation = #_sourceLocation) -> RequestID {
    let connection = nextRequestID
    send(.connect, sourceLocation: sourceLocation)
    let sync = nextRequestID
    send(.connectionOpened(connection), sourceLocation: sourceLocation)
    if state.connection == .syncing { send(.syncLoaded(sync, []), sourceLocation: sourceLocation) }
    return connection
  }

  var texts: [String] { state.messages.map(\.text) }
}

/// A fixed point in time, `seconds` after the start of every story.
func time(_ seconds: Double) -> Date { .story(seconds) }
