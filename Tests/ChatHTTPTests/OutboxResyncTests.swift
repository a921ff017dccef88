import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// A server that numbers the outbox elsewhere than the device (MyBot's rule: a wrong epoch rejects the whole
/// batch): its refusal says where it numbers, and the client takes its word instead of failing for ever.
@Suite("The outbox re-synchronizes with the server's epoch", .hangGuard)
struct OutboxResyncTests {
  static let event = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened"])

  @Test("a batch in a stale epoch is refused whole with where the server numbers; nothing of it is applied")
  func staleBatchRefused() async throws {
    // Given a server that numbers the outbox in epoch 3
    let server = try await ReferenceServer.start()
    try await server.faults(["outbox_epoch": 3])
    let backend = try server.backend()
    let operation = OutboxOperation(id: "host-1", conversationID: nil, kind: .host(Self.event), enqueuedAt: Date())

    // When a batch of epoch 1 is uploaded, then the same operation in epoch 3
    let stale = try await backend.uploadOutbox(
      OutboxBatch(id: "b-1", epoch: 1, firstSequence: 1, operations: [operation]))
    let applied = try await server.state()["host_operations"] as? [[String: Any]] ?? []
    let fresh = try await backend.uploadOutbox(
      OutboxBatch(id: "b-2", epoch: 3, firstSequence: 1, operations: [operation]))

    // Then the first is refused with the server's numbering and applied nothing; the second is taken
    #expect(stale.resync == OutboxSequencing(epoch: 3, nextSequence: 1))
    #expect(stale.rejections.isEmpty && !stale.isDuplicate)
    #expect(applied.isEmpty)
    #expect(fresh.resync == nil && fresh.rejections.isEmpty)
    let after = try await server.state()["host_operations"] as? [[String: Any]] ?? []
    #expect(after.map { $0["id"] as? String } == ["host-1"])
  }

  @Test("a client whose epoch the server no longer has takes the server's, and what it queued goes through once")
  func clientResynchronizes() async throws {
    // Given a signed-in client on an installation in epoch 1, and a server that moved to epoch 5
    let server = try await ReferenceServer.start()
    try await server.faults(["outbox_epoch": 5])
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-resync-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let storage = try ChatStorage(root: root.path)
    let outcomes = StateLock<[HostOperationOutcome]>([])
    var policy = ChatPolicy()
    policy.outboxBackoff = Backoff(base: 0.05, cap: 0.1)
    let client = ChatClient(
      backend: try server.backend(), identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(
        policy: policy, storage: storage, onHostOperation: { outcome in outcomes.withLock { $0.append(outcome) } }))

    // When the app queues an analytics event
    let id = try await client.enqueue(Self.event)

    // Then it is accepted once, in the server's epoch, and the installation now numbers there
    #expect(await waitFor { outcomes.withLock { $0 }.count == 1 })
    #expect(outcomes.withLock { $0 }.first?.id == id)
    #expect(outcomes.withLock { $0 }.first?.result == .accepted)
    let applied = try await server.state()["host_operations"] as? [[String: Any]] ?? []
    #expect(applied.map { $0["id"] as? String } == [id.rawValue])
    #expect(try storage.outboxEpoch() == 5)
    // And every request carried the epoch the outbox numbered in: 1 until the server's word, 5 after
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    let epochs = log.map { $0["outbox_epoch"] as? String ?? "none" }
    #expect(epochs.first == "1" && epochs.last == "5", "\(epochs)")
    #expect(Set(epochs) == ["1", "5"], "no request went without it")
    await client.close()
  }
}
