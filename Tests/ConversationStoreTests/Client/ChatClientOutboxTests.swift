import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient outbox", .hangGuard)
struct ChatClientOutboxTests {
  /// A signed-in user with storage, in conversation c1, offline, who wrote `texts`; returns once each
  /// message shows queued (on disk).
  static func writtenOffline(
    _ texts: [String], root: TemporaryRoot, outboxLimits: OutboxLimits = OutboxLimits()
  ) async throws -> ClientHarness {
    let harness = try await ClientHarness.start(
      identity: UserIdentity(userID: "u-1"), root: root.path, outboxLimits: outboxLimits)
    let chat = harness.client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.finish(throwing: ChatError(.network, "tunnel"))
    _ = await chat.state(where: { $0.connection.isOffline })
    for text in texts { chat.sendMessage(text) }
    let count = texts.count
    _ = await chat.state(where: { state in state.messages.outgoing.filter { $0.delivery == .queued }.count == count })
    return harness
  }

  /// Offline, "first" written in c1 and its batch's upload failed: it waits out the outbox's backoff, kept
  /// whole in its batch for the retry (and so never evicted).
  static func firstUploadFailed(root: TemporaryRoot, outboxLimits: OutboxLimits) async throws -> ClientHarness {
    var harness = try await writtenOffline(["first"], root: root, outboxLimits: outboxLimits)
    let (_, upload) = try await harness.nextBatch()
    upload.resume(throwing: ChatError(.network, "tunnel"))
    let client = harness.client
    _ = await waitUntil { if case .waiting = client.state.outbox { true } else { false } }
    return harness
  }

