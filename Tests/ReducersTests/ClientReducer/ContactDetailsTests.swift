import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// An anonymous user's contact details reach the backend once per change, without signing anyone in.
@Suite("Client reducer: an anonymous user's contact details")
struct ContactDetailsTests {
  static let ana = ContactDetails(email: "ana@example.com", name: "Ana")
  static let now = ClientReducerTests.now

  /// A started, connected anonymous client, with `ana` on its way as request 3.
  static func sending() -> TestStore<ClientReducer> {
    let store = ClientReducerTests.started(reducer: ClientReducer(refreshesCredentials: true))
    store.exhaustivity = .off
    store.send(.setContactDetails(ana))
    store.exhaustivity = .on
    return store
  }

  @Test("the guest's e-mail goes to the backend once; the same again sends nothing; new details go again")
  func sentOncePerChange() {
    // Given a started anonymous client
    let store = ClientReducerTests.started()

    // When the user fills in the pre-chat form
    store.send(
      .setContactDetails(Self.ana), effects: [.sendContactDetails(ClientReducerTests.request(3), Self.ana)]
    ) {
      $0.contact = Self.ana
      $0.contactUpload = .sending(ClientReducerTests.request(3))
      $0.nextRequest = 3
    }
    // Then once the backend has them, setting them again asks nothing; the identity stays anonymous
    store.send(.contactDetailsSent(ClientReducerTests.request(3))) { $0.contactUpload = .idle }
    store.send(.setContactDetails(Self.ana))
    #expect(store.state.identity == nil)

    // When the user corrects the address, the new details go
    let corrected = ContactDetails(email: "ana.b@example.com", name: "Ana")
    store.send(
      .setContactDetails(corrected), effects: [.sendContactDetails(ClientReducerTests.request(4), corrected)]
    ) {
      $0.contact = corrected
      $0.contactUpload = .sending(ClientReducerTests.request(4))
      $0.nextRequest = 4
    }
  }

  @Test("details changed while the first are on their way: the first request is cancelled, the latest go")
  func latestWins() {
    let store = Self.sending()
    let corrected = ContactDetails(email: "ana.b@example.com")
    store.send(
      .setContactDetails(corrected),
      effects: [.cancel(ClientReducerTests.request(3)), .sendContactDetails(ClientReducerTests.request(4), corrected)]
    ) {
      $0.contact = corrected
      $0.contactUpload = .sending(ClientReducerTests.request(4))
      $0.nextRequest = 4
    }
    // The cancelled one's late answer changes nothing
    store.send(.contactDetailsSent(ClientReducerTests.request(3)))
  }

  @Test("a retryable failure waits the outbox's backoff, and goes at once when the connection opens again")
  func retryableBacksOff() {
    let store = Self.sending()
    let offline = ChatError(.network, "offline")
    store.send(
      .contactDetailsFailed(ClientReducerTests.request(3), offline, at: Self.now, jitter: 0.5),
      effects: [.startTimer(.contactRetry, seconds: 15)]
    ) {
      $0.contactUpload = .waiting(attempt: 1, retryAt: Self.now.addingTimeInterval(15))
      $0.contactFailures = 1
      $0.backgroundError = offline
    }
    // The timer sends them again
    store.send(.timerFired(.contactRetry), effects: [.sendContactDetails(ClientReducerTests.request(4), Self.ana)]) {
      $0.contactUpload = .sending(ClientReducerTests.request(4))
      $0.nextRequest = 4
    }
  }

  @Test("a permanent refusal is shown and not retried; an authorization failure waits for a fresh credential")
  func permanentAndAuthorization() {
    // Given a backend that has no place for contact details
    let store = Self.sending()
    let unsupported = ChatError(.unsupported, "no contact details", status: 501)
    store.send(.contactDetailsFailed(ClientReducerTests.request(3), unsupported, at: Self.now, jitter: 0.5)) {
      $0.contactUpload = .refused(unsupported)
      $0.backgroundError = unsupported
    }
    store.send(.setContactDetails(Self.ana))  // the same details: not sent again

    // Given one whose credential expired
    let expiring = Self.sending()
    let expired = ChatError(.unauthorized, "expired", status: 401)
    expiring.send(
      .contactDetailsFailed(ClientReducerTests.request(3), expired, at: Self.now, jitter: 0.5),
      effects: [.refreshCredentials(ClientReducerTests.request(4))]
    ) {
      $0.contactUpload = .needsCredentials
      $0.needsCredentials = true
      $0.credentialRefresh = ClientReducerTests.request(4)
      $0.backgroundError = expired
      $0.nextRequest = 4
    }
    // When the credential is refreshed, they go again
    expiring.exhaustivity = .off
    let effects = expiring.send(.credentialsAnswered(ClientReducerTests.request(4), nil))
    #expect(effects.contains(.sendContactDetails(ClientReducerTests.request(5), Self.ana)))
  }

  @Test("signing in forgets the guest's details, and what was on its way stops; a signed-in user sets none")
  func signingInForgets() {
    let store = Self.sending()
    store.exhaustivity = .off
    let effects = store.send(.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true))
    #expect(effects.contains(.cancel(ClientReducerTests.request(3))))
    #expect(store.state.contact == nil && store.state.contactUpload == .idle)
    #expect(store.send(.setContactDetails(Self.ana)).isEmpty)
    #expect(store.state.contact == nil)
  }

  @Test(
    "details outside the rules are refused before anything is sent",
    arguments: [
      ContactDetails(email: "no-at-sign"), ContactDetails(email: "two@@example.com"),
      ContactDetails(email: "@example.com"), ContactDetails(email: "ana@"), ContactDetails(email: "a b@example.com"),
      ContactDetails(email: String(repeating: "a", count: 250) + "@x.io"), ContactDetails(email: "ana@ex\u{0}.com"),
      ContactDetails(name: "Ana\u{7}"), ContactDetails(name: String(repeating: "n", count: 129)),
    ])
  func refused(details: ContactDetails) {
    #expect(details.refusal?.code == .invalidContact)
  }

  @Test(
    "details within the rules pass, clearing ones included",
    arguments: [
      ContactDetails(), ContactDetails(email: "ana@example.com"), ContactDetails(email: "ana+chat@sub.example.co.uk"),
      ContactDetails(name: "Ana María Ñúñez"), ContactDetails(email: "a@b", name: String(repeating: "n", count: 128)),
    ])
  func accepted(details: ContactDetails) {
    #expect(details.refusal == nil)
  }
}
