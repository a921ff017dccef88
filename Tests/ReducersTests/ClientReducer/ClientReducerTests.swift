import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// The client's rules as chat stories: state and effects asserted at every step.
@Suite("Client reducer")
struct ClientReducerTests {
  static let now = Date(timeIntervalSince1970: 1_764_558_000)
  static let alice = UserIdentity(userID: "alice")

  static func request(_ sequence: UInt64, epoch: UInt64 = 0) -> RequestID {
    RequestID(epoch: IdentityEpoch(epoch), sequence: sequence)
  }

  /// A started client whose connection is live and whose outbox found nothing to send.
  static func started(
    identity: UserIdentity? = nil, reducer: ClientReducer = ClientReducer()
  ) -> TestStore<ClientReducer> {
    let store = ClientTestStore(ClientState(identity: identity), reducer: reducer, exhaustivity: .off)
    store.send(.start)
    store.send(.connectionOpened(request(1)))
    store.send(.batchPrepared(request(2), nil))
    store.exhaustivity = .on
    return store
  }

  @Test("a started client opens its scope, connects and looks in its outbox, in that order")
  func start() {
    let store = ClientTestStore(ClientState(identity: Self.alice))
    store.send(
      .start,
      effects: [
        .openScope(userID: "alice"), .cancelTimer(.reconnect), .connectRealtime(Self.request(1)),
        .prepareBatch(Self.request(2)),
      ]
    ) {
      $0.connection = .connecting
      $0.connectionRequest = Self.request(1)
      $0.outbox = .preparing(Self.request(2))
      $0.nextRequest = 2
    }
    store.send(.connectionOpened(Self.request(1))) { $0.connection = .connected }
    store.send(.batchPrepared(Self.request(2), nil)) { $0.outbox = .idle }
  }

  @Test("asking twice for a conversation gives the same store; the new conversation's store becomes it")
  func oneStorePerConversation() {
    let store = Self.started()
    store.send(.open("c1", adopting: nil, unheld: []), effects: [.openConversation(ConversationHandle(0), "c1")]) {
      $0.conversations["c1"] = ConversationHandle(0)
      $0.open[ConversationHandle(0)] = .some("c1")
      $0.lastUse[ConversationHandle(0)] = 1
      $0.nextHandle = 1
      $0.uses = 1
    }
    store.send(.open("c1", adopting: nil, unheld: [])) {
      $0.lastUse[ConversationHandle(0)] = 2
      $0.uses = 2
    }
    // When the user starts a conversation and the server names it c2
    store.send(.startNewConversation, effects: [.openConversation(ConversationHandle(1), nil)]) {
      $0.newConversation = ConversationHandle(1)
      $0.open[ConversationHandle(1)] = .some(nil)
      $0.lastUse[ConversationHandle(1)] = 3
      $0.nextHandle = 2
      $0.uses = 3
    }
    // Then asking for c2 as soon as its ID shows gives the store already showing it, not a second one
    store.send(.open("c2", adopting: ConversationHandle(1), unheld: [])) {
      $0.newConversation = nil
      $0.open[ConversationHandle(1)] = .some("c2")
      $0.conversations["c2"] = ConversationHandle(1)
      $0.lastUse[ConversationHandle(1)] = 4
      $0.uses = 4
    }
    // And the follower's late report of the same creation changes nothing
    store.send(.conversationCreated(ConversationHandle(1), "c2"))
  }

  @Test("past the idle limit the least recently asked-for store nobody holds closes; a held one never does")
  func idleEviction() {
    let store = Self.started(reducer: ClientReducer(maximumIdleConversations: 1))
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.send(.open("c2", adopting: nil, unheld: []))
    store.exhaustivity = .on
    // c1 and c2 are both held by screens: nothing closes although two are open
    #expect(store.state.conversations.count == 2)
    // When c3 opens and only c1's screen is gone
    store.send(
      .open("c3", adopting: nil, unheld: [ConversationHandle(0)]),
      effects: [
        .openConversation(ConversationHandle(2), "c3"), .closeConversations([ConversationHandle(0)]),
        .startTimer(.idleCheck, seconds: 5),
      ]
    ) {
      $0.conversations = ["c2": ConversationHandle(1), "c3": ConversationHandle(2)]
      $0.open = [ConversationHandle(1): .some("c2"), ConversationHandle(2): .some("c3")]
      $0.lastUse = [ConversationHandle(1): 2, ConversationHandle(2): 3]
      $0.nextHandle = 3
      $0.uses = 3
    }
    // Two are still open over a limit of 1: the client looks again later. When it finds c2's screen gone
    // too, c2 closes (the least recently asked-for), and with the limit met it stops looking
    store.send(
      .releaseIdle(unheld: [ConversationHandle(1), ConversationHandle(2)]),
      effects: [.closeConversations([ConversationHandle(1)])]
    ) {
      $0.conversations = ["c3": ConversationHandle(2)]
      $0.open = [ConversationHandle(2): .some("c3")]
      $0.lastUse = [ConversationHandle(2): 3]
    }
    // And a look that finds nothing over the limit does nothing
    store.send(.releaseIdle(unheld: [ConversationHandle(2)]))
  }

