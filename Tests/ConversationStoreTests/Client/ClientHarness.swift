import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// A client on a `ControlledBackend`, with its shared realtime connection opened and answered.
struct ClientHarness {
  let client: ChatClient
  let backend: ControlledBackend
  var calls: AsyncStream<ControlledBackend.Call>.Iterator
  let socket: ControlledBackend.RealtimeStream
  let clock: TestClock

  static func start(
    identity: UserIdentity? = nil, root: String? = nil, maximumIdle: Int = 8, opened: Bool = true,
    onHostOperation: (@Sendable (HostOperationOutcome) -> Void)? = nil, diagnostics: ClientDiagnostic.Sink? = nil,
    outboxLimits: OutboxLimits = OutboxLimits(),
    onStorageError: (@Sendable (PersistenceError) -> Void)? = nil,
    onStorageRecovered: (@Sendable (StorageRecovery) -> Void)? = nil
  ) async throws -> ClientHarness {
    let backend = ControlledBackend()
    var calls = backend.calls.makeAsyncIterator()
    let storage = try root.map { try ChatStorage(root: $0) }
    let clock = TestClock()
    let client = ChatClient(
      backend: backend, identity: identity,
      options: ChatClientOptions(
        workspace: "acme", storage: storage, maximumIdleConversations: maximumIdle, onStorageError: onStorageError,
        onHostOperation: onHostOperation, diagnostics: diagnostics, outboxLimits: outboxLimits,
        onStorageRecovered: onStorageRecovered),
      environment: .deterministic(clock: clock))
    guard case .realtime(nil, let socket) = await calls.next() else {
      throw HarnessError(description: "the client did not open its realtime connection first")
    }
    if opened { socket.yield(.opened) }
    return ClientHarness(client: client, backend: backend, calls: calls, socket: socket, clock: clock)
  }

  /// Drops the realtime connection `socket` with `error`; true once the client reads it as offline.
  func drop(_ socket: ControlledBackend.RealtimeStream, throwing error: ChatError) async -> Bool {
    socket.finish(throwing: error)
    let client = client
    return await waitUntil { client.state.connection.isOffline }
  }

  /// The reconnect due `seconds` after a drop: lets the client start its timer, moves virtual time and opens
  /// the new connection. Nil when the client's next call is not a new connection.
  mutating func reconnect(after seconds: Double) async -> ControlledBackend.RealtimeStream? {
    await client.settled()
    clock.advance(by: seconds)
    guard case .realtime(nil, let socket) = await calls.next() else { return nil }
    socket.yield(.opened)
    return socket
  }

  /// The next call other than a catch-up after a reconnect (answered with nothing missed on the way: the
  /// order of a catch-up and other calls is up to the runtime).
  mutating func nextCall() async -> ControlledBackend.Call? {
    while let call = await calls.next() {
      guard case .messagesAfter(_, _, let answer) = call else { return call }
      answer.resume(returning: [])
    }
    return nil
  }

  /// The next call, which must be a send.
  mutating func nextSend() async throws -> (SendPayload, ControlledBackend.ReplyStream) {
    guard case .send(let payload, let reply) = await nextCall() else {
      throw HarnessError(description: "expected a send")
    }
    return (payload, reply)
  }

  /// The next call, which must be a catch-up after a reconnect; answered with `missed`.
  mutating func answerCatchUp(_ missed: [Message] = []) async throws {
    guard case .messagesAfter(_, _, let answer) = await calls.next() else {
      throw HarnessError(description: "expected a catch-up request")
    }
    answer.resume(returning: missed)
  }

  /// The next call, which must be an outbox batch upload.
  /// Reconnects of the shared connection meanwhile are left connecting: uploads do not wait for it.
  mutating func nextBatch() async throws -> (OutboxBatch, CheckedContinuation<OutboxReceipt, any Error>) {
    while true {
      switch await nextCall() {
      case .uploadOutbox(let batch, let answer): return (batch, answer)
      case .realtime(nil, _): continue
      default: throw HarnessError(description: "expected an outbox batch")
      }
    }
  }

  /// Answers the first list load with `rows`.
  mutating func loadList(_ rows: [ConversationSummary]) async throws {
    client.list.send(.load(pageSize: 20))
    guard case .conversations(_, _, let page) = await calls.next() else {
      throw HarnessError(description: "expected a conversation page request")
    }
    page.resume(returning: ConversationPage(conversations: rows, nextCursor: nil, hasMore: false))
    _ = await client.list.state(where: { $0.conversations.count == rows.count })
  }
}

struct HarnessError: Error, CustomStringConvertible {
  let description: String
}

/// A temporary storage root, deleted when dropped.
final class TemporaryRoot {
  let path = NSTemporaryDirectory() + "chat-client-" + UUID().uuidString
  deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension ConversationSummary {
  /// A row last active `seconds` into a day before the test clock starts, so anything happening in a test is newer.
  static func row(_ id: ConversationID, at seconds: Double, unread: Int = 0) -> ConversationSummary {
    ConversationSummary(
      id: id, title: "Conversation \(id)", lastActivityAt: Date(timeIntervalSince1970: 1_735_000_000 + seconds),
      unreadCount: unread)
  }
}

extension ConversationList {
  /// The row at the top of the list.
  var top: ConversationSummary? { first { _ in true } }
}
