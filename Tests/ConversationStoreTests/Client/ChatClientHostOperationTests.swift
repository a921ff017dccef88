import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// What the host hears of its operations, in the order it heard it.
private final class HeardOutcomes: Sendable {
  private let outcomes = StateLock<[HostOperationOutcome]>([])

  var all: [HostOperationOutcome] { outcomes.withLock { $0 } }

  func record(_ outcome: HostOperationOutcome) { outcomes.withLock { $0.append(outcome) } }

  /// Waits (polling, bounded by the suite's time limit) until `count` outcomes have been heard.
  func waitFor(_ count: Int) async throws -> [HostOperationOutcome] {
    while all.count < count { try await Task.sleep(for: .milliseconds(2)) }
    return all
  }
}

@Suite("ChatClient: the host's own operations through the outbox", .hangGuard)
struct ChatClientHostOperationTests {
  static let opened = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened", "screen": "orders"])
  static let plan = HostOperation(kind: "profile.set", payload: ["plan": "pro"])

  @Test("the host queues an event and a property; the server takes one, refuses the other; the host hears each once")
  func acceptedAndRefused() async throws {
    // Given a client with storage, listening for its host operations
    let root = TemporaryRoot()
    let heard = HeardOutcomes()
    var harness = try await ClientHarness.start(root: root.path, onHostOperation: heard.record)

    // When the host queues an analytics event, and a profile property about conversation c1
    let event = try await harness.client.enqueue(Self.opened)
    let property = try await harness.client.enqueue(Self.plan, in: "c1")

    // And the server takes the batches they go in, refusing the property
    var uploaded: [OutboxOperation] = []
    while uploaded.count < 2 {
      let (batch, answer) = try await harness.nextBatch()
      uploaded += batch.operations
      let refused = batch.operations.filter { $0.id == property }
      answer.resume(
        returning: OutboxReceipt(
          rejections: refused.map { OutboxRejection(operationID: $0.id, reason: .invalid, message: "No such property") }
        ))
    }

    // Then both went up in the order queued, as what the host gave
    #expect(uploaded.map(\.id) == [event, property])
    #expect(uploaded.map(\.kind) == [.host(Self.opened), .host(Self.plan)])
    #expect(uploaded.map(\.conversationID) == [nil, "c1"])

    // And the host hears the event accepted and the property refused with the server's reason, once each
    let outcomes = try await heard.waitFor(2)
    #expect(outcomes.map(\.id) == [event, property])
    #expect(outcomes[0].result == .accepted)
    guard case .refused(let error) = outcomes[1].result else {
      Issue.record("the property should have been refused")
      return await harness.client.close()
    }
    #expect(error.code == .invalidAction && error.message == "No such property")

    // And the outbox is empty again; no conversation was opened for them
    await harness.client.close()
    #expect(harness.client.state.outboxCount == 0)
    #expect(harness.client.openConversationIDs.isEmpty)
    #expect(heard.all.count == 2, "each heard once")
  }

  @Test("an operation queued before a relaunch is uploaded after it, and the new run hears it accepted")
  func survivesRelaunch() async throws {
    // Given an event queued while the server could not be reached
    let root = TemporaryRoot()
    var before = try await ClientHarness.start(root: root.path)
    let event = try await before.client.enqueue(Self.opened)
    let (first, failing) = try await before.nextBatch()
    #expect(first.operations.map(\.id) == [event])
    failing.resume(throwing: ChatError(.network, "offline"))
    await before.client.close()

    // When the app starts again, listening for its operations
    let heard = HeardOutcomes()
    var after = try await ClientHarness.start(root: root.path, onHostOperation: heard.record)

    // Then the same batch goes again, and the host hears the event accepted, under the ID it was given
    let (again, answer) = try await after.nextBatch()
    #expect(again.id == first.id && again.operations == first.operations)
    answer.resume(returning: OutboxReceipt())
    #expect(try await heard.waitFor(1).map(\.id) == [event])
    #expect(heard.all.first?.result == .accepted)
    await after.client.close()
  }

  @Test("a sign-out ends the queue: an operation still waiting is refused to the host as evicted, never sent")
  func signOutRefusesWaiting() async throws {
    // Given a signed-in user's event that could not be uploaded yet
    let root = TemporaryRoot()
    let heard = HeardOutcomes()
    var harness = try await ClientHarness.start(
      identity: UserIdentity(userID: "u-1042"), root: root.path, onHostOperation: heard.record)
    let event = try await harness.client.enqueue(Self.opened)
    let (_, failing) = try await harness.nextBatch()
    failing.resume(throwing: ChatError(.network, "offline"))

    // When they sign out
    harness.client.signOut()

    // Then the host hears the event refused, as evicted by the end of the queue it waited in
    let outcomes = try await heard.waitFor(1)
    #expect(outcomes.map(\.id) == [event])
    guard case .refused(let error) = outcomes.first?.result else {
      Issue.record("the waiting event should have been refused")
      return await harness.client.close()
    }
    #expect(error.code == .outboxEvicted)
    await harness.client.close()
    #expect(heard.all.count == 1)
  }

  @Test("what cannot be queued is refused at once with a typed error, and nothing is uploaded")
  func refusedAtOnce() async throws {
    // Given a client with storage, and one without
    let root = TemporaryRoot()
    var harness = try await ClientHarness.start(root: root.path)
    let memoryOnly = try await ClientHarness.start()

    // Then a bad kind, an oversized payload and a client with nowhere to keep it are each refused
    await #expect(throws: ChatError.self) {
      try await harness.client.enqueue(HostOperation(kind: "no spaces", payload: [:]))
    }
    do {
      _ = try await harness.client.enqueue(
        HostOperation(kind: "analytics.event", payload: ["blob": .string(String(repeating: "x", count: 65_536))]))
      Issue.record("an oversized payload was queued")
    } catch {
      #expect(error.code == .operationTooLarge)
    }
    do {
      _ = try await memoryOnly.client.enqueue(Self.opened)
      Issue.record("a client without storage queued an operation")
    } catch {
      #expect(error.code == .unsupported)
    }

    // And the outbox holds nothing: the next upload is the one queued now
    let event = try await harness.client.enqueue(Self.opened)
    let (batch, answer) = try await harness.nextBatch()
    #expect(batch.operations.map(\.id) == [event])
    answer.resume(returning: OutboxReceipt())
    await harness.client.close()
    await memoryOnly.client.close()
  }
}