  /// Moves virtual time forward a second at a time, letting tasks run in between, until cancelled.
  static func tick(_ clock: TestClock) -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        clock.advance(by: 1)
        try? await Task.sleep(nanoseconds: 2_000_000)
      }
    }
  }

  @Test(
    "a conversation opened while the client's connection is down shows reconnecting, and what is written there is queued"
  )
  func openedWhileDown() async throws {
    // Given a signed-in user whose connection just dropped (the retry waits for its backoff)
    let root = TemporaryRoot()
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"), root: root.path)
    let first = harness.client.conversation("c1")
    _ = await first.state(where: { $0.connection == .connected })
    harness.socket.finish(throwing: ChatError(.network, "tunnel"))
    _ = await first.state(where: { $0.connection.isOffline })

    // When they open another conversation and write in it
    let chat = harness.client.conversation("c2")
    let offline = await chat.state(where: { $0.connection.isOffline })
    chat.sendMessage("written in the tunnel")

    // Then it showed the connection down at once, and the message waits in the durable outbox
    #expect(offline != nil, "the new store learned the shared connection was down")
    let queued = await chat.state(where: { $0.messages.outgoing.first?.delivery == .queued })
    #expect(queued != nil, "queued, not sent into a connection that is not there")
    await harness.client.settled()
    #expect(harness.client.state.outboxCount == 1)
    await harness.client.close()
  }

  @Test("messages written offline go out in order, numbered from 1 without gaps, across a restart, and are confirmed")
  func restartThenInOrder() async throws {
    // Given two messages written offline (the first upload starts at once and is still unanswered), and the
    // app killed
    let root = TemporaryRoot()
    do {
      let harness = try await Self.writtenOffline(["first", "second"], root: root)
      await harness.client.close()
    }

    // When the app starts again (online)
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"), root: root.path)
    let chat = harness.client.conversation("c1")
    await harness.client.settled()
    #expect(chat.state.messages.outgoing.map(\.delivery) == [.queued, .queued])

    // Then the batch that was in flight goes again, then the rest: sequence numbers 1, 2 in send order
    var sent: [(sequence: Int, operation: OutboxOperation)] = []
    while sent.count < 2 {
      let (batch, answer) = try await harness.nextBatch()
      #expect(batch.epoch == 1, "the installation's first epoch")
      sent += batch.numbered.map { ($0.sequence, $0.operation) }
      answer.resume(returning: OutboxReceipt())
    }
    #expect(sent.map(\.sequence) == [1, 2])
    let texts = sent.map { item -> String in
      guard case .send(let outgoing) = item.operation.kind else { return "?" }
      return outgoing.text
    }
    #expect(texts == ["first", "second"])

    // And, once the conversation is live, the server's copies confirm them
    _ = await chat.state(where: { $0.connection == .connected })
    for (index, item) in sent.enumerated() {
      guard case .send(let outgoing) = item.operation.kind else { continue }
      let copy = Message.server(outgoing.text, id: "s\(index)", role: .user, at: 10, clientID: outgoing.clientID)
      harness.socket.yield(.event("c1", .messageCreated(copy)))
    }
    let confirmed = await chat.state(where: { $0.messages.outgoing.isEmpty })
    #expect(confirmed?.messages.map(\.text) == ["first", "second"])
    await harness.client.close()
  }

  @Test("a batch whose answer was lost is sent again with the same ID after the backoff; a duplicate counts as done")
  func lostResponseIsRetriedSafely() async throws {
    // Given a message written offline, and the connection back
    let root = TemporaryRoot()
    var harness = try await Self.writtenOffline(["only once"], root: root)

    // When the first upload's answer is lost
    let (first, lost) = try await harness.nextBatch()
    lost.resume(throwing: ChatError(.network, "connection reset"))

    // Then after 30 s × jitter (0.5 here) the same batch goes again, and "duplicate" settles it
    let lostAt = harness.clock.now()
    let ticking = Self.tick(harness.clock)
    let (again, answer) = try await harness.nextBatch()
    ticking.cancel()
    #expect(again == first)
    #expect(harness.clock.now().timeIntervalSince(lostAt) >= 15)
    answer.resume(returning: OutboxReceipt(isDuplicate: true))
    let client = harness.client
    #expect(await waitUntil { client.state.outboxCount == 0 })
    await harness.client.close()
  }

  @Test("an operation the server refuses fails its message with a typed error")
  func rejectionFailsTheMessage() async throws {
    let root = TemporaryRoot()
    var harness = try await Self.writtenOffline(["too late"], root: root)
    let (batch, answer) = try await harness.nextBatch()

    let operation = try #require(batch.operations.first)
    answer.resume(
      returning: OutboxReceipt(rejections: [OutboxRejection(operationID: operation.id, reason: .conversationNotOngoing)]
      ))

    let chat = harness.client.conversation("c1")
    let failed = await chat.state(where: { state in
      if case .failed = state.messages.outgoing.first?.delivery { return true }
      return false
    })
    guard case .failed(let error) = failed?.messages.outgoing.first?.delivery else {
      Issue.record("the refused message did not fail")
      return
    }
    #expect(error.code == .conversationNotOngoing)
    await harness.client.close()
  }

  @Test("an answer rated offline goes out in the next batch; refused there, it shows its old rating and why")
  func offlineRatingRefused() async throws {
    // Given an answer from the agent, then the connection lost
    let root = TemporaryRoot()
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"), root: root.path)
    let chat = harness.client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("It ships Monday", id: "s2", at: 2))))
    _ = await chat.state(where: { $0.messages[serverID: "s2"] != nil })
    harness.socket.finish(throwing: ChatError(.network, "tunnel"))
    _ = await chat.state(where: { $0.connection.isOffline })

    // When the user rates it offline
    let ratedAt = harness.clock.now()
    chat.send(.rateAnswer("srv-s2", .down))
    let client = harness.client
    #expect(await waitUntil { client.state.outboxCount == 1 })
    #expect(chat.state.messages[serverID: "s2"]?.rating == .down)

    // Then back online the rating is uploaded, stamped with the client's clock (`nextBatch` fails on any
    // other call first: no rating request was made)
    let (batch, answer) = try await harness.nextBatch()
    let operation = try #require(batch.operations.first)
    #expect(operation.kind == .rateAnswer("s2", .down, replacing: .none))
    #expect(operation.enqueuedAt == ratedAt)

    // When the server refuses it
    answer.resume(
      returning: OutboxReceipt(rejections: [OutboxRejection(operationID: operation.id, reason: .unknownMessage)]))

    // Then the answer shows its old rating, and the user sees why
    let undone = await chat.state(where: { $0.messages[serverID: "s2"]?.rating == Rating.none })
    #expect(undone?.userError?.code == .unknownMessage)
    await harness.client.close()
  }

  @Test("an authorization failure is not retried until the credential is refreshed")
  func authorizationFailureWaits() async throws {
    let root = TemporaryRoot()
    var harness = try await Self.writtenOffline(["needs a token"], root: root)
    let (first, refused) = try await harness.nextBatch()
    refused.resume(throwing: ChatError(.unauthorized, "expired", status: 401))

    // Five minutes pass: nothing is sent again
    _ = await harness.clock.run(step: 1, limit: 300) { false }
    #expect(harness.backend.outboxUploadCount == 1)
    harness.client.credentialsRefreshed()

    // Then only the refresh sends it again, unchanged
    let (again, answer) = try await harness.nextBatch()
    #expect(again == first)
    answer.resume(returning: OutboxReceipt())
    await harness.client.close()
  }

  @Test(
    "the outbox epoch is the installation's: 1 at first, raised by each sign-out only; a guest's numbers go on, and a person replacing another"
  )
  func epochIsTheInstallations() async throws {
    // Given a guest on a fresh installation whose first message, written offline, was uploaded
    let root = TemporaryRoot()
    var harness = try await ClientHarness.start(root: root.path)
    let client = harness.client
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.finish(throwing: ChatError(.network, "tunnel"))
    _ = await chat.state(where: { $0.connection.isOffline })
    chat.sendMessage("hello from the guest")
    let (batch, answer) = try await harness.nextBatch()
    #expect(batch.epoch == 1)
    #expect(batch.firstSequence == 1)
    answer.resume(returning: OutboxReceipt())
    #expect(await waitUntil { client.outboxSequencing?.nextSequence == 2 }, "the batch is done")
    let sequencing = { client.outboxSequencing.map { [Int($0.epoch), $0.nextSequence] } }

    // When the guest signs up keeping their data, then the numbers go on in the same epoch
    client.identify(UserIdentity(userID: "alice"), keepingGuestConversation: true)
    await client.settled()
    #expect(sequencing() == [1, 2])

    // When Alice signs out, the epoch is raised and numbers start at 1
    client.signOut()
    await client.settled()
    #expect(sequencing() == [2, 1])

    // When Bob signs in from there (not a sign-out), the epoch stays; when Carol replaces Bob without a
    // sign-out, it stays too (MyBot's rule: a server checking it must not refuse Carol's batches as stale)
    client.identify(UserIdentity(userID: "bob"))
    await client.settled()
    #expect(sequencing() == [2, 1])
    client.identify(UserIdentity(userID: "carol"))
    await client.settled()
    #expect(sequencing() == [2, 1])
    client.signOut()
    await client.settled()
    #expect(sequencing() == [3, 1])
    await client.close()

    // And the installation keeps it across a relaunch, in every scope
    #expect(try ChatStorage(root: root.path).outboxEpoch() == 3)
    let relaunched = try await ClientHarness.start(identity: UserIdentity(userID: "alice"), root: root.path)
    await relaunched.client.settled()
    #expect(relaunched.client.outboxSequencing?.epoch == 3)
    await relaunched.client.close()
  }

  @Test("sign-out drops the old user's queue; the next user's batches start again at 1")
  func signOutDropsTheQueue() async throws {
    let root = TemporaryRoot()
    let harness = try await Self.writtenOffline(["alice's words"], root: root)

    harness.client.signOut()
    harness.client.identify(UserIdentity(userID: "bob"))
    await harness.client.settled()

    #expect(harness.client.state.outboxCount == 0)
    #expect(harness.client.outboxSequencing?.nextSequence == 1)
    #expect(harness.client.outboxSequencing?.epoch == 2, "the sign-out ended epoch 1")
    let alice = try ChatStorage(root: root.path).scope(StorageScope(workspace: "acme", userID: "u-1")).outbox()
    #expect(alice.operations.isEmpty, "nothing of Alice's is left to upload as anyone")
    await harness.client.close()
  }

  @Test(
    "a message queued when its user signed out shows failed when they sign in again, never queued forever",
    arguments: ["its conversation open", "its conversation closed"])
  func queuedAtSignOutFails(story: String) async throws {
    // Given a message written offline, in the outbox, when its user signs out (with its conversation's store
    // still open, or already closed for being idle)
    let root = TemporaryRoot()
    let harness = try await Self.writtenOffline(["sent from the train"], root: root)
    let client = harness.client
    if story == "its conversation closed" {
      for other in 0..<9 { _ = client.conversation(ConversationID("other-\(other)")) }
      await client.settled()
      #expect(!client.openConversationIDs.contains("c1"))
    }
    client.signOut()
    await client.settled()

    // When the same user signs in again and opens the conversation
    client.identify(UserIdentity(userID: "u-1"))
    let chat = client.conversation("c1")
    await client.settled()

    // Then the message is there, failed with why, ready to be retried
    let message = try #require(chat.state.messages.outgoing.first)
    #expect(message.text == "sent from the train")
    guard case .failed(let error) = message.delivery else {
      Issue.record("expected the message to come back failed, got \(message.delivery)")
      return
    }
    #expect(error.code == .outboxEvicted)
    #expect(error.retryable)
    await client.close()
  }

  @Test("an operation the outbox's bound pushes out fails its message visibly, OUTBOX_EVICTED, also after a relaunch")
  func evictedFailsVisibly() async throws {
    // Given an outbox that holds two operations, and a user offline whose first message's upload failed
    // (a batch once begun is kept whole for its retry: what it holds is never evicted)
    let root = TemporaryRoot()
    let limits = OutboxLimits(maximumOperations: 2)
    let harness = try await Self.firstUploadFailed(root: root, outboxLimits: limits)
    let chat = harness.client.conversation("c1")

    // When two more are written
    chat.sendMessage("second")
    _ = await chat.state(where: { $0.messages.outgoing.last?.delivery == .queued })
    chat.sendMessage("third")

    // Then the oldest one not in the batch fails with why, retryable; the others wait in the outbox
    let evicted = await chat.state(where: { state in
      if case .failed = state.messages.outgoing.first(where: { $0.text == "second" })?.delivery { return true }
      return false
    })
    let second = try #require(evicted?.messages.outgoing.first { $0.text == "second" })
    if case .failed(let error) = second.delivery {
      #expect(error.code == .outboxEvicted)
      #expect(error.retryable)
    } else {
      Issue.record("the evicted message reads \(second.delivery)")
    }
    _ = await chat.state(where: { $0.messages.outgoing.filter { $0.delivery == .queued }.count == 2 })
    await harness.client.settled()
    #expect(harness.client.state.outboxCount == 2)
    await harness.client.close()

    // And after a relaunch it still shows failed (not queued), and the other two still wait
    let again = try await ClientHarness.start(
      identity: UserIdentity(userID: "u-1"), root: root.path, outboxLimits: limits)
    let reopened = again.client.conversation("c1")
    let restored = try #require(await reopened.state(where: { !$0.isRestoring }))
    #expect(restored.messages.outgoing.map(\.text) == ["first", "second", "third"])
    #expect(restored.messages.outgoing.map { $0.delivery == .queued } == [true, false, true])
    if case .failed(let error) = restored.messages.outgoing.first(where: { $0.text == "second" })?.delivery {
      #expect(error.code == .outboxEvicted)
    } else {
      Issue.record("after a relaunch the evicted message reads \(restored.messages.outgoing.map(\.delivery))")
    }
    await again.client.close()
  }

  @Test("an outbox full of a batch on its way refuses a new message with a typed error, and loses nothing")
  func fullOfInFlightBatchRefuses() async throws {
    // Given an outbox of one whose message is in a batch that failed (kept whole for its retry). One, not
    // two: two messages written one after the other may go out in two batches (the outbox begins a batch
    // as soon as the first is durable), and a second outside the batch is evictable, so the story would
    // depend on the scheduler; under ThreadSanitizer in CI it did.
    let root = TemporaryRoot()
    let harness = try await Self.firstUploadFailed(root: root, outboxLimits: OutboxLimits(maximumOperations: 1))
    let chat = harness.client.conversation("c1")

    // When a second is written
    chat.sendMessage("second")

    // Then it fails at once with why (nothing is evicted from a batch that may have reached the server),
    // and the one in the batch still waits
    let refused = try #require(
      await chat.state(where: { state in
        if case .failed = state.messages.outgoing.last?.delivery { return true }
        return false
      }))
    #expect(refused.messages.outgoing.map(\.text) == ["first", "second"])
    #expect(refused.messages.outgoing.first?.delivery == .queued)
    if case .failed(let error) = refused.messages.outgoing.last?.delivery {
      #expect(error.code == .storageFailed)
      #expect(error.retryable)
    }
    await harness.client.close()
  }

  @Test("a message that waited past the outbox's age bound fails OUTBOX_EVICTED when the outbox next looks, not later")
  func expiredFailsWhenTheOutboxLooks() async throws {
    // Given an outbox that keeps operations ten seconds (less than its first retry waits), a first message in
    // a batch whose upload failed, and a second written after it
    let root = TemporaryRoot()
    let limits = OutboxLimits(maximumAge: 10)
    var harness = try await Self.firstUploadFailed(root: root, outboxLimits: limits)
    let chat = harness.client.conversation("c1")
    chat.sendMessage("second")
    _ = await chat.state(where: { $0.messages.outgoing.last?.delivery == .queued })

    // When time passes and the outbox tries again (after its backoff, past the age bound)
    await harness.client.settled()
    let ticker = Self.tick(harness.clock)
    let (batch, retried) = try await harness.nextBatch()
    ticker.cancel()

    // Then the second message failed with why; the batch begun before goes again whole
    #expect(batch.operations.count == 1)
    let expired = await chat.state(where: { state in
      if case .failed = state.messages.outgoing.last?.delivery { return true }
      return false
    })
    if case .failed(let error) = expired?.messages.outgoing.last?.delivery {
      #expect(error.code == .outboxEvicted)
    } else {
      Issue.record("the expired message reads \(String(describing: expired?.messages.outgoing.last?.delivery))")
    }
    retried.resume(returning: OutboxReceipt())
    await harness.client.close()
  }
}
