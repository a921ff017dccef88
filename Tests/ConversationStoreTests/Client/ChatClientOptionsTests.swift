import ConversationState
import ConversationStore
import ConversationTesting
import Persistence
import Testing

@Suite("ChatClientOptions: every limit a host sets, checked in one place")
struct ChatClientOptionsTests {
  /// A host's options with one setting that cannot work, and the name the error must give it.
  struct Mistake: Sendable, CustomTestStringConvertible {
    let name: String
    let change: @Sendable (inout ChatClientOptions) -> Void
    var testDescription: String { name }
  }

  static let mistakes: [Mistake] = [
    Mistake(name: "ChatPolicy.requestTimeout") { $0.policy.requestTimeout = 0 },
    Mistake(name: "ChatPolicy.outboxBackoff.base") { $0.policy.outboxBackoff = Backoff(base: .nan, cap: 10) },
    Mistake(name: "ChatClientOptions.maximumIdleConversations") { $0.maximumIdleConversations = -1 },
    Mistake(name: "ChatClientOptions.idleCheckInterval") { $0.idleCheckInterval = .infinity },
    Mistake(name: "ChatClientOptions.storageWindow") { $0.storageWindow = 0 },
    Mistake(name: "ChatClientOptions.replyWriteInterval") { $0.replyWriteInterval = .nan },
    Mistake(name: "ChatClientOptions.outboxLimits.maximumOperations") { $0.outboxLimits.maximumOperations = 0 },
    Mistake(name: "ChatClientOptions.outboxLimits.maximumBytes") { $0.outboxLimits.maximumBytes = -5 },
    Mistake(name: "ChatClientOptions.outboxLimits.maximumAge") { $0.outboxLimits.maximumAge = 0 },
  ]

  @Test("the defaults, and every setting at the edge of its range, are accepted")
  func defaultsAreValid() throws {
    try ChatClientOptions().validate()
    var edges = ChatClientOptions(maximumIdleConversations: 0, idleCheckInterval: 0.01, storageWindow: 1)
    edges.replyWriteInterval = 60
    edges.outboxLimits = OutboxLimits(maximumOperations: 1, maximumBytes: 1, maximumAge: 1)
    try edges.validate()
  }

  @Test("a setting that cannot work is refused with INVALID_CONFIGURATION naming it", arguments: mistakes)
  func mistakeIsNamed(_ mistake: Mistake) {
    // Given a host's options with one mistake.
    var options = ChatClientOptions()
    mistake.change(&options)

    // When they are checked, then the error says which setting and why.
    #expect {
      try options.validate()
    } throws: { error in
      guard let error = error as? ChatError else { return false }
      return error.code == .invalidConfiguration && error.message.hasPrefix(mistake.name + " must be")
    }
  }

  @Test("the doc comment's example: a window and an outbox backoff, checked before the client is made")
  func documentedExample() async throws {
    let backend = try ScriptedBackend(clock: TestClock())
    // DOCC-CLIENT-OPTIONS-VALIDATE-BEGIN
    var options = ChatClientOptions(workspace: "acme", storageWindow: 200)
    options.policy.outboxBackoff = Backoff(base: 10, cap: 120)
    try options.validate()  // INVALID_CONFIGURATION, naming the first setting that cannot work
    let client = ChatClient(backend: backend, options: options)
    // DOCC-CLIENT-OPTIONS-VALIDATE-END
    #expect(client.list.state.conversations.isEmpty)
    await client.close()
  }
}
