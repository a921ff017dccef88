import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Which fields a relaunch, a `clear` and a sign-in keep is decided by the group a field is declared in
/// (`ConversationState+Lifetimes.swift`), not by lists in each path: these stories hold each path to its
/// group, so a field added to a group is covered without touching them.
@Suite("Field lifetimes: what a relaunch, a clear and a sign-in keep")
struct FieldLifetimeTests {
  /// A conversation mid-flight: a title, a draft and an escalation (stored); a person signed in over a live
  /// connection (the session); someone typing, a rating in flight, a sync that failed and a page loading
  /// (this run's).
  static func midFlight() -> Chat {
    var given = ConversationState.existing([.server("Hi, how can I help?", id: "s1", at: 1)])
    given.identity = UserIdentity(userID: "u-1")
    let chat = Chat(given)
    chat.connected()
    chat.send([
      .setDraft("half a thought"), .realtime("conv-1", .titleChanged("Order 1042")),
      .realtime("conv-1", .typingStarted("agent-7", at: time(2)), receivedAt: time(2)),
    ])
    chat.send(.rateAnswer("srv-s1", .up))
    chat.send(.loadMoreHistory(pageSize: 20))
    chat.state.failedSyncAttempts = 2
    return chat
  }

  @Test("every field of the state is in exactly one lifetime group, and its JSON key is its name")
  func everyFieldHasOneLifetime() throws {
    // Given the groups' fields, by name.
    let groups: [[String]] = [
      Mirror(reflecting: ConversationState.Stored(conversationID: nil)).children.compactMap(\.label),
      Mirror(reflecting: ConversationState.Session(epoch: IdentityEpoch(), identity: nil)).children.compactMap(\.label),
      Mirror(reflecting: ConversationState.Run()).children.compactMap(\.label),
      ["messages", "draft", "streamingReply", "agentActivity"],
    ]
    let grouped = groups.flatMap { $0 }

    // Then no field is in two groups, and the state's fields are exactly the groups' (a field added
    // outside a group would have no lifetime).
    #expect(Set(grouped).count == grouped.count)
    let fields = Mirror(reflecting: midFlightState()).children.compactMap(\.label)
    #expect(Set(fields) == Set(grouped))
    #expect(fields.count == grouped.count)

    // And the state's JSON is one flat object whose keys are field names (the fixtures' format).
    let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(midFlightState())) as? [String: Any]
    let keys = Set(json?.keys.map { $0 } ?? [])
    #expect(keys.isSubset(of: Set(grouped)))
    #expect(keys.isSuperset(of: ["messages", "draft", "title", "identity", "requests", "typing"]))
  }

  private func midFlightState() -> ConversationState { Self.midFlight().state }

  @Test("a relaunch keeps the conversation and who is signed in, and starts the run afresh")
  func relaunchKeepsStoredAndPerson() {
    // Given a conversation mid-flight.
    let chat = Self.midFlight()
    let before = chat.state

    // When the app starts again with it.
    chat.send(.relaunched)

    // Then what its file keeps is as it was, the person is the same, and nothing of the run is left.
    let after = chat.state
    #expect(after.stored == before.stored.withoutLoads)
    #expect(after.messages == before.messages && after.draft == "half a thought")
    #expect(after.identity == before.identity && after.epoch == before.epoch)
    #expect(after.requestSequence == before.requestSequence, "request IDs never go back")
    #expect(after.run == ConversationState.Run())
    #expect(after.connection == .idle && after.failedConnectionAttempts == 0)
  }

  @Test("clear starts a new conversation for the same person over the same connection")
  func clearKeepsSession() {
    // Given a conversation mid-flight.
    let chat = Self.midFlight()
    let before = chat.state

    // When the user starts a new conversation.
    chat.send(.clear)

    // Then nothing of the old conversation is left, the person's connection is as it was, and the only
    // request still in flight is the connection's own.
    let after = chat.state
    #expect(after.stored == ConversationState.Stored(conversationID: nil))
    #expect(after.messages.isEmpty && after.draft.isEmpty)
    #expect(after.session == before.session)
    #expect(after.requests.values.allSatisfy { $0 == .connect })
    #expect(after.requests.count == 1)
    #expect(after.typing.isEmpty && after.acceptedRatings.isEmpty && after.failedSyncAttempts == 0)
  }

  @Test("a guest who signs in keeping the conversation keeps it, in a new epoch, with the guest's run dropped")
  func guestUpgradeKeepsStored() {
    // Given a guest's conversation mid-flight.
    let chat = Chat.existing([.server("Hi, how can I help?", id: "s1", at: 1)])
    chat.connected()
    chat.send([
      .setDraft("half a thought"), .realtime("conv-1", .typingStarted("agent-7", at: time(2)), receivedAt: time(2)),
      .rateAnswer("srv-s1", .up),
    ])
    let before = chat.state

    // When the guest signs in, keeping the conversation.
    chat.send(.identify(UserIdentity(userID: "u-1"), keepingGuestConversation: true))

    // Then the conversation is the guest's, under a new epoch and the account's identity, with the guest's
    // typing and ratings in flight gone.
    let after = chat.state
    #expect(after.stored.withoutLoads == before.stored.withoutLoads)
    #expect(after.messages.map(\.text) == before.messages.map(\.text) && after.draft == "half a thought")
    #expect(after.epoch == before.epoch.next && after.identity?.userID == "u-1")
    #expect(after.typing.isEmpty && after.acceptedRatings.isEmpty)
  }

  @Test("another person signing in starts everything afresh but the request counter")
  func otherPersonStartsAfresh() {
    // Given a conversation mid-flight.
    let chat = Self.midFlight()
    let before = chat.state

    // When another person signs in.
    chat.send(.identify(UserIdentity(userID: "u-2")))

    // Then nothing of the first person's conversation, connection or run is left.
    let after = chat.state
    #expect(after.stored == ConversationState.Stored(conversationID: nil))
    #expect(after.run == ConversationState.Run())
    #expect(
      after.session
        == ConversationState.Session(
          epoch: before.epoch.next, identity: UserIdentity(userID: "u-2"), requestSequence: before.requestSequence))
  }
}

extension ConversationState.Stored {
  /// Without the history's loads in flight, which are this run's.
  fileprivate var withoutLoads: Self {
    var copy = self
    copy.history.dropRequests()
    return copy
  }
}
