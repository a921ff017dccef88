import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A server that refuses every token: the provider is asked once per failure, never for a credential it
/// has just given, and then the client and its stores wait for the host.
@Suite("Client reducer: refused credentials")
struct CredentialRefusalTests {
  typealias Fixture = ClientReducerTests
  static let expired = ChatError(.unauthorized, "expired", status: 401)

  /// A started client with conversation c1 open (handle 0) whose connection was just refused, and the
  /// provider asked (request 3).
  static func refused(status: Int = 401) -> TestStore<ClientReducer> {
    let store = Fixture.started(identity: Fixture.alice, reducer: ClientReducer(refreshesCredentials: true))
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.send(
      .connectionLost(
        Fixture.request(1), ChatError(.unauthorized, "refused", status: status), at: Fixture.now, jitter: 0.5))
    store.exhaustivity = .on
    return store
  }

  @Test(
    "the provider's fresh token refused at once: nobody asks again; the stores are held until the host acts",
    arguments: [401, 403])
  func freshTokenRefusedAtOnce(status: Int) {
    // Given a refused connection and the provider asked
    let store = Self.refused(status: status)
    #expect(store.state.credentialRefresh == Fixture.request(3))

    // When the provider answers, the connection opens again with its token (its request numbered after
    // the renewal)
    store.send(
      .credentialsAnswered(Fixture.request(3), nil),
      effects: [
        .forward(.credentialsRefreshed, to: [ConversationHandle(0)]), .cancelTimer(.reconnect),
        .connectRealtime(Fixture.request(4)),
      ]
    ) {
      $0.credentialRefresh = nil
      $0.needsCredentials = false
      $0.credentialRenewal = 3
      $0.backgroundError = nil
      $0.connection = .connecting
      $0.connectionRequest = Fixture.request(4)
      $0.nextRequest = 4
    }

    // And that token is refused too
    let again = ChatError(.unauthorized, "refused again", status: status)
    store.send(
      .connectionLost(Fixture.request(4), again, at: Fixture.now, jitter: 0.5),
      effects: [.cancelTimer(.connectionHealthy), .forward(.credentialsNeeded(again), to: [ConversationHandle(0)])]
    ) {
      $0.connection = .closed
      $0.connectionRequest = nil
      $0.needsCredentials = true
      $0.backgroundError = again
    }

    // Then the client waits for the host: no refresh runs, and an upload refused now asks nothing more
    #expect(store.state.awaitsHostCredentials)
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Fixture.request(5), Fixture.batch))
    store.exhaustivity = .on
    store.send(.batchFailed(Fixture.request(5), again, at: Fixture.now, jitter: 0.5)) {
      $0.outbox = .needsCredentials
    }

    // When the host has a fresh credential, everything resumes, once
    store.send(
      .credentialsRefreshed,
      effects: [
        .forward(.credentialsRefreshed, to: [ConversationHandle(0)]), .cancelTimer(.reconnect),
        .connectRealtime(Fixture.request(6)), .prepareBatch(Fixture.request(7)),
      ]
    ) {
      $0.needsCredentials = false
      $0.credentialRenewal = 5
      $0.backgroundError = nil
      $0.connection = .connecting
      $0.connectionRequest = Fixture.request(6)
      $0.outbox = .preparing(Fixture.request(7))
      $0.nextRequest = 7
    }

    // And once the connection opens, the credential is proven: a later refusal asks the provider again
    store.send(.connectionOpened(Fixture.request(6))) {
      $0.connection = .connected
      $0.credentialRenewal = nil
    }
    #expect(store.state.credentialRenewal == nil)
  }

  @Test("a request that carried the old token and is refused after the renewal says nothing of the new one")
  func staleRefusalAsksNothing() {
    // Given an upload on its way when the token expired, and the provider's fresh token in use
    let store = Fixture.started(identity: Fixture.alice, reducer: ClientReducer(refreshesCredentials: true))
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(Fixture.request(3), Fixture.batch))
    store.send(.connectionLost(Fixture.request(1), Self.expired, at: Fixture.now, jitter: 0.5))
    store.send(.credentialsAnswered(Fixture.request(4), nil))
    #expect(store.state.credentialRenewal == 4)
    store.exhaustivity = .on

    // When the old upload's refusal arrives
    store.send(.batchFailed(Fixture.request(3), Self.expired, at: Fixture.now, jitter: 0.5)) {
      $0.outbox = .needsCredentials
      $0.backgroundError = Self.expired
    }

    // Then the provider is not asked, the stores are not held, and the upload goes when the connection opens
    #expect(!store.state.needsCredentials)
    store.send(.connectionOpened(Fixture.request(5)), effects: [.prepareBatch(Fixture.request(6))]) {
      $0.connection = .connected
      $0.credentialRenewal = nil
      $0.outbox = .preparing(Fixture.request(6))
      $0.nextRequest = 6
    }
  }

  @Test("with no provider, a refusal holds every store at once")
  func noProviderHoldsStores() {
    let store = Fixture.started(identity: Fixture.alice, reducer: ClientReducer(refreshesCredentials: false))
    store.exhaustivity = .off
    store.send(.open("c1", adopting: nil, unheld: []))
    store.exhaustivity = .on
    store.send(
      .connectionLost(Fixture.request(1), Self.expired, at: Fixture.now, jitter: 0.5),
      effects: [
        .cancelTimer(.connectionHealthy), .forward(.credentialsNeeded(Self.expired), to: [ConversationHandle(0)]),
      ]
    ) {
      $0.connection = .closed
      $0.connectionRequest = nil
      $0.needsCredentials = true
      $0.backgroundError = Self.expired
    }
  }
}