  @Test("identifying the person already signed in takes the new name and tears nothing down")
  func identifySamePerson() {
    let store = Self.started(identity: Self.alice)
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.exhaustivity = .on
    store.send(.identify(Self.alice, keepingGuestConversation: false))
    var renamed = Self.alice
    renamed.displayName = "Alice B."
    store.send(
      .identify(renamed, keepingGuestConversation: false),
      effects: [.forward(.identify(renamed), to: [ConversationHandle(0)])]
    ) { $0.identity = renamed }
  }

  @Test(
    "only a sign-out ends the outbox's epoch: a person replacing another, or a guest signing in, goes on in it",
    arguments: [
      (UserIdentity?.some(Self.alice), UserIdentity?.some(UserIdentity(userID: "bob")), OutboxEpochChange.continued),
      (nil, UserIdentity(userID: "bob"), .continued), (Self.alice, nil, .raised),
    ])
  func outboxEpochOnSwitch(from previous: UserIdentity?, to next: UserIdentity?, expected: OutboxEpochChange) {
    // Given a client with a store open, signed in or a guest
    let store = Self.started(identity: previous)
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))

    // When bob signs in (not keeping a guest's conversation), or alice signs out
    let effects = store.send(next.map { .identify($0, keepingGuestConversation: false) } ?? .signOut)

    // Then the scope switch says what becomes of the outbox's numbering
    let switched = effects.compactMap { effect -> OutboxEpochChange? in
      guard case .switchScope(_, _, _, let outboxEpoch) = effect else { return nil }
      return outboxEpoch
    }
    #expect(switched == [expected])
  }

  @Test(
    "switching person or signing out clears every store, starts a new epoch and reconnects under it",
    arguments: [UserIdentity(userID: "bob"), nil])
  func switchPerson(to next: UserIdentity?) {
    let store = Self.started(identity: Self.alice)
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.exhaustivity = .on
    let clearing: ConversationAction = next.map { .identify($0, keepingGuestConversation: false) } ?? .signOut
    store.send(
      next.map { .identify($0, keepingGuestConversation: false) } ?? .signOut,
      effects: [
        .switchScope(
          userID: next?.userID, closing: [ConversationHandle(0)], with: clearing,
          outboxEpoch: next == nil ? .raised : .continued),
        .cancel(Self.request(1)), .cancelTimer(.connectionHealthy), .cancelTimer(.outboxRetry),
        .cancelTimer(.reconnect), .connectRealtime(Self.request(3, epoch: 1)),
        .prepareBatch(Self.request(4, epoch: 1)),
      ]
    ) {
      $0.identity = next
      $0.epoch = IdentityEpoch(1)
      $0.conversations = [:]
      $0.open = [:]
      $0.lastUse = [:]
      $0.connection = .connecting
      $0.connectionRequest = Self.request(3, epoch: 1)
      $0.outbox = .preparing(Self.request(4, epoch: 1))
      $0.nextRequest = 4
    }
    // And the old connection's late loss changes nothing
    store.send(.connectionLost(Self.request(1), ChatError(.network, "gone"), at: Self.now, jitter: 0.5))
  }

  @Test("a guest who signs in keeping their conversation moves their data and reconnects with the account")
  func guestUpgrade() {
    let store = Self.started()
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.exhaustivity = .on
    store.send(
      .identify(Self.alice, keepingGuestConversation: true),
      effects: [
        .moveGuestData(to: "alice", conversations: [ConversationHandle(0)]),
        .cancel(Self.request(1)), .cancelTimer(.connectionHealthy), .cancelTimer(.outboxRetry),
        .cancelTimer(.reconnect), .connectRealtime(Self.request(3, epoch: 1)),
        .prepareBatch(Self.request(4, epoch: 1)),
        .forward(.identify(Self.alice, keepingGuestConversation: true), to: [ConversationHandle(0)]),
      ]
    ) {
      $0.identity = Self.alice
      $0.epoch = IdentityEpoch(1)
      $0.connection = .connecting
      $0.connectionRequest = Self.request(3, epoch: 1)
      $0.outbox = .preparing(Self.request(4, epoch: 1))
      $0.nextRequest = 4
    }
  }

  @Test("an expired token stops the shared connection visibly; a fresh credential brings it back")
  func expiredTokenComesBack() {
    let store = Self.started(identity: Self.alice, reducer: ClientReducer(refreshesCredentials: true))
    let expired = ChatError(.unauthorized, "expired", status: 401)
    store.send(
      .connectionLost(Self.request(1), expired, at: Self.now, jitter: 0.5),
      effects: [.cancelTimer(.connectionHealthy), .refreshCredentials(Self.request(3))]
    ) {
      $0.connection = .closed
      $0.connectionRequest = nil
      $0.needsCredentials = true
      $0.backgroundError = expired
      $0.credentialRefresh = Self.request(3)
      $0.nextRequest = 3
    }
    // The provider could not help: the state says so and waits for the host
    let refused = ChatError(.unauthorized, "signed out elsewhere")
    store.send(.credentialsAnswered(Self.request(3), refused)) {
      $0.credentialRefresh = nil
      $0.backgroundError = refused
    }
    // When the host signs the user in again
    store.send(
      .credentialsRefreshed, effects: [.cancelTimer(.reconnect), .connectRealtime(Self.request(4))]
    ) {
      $0.needsCredentials = false
      $0.credentialRenewal = 3
      $0.backgroundError = nil
      $0.connection = .connecting
      $0.connectionRequest = Self.request(4)
      $0.nextRequest = 4
    }
  }

  @Test("an upload refused for its credential goes again once the connection opens with the credential of now")
  func outboxCredentialRetriedWhenConnected() {
    // Given an upload refused with 401 while the connection was down, and the provider asked
    let store = Self.started(identity: Self.alice, reducer: ClientReducer(refreshesCredentials: true))
    store.exhaustivity = .off
    store.send(.connectionLost(Self.request(1), ChatError(.network, "reset"), at: Self.now, jitter: 0.5))
    store.send(.outboxChanged)
    store.send(.batchPrepared(Self.request(3), Self.batch))
    let expired = ChatError(.unauthorized, "expired", status: 401)
    store.send(.batchFailed(Self.request(3), expired, at: Self.now, jitter: 0.5))
    #expect(store.state.outbox == .needsCredentials)
    #expect(store.state.credentialRefresh == Self.request(4))
    store.send(.timerFired(.reconnect))
    store.exhaustivity = .on

    // When the connection opens (with whatever credential the backend holds now)
    store.send(
      .connectionOpened(Self.request(5)),
      effects: [.startTimer(.connectionHealthy, seconds: 10), .prepareBatch(Self.request(6))]
    ) {
      $0.connection = .connected
      $0.needsCredentials = false
      $0.outbox = .preparing(Self.request(6))
      $0.nextRequest = 6
    }

    // Then the provider failing meanwhile leaves nothing stuck, and the banner goes once all works again
    let failed = ChatError(.unauthorized, "provider down")
    store.send(.credentialsAnswered(Self.request(4), failed)) {
      $0.credentialRefresh = nil
      $0.backgroundError = failed
    }
    store.send(.batchPrepared(Self.request(6), Self.batch), effects: [.uploadBatch(Self.request(6), Self.batch)]) {
      $0.outbox = .uploading(Self.request(6), Self.batch)
    }
    store.send(
      .batchUploaded(Self.request(6), OutboxReceipt()),
      effects: [.cancelTimer(.outboxRetry), .finishBatch("b1"), .prepareBatch(Self.request(7))]
    ) {
      $0.outbox = .preparing(Self.request(7))
      $0.backgroundError = nil
      $0.nextRequest = 7
    }
  }

  @Test("a malformed frame is a background error; the connection goes on")
  func malformedFrame() {
    let store = Self.started()
    let bad = ChatError(.invalidEvent, "not JSON")
    store.send(.frameRejected(Self.request(1), bad)) { $0.backgroundError = bad }
    #expect(store.state.connection == .connected)
    // The next event proves nothing was broken: the banner stays until something replaces it
    store.send(.connectionDelivered(Self.request(1)))
  }

  @Test("a dropped connection retries after its backoff, and is healthy again only once it delivers")
  func dropAndBackoff() {
    let store = Self.started()
    let dropped = ChatError(.network, "reset")
    store.send(
      .connectionLost(Self.request(1), dropped, at: Self.now, jitter: 0.5),
      effects: [.cancelTimer(.connectionHealthy), .startTimer(.reconnect, seconds: 0.5)]
    ) {
      $0.connection = .reconnecting(attempt: 1, retryAt: Self.now.addingTimeInterval(0.5))
      $0.connectionRequest = nil
      $0.failedConnectionAttempts = 1
      $0.backgroundError = dropped
    }
    store.send(.timerFired(.reconnect), effects: [.cancelTimer(.reconnect), .connectRealtime(Self.request(3))]) {
      $0.connection = .connecting
      $0.connectionRequest = Self.request(3)
      $0.nextRequest = 3
    }
    store.send(
      .connectionOpened(Self.request(3)),
      effects: [.startTimer(.connectionHealthy, seconds: 10), .prepareBatch(Self.request(4))]
    ) {
      $0.connection = .connected
      $0.outbox = .preparing(Self.request(4))
      $0.nextRequest = 4
    }
    store.send(.connectionDelivered(Self.request(3))) {
      $0.failedConnectionAttempts = 0
      $0.backgroundError = nil
    }
  }

  static let batch = OutboxBatch(
    id: "b1", epoch: 0, firstSequence: 1,
    operations: [OutboxOperation(id: "op-1", conversationID: "c1", kind: .markRead(upTo: "m9"), enqueuedAt: now)])

  @Test("the outbox waits the backoff the host set in its policy, not a constant of its own")
  func outboxBackoffFromPolicy() {
    // Given a client whose policy retries the outbox after 4 s, doubling to 8 s.
    var policy = ChatPolicy()
    policy.outboxBackoff = Backoff(base: 4, cap: 8)
    let store = Self.started(reducer: ClientReducer(policy: policy))
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Self.request(3), Self.batch))

    // When the upload fails twice, then a third time.
    let reset = ChatError(.network, "reset")
    let waits = [UInt64(3), 4, 5].map { request -> [ClientEffect] in
      let effects = store.send(.batchFailed(Self.request(request), reset, at: Self.now, jitter: 1))
      store.send(.timerFired(.outboxRetry))
      store.send(.batchPrepared(Self.request(request + 1), Self.batch))
      return effects
    }

    // Then each wait is the policy's: 4 s, 8 s, then capped at 8 s.
    #expect(waits == [4.0, 8.0, 8.0].map { [ClientEffect.startTimer(.outboxRetry, seconds: $0)] })
  }

  @Test(
    "a server that answers an upload 429 with Retry-After is not asked again sooner; a shorter hint leaves the backoff",
    arguments: [(120.0, 120.0), (5, 15), (1e19, 600)])
  func outboxHonoursRetryAfter(retryAfter: Double, wait: Double) {
    // Given a batch on its way
    let store = Self.started()
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Self.request(3), Self.batch))

    // When the server answers 429 with Retry-After (the backoff's first wait is 15 s at this jitter)
    let busy = ChatError(.rateLimited, "Slow down.", status: 429, retryAfter: retryAfter)
    let effects = store.send(.batchFailed(Self.request(3), busy, at: Self.now, jitter: 0.5))

    // Then the batch waits the longer of the two, the hint clamped by the policy (600 s at most)
    #expect(effects == [.startTimer(.outboxRetry, seconds: wait)])
    #expect(store.state.outbox == .waiting(attempt: 1, retryAt: Self.now.addingTimeInterval(wait)))
  }

  @Test("a queued operation uploads at once; a retryable failure waits out the backoff, then the same batch goes")
  func outboxBackoff() {
    let store = Self.started()
    store.send(.outboxChanged, effects: [.prepareBatch(Self.request(3))]) {
      $0.outbox = .preparing(Self.request(3))
      $0.nextRequest = 3
    }
    store.send(.batchPrepared(Self.request(3), Self.batch), effects: [.uploadBatch(Self.request(3), Self.batch)]) {
      $0.outbox = .uploading(Self.request(3), Self.batch)
    }
    let reset = ChatError(.network, "reset")
    store.send(
      .batchFailed(Self.request(3), reset, at: Self.now, jitter: 0.5), effects: [.startTimer(.outboxRetry, seconds: 15)]
    ) {
      $0.outbox = .waiting(attempt: 1, retryAt: Self.now.addingTimeInterval(15))
      $0.outboxFailures = 1
      $0.backgroundError = reset
    }
    // Something queued meanwhile does not cut the wait short
    store.send(.outboxChanged)
    store.send(.timerFired(.outboxRetry), effects: [.prepareBatch(Self.request(4))]) {
      $0.outbox = .preparing(Self.request(4))
      $0.nextRequest = 4
    }
    store.send(.batchPrepared(Self.request(4), Self.batch), effects: [.uploadBatch(Self.request(4), Self.batch)]) {
      $0.outbox = .uploading(Self.request(4), Self.batch)
    }
    store.send(
      .batchFailed(Self.request(4), reset, at: Self.now, jitter: 1), effects: [.startTimer(.outboxRetry, seconds: 60)]
    ) {
      $0.outbox = .waiting(attempt: 2, retryAt: Self.now.addingTimeInterval(60))
      $0.outboxFailures = 2
    }
  }

  @Test(
    "a batch the server numbers elsewhere (a stale epoch) is renumbered from the server's word and goes again after the backoff, never sooner"
  )
  func batchOutOfSync() {
    // Given a batch on its way, numbered in epoch 0
    let store = Self.started()
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Self.request(3), Self.batch))

    // When the server takes nothing of it: it numbers in epoch 4, from sequence 1
    let server = OutboxSequencing(epoch: 4, nextSequence: 1)
    let effects = store.send(.batchOutOfSync(Self.request(3), server, at: Self.now, jitter: 0.5))

    // Then the outbox is renumbered from there (the batch dropped, its operations kept) and the upload waits
    // the backoff, as after any failure
    #expect(effects == [.resynchronizeOutbox("b1", server), .startTimer(.outboxRetry, seconds: 15)])
    #expect(store.state.outbox == .waiting(attempt: 1, retryAt: Self.now.addingTimeInterval(15)))
    #expect(store.state.backgroundError?.code == .outboxOutOfSync)
    #expect(store.state.backgroundError?.retryable == true)

    // And a server that answers so again is met by a longer wait, not a loop
    store.send(.timerFired(.outboxRetry))
    store.send(.batchPrepared(Self.request(4), Self.batch))
    #expect(
      store.send(.batchOutOfSync(Self.request(4), server, at: Self.now, jitter: 0.5)) == [
        .resynchronizeOutbox("b1", server), .startTimer(.outboxRetry, seconds: 30),
      ])
    // And an answer for a request no longer uploading changes nothing
    #expect(store.send(.batchOutOfSync(Self.request(3), server, at: Self.now, jitter: 0.5)) == [])
  }

  @Test("a batch refused whole fails each of its operations where it was made, and the next batch goes")
  func batchRefusedWhole() {
    let store = Self.started()
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Self.request(3), Self.batch))
    store.exhaustivity = .on
    let refused = ChatError(.invalidAction, "no such epoch")
    store.send(
      .batchFailed(Self.request(3), refused, at: Self.now, jitter: 0.5),
      effects: [
        .finishBatch("b1"), .returnRefused([RefusedOperation(Self.batch.operations[0], refused)]),
        .prepareBatch(Self.request(4)),
      ]
    ) {
      $0.outbox = .preparing(Self.request(4))
      $0.backgroundError = refused
      $0.nextRequest = 4
    }
  }

  @Test("after close nothing changes and nothing is asked for")
  func closed() {
    let store = Self.started()
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.exhaustivity = .on
    store.send(.close, effects: [.shutDown([ConversationHandle(0)])]) {
      $0.isClosed = true
      $0.conversations = [:]
      $0.open = [:]
      $0.lastUse = [:]
      $0.connection = .closed
      $0.connectionRequest = nil
    }
    store.send(.open("c2", adopting: nil, unheld: []))
    store.send(.connectionOpened(Self.request(1)))
  }
}
