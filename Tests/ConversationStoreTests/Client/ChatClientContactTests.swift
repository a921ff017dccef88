import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: an anonymous user's contact details", .hangGuard)
struct ChatClientContactTests {
  static let ana = ContactDetails(email: "ana@example.com", name: "Ana")

  @Test("the guest's e-mail goes to the backend once, on the worker; the same again sends nothing")
  func sentOnce() async throws {
    // Given an anonymous client
    var harness = try await ClientHarness.start()

    // When the guest gives their e-mail, twice, then corrects it
    try harness.client.setContactDetails(Self.ana)
    guard case .contactDetails(Self.ana, let answer) = await harness.nextCall() else {
      Issue.record("expected the contact details")
      return await harness.client.close()
    }
    answer.resume()
    let client = harness.client
    #expect(await waitUntil { client.state.contactUpload == .idle })
    try harness.client.setContactDetails(Self.ana)
    let corrected = ContactDetails(email: "ana.b@example.com", name: "Ana")
    try harness.client.setContactDetails(corrected)

    // Then the backend is asked once per change: the next call is the correction, not the repeat
    guard case .contactDetails(corrected, let second) = await harness.nextCall() else {
      Issue.record("expected the corrected details next")
      return await harness.client.close()
    }
    second.resume()
    #expect(harness.client.identity == nil, "still anonymous")
    await harness.client.close()
  }

  @Test("bad details, and details for a signed-in user, are refused at once with a typed error")
  func refusedAtOnce() async throws {
    let guest = try await ClientHarness.start()
    #expect(throws: ChatError.self) { try guest.client.setContactDetails(ContactDetails(email: "not an address")) }
    do {
      try guest.client.setContactDetails(ContactDetails(email: "ana@"))
      Issue.record("a bad address was taken")
    } catch {
      #expect(error.code == .invalidContact)
    }
    #expect(guest.client.state.contact == nil)

    let member = try await ClientHarness.start(identity: UserIdentity(userID: "u-1042"))
    do {
      try member.client.setContactDetails(Self.ana)
      Issue.record("a signed-in user's contact details were taken")
    } catch {
      #expect(error.code == .invalidAction)
    }
    await guest.client.close()
    await member.client.close()
  }
}
