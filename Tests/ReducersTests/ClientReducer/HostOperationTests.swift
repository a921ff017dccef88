import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// The host's own operations ride the outbox's batches; what the server says of each goes to the host, not to
/// a conversation.
@Suite("Client reducer: host operations")
struct HostOperationTests {
  static let event = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened"])
  static let profile = HostOperation(kind: "profile.set", payload: ["plan": "pro"])

  /// A batch of a message, an analytics event and a profile property, in that order.
  static let batch = OutboxBatch(
    id: "b1", epoch: 0, firstSequence: 1,
    operations: [
      OutboxOperation(
        id: "send-c1", conversationID: "conv-1",
        kind: .send(OutgoingMessage(clientID: "c1", text: "Hi", createdAt: ClientReducerTests.now)),
        enqueuedAt: ClientReducerTests.now),
      OutboxOperation(id: "host-1", conversationID: nil, kind: .host(event), enqueuedAt: ClientReducerTests.now),
      OutboxOperation(id: "host-2", conversationID: "conv-1", kind: .host(profile), enqueuedAt: ClientReducerTests.now),
    ])

  /// A started client uploading `batch` as request 3.
  static func uploading() -> TestStore<ClientReducer> {
    let store = ClientReducerTests.started()
    store.exhaustivity = .off
    store.send(.outboxChanged)
    store.send(.batchPrepared(ClientReducerTests.request(3), batch))
    store.exhaustivity = .on
    return store
  }

  @Test("the server accepts one host operation and refuses the other: the host hears both, in batch order")
  func acceptedAndRefused() {
    // Given a batch with a message and two host operations on its way
    let store = Self.uploading()

    // When the server takes it, refusing the profile property
    let receipt = OutboxReceipt(
      rejections: [OutboxRejection(operationID: "host-2", reason: .invalid, message: "Unknown property plan")])

    // Then the message is done as usual, and the host hears of its two, in order; no conversation does
    let refusal = OutboxRejection(operationID: "host-2", reason: .invalid, message: "Unknown property plan").error
    store.send(
      .batchUploaded(ClientReducerTests.request(3), receipt),
      effects: [
        .cancelTimer(.outboxRetry), .finishBatch("b1"),
        .reportHostOperations([
          HostOperationOutcome(id: "host-1", operation: Self.event, conversationID: nil, result: .accepted),
          HostOperationOutcome(
            id: "host-2", operation: Self.profile, conversationID: "conv-1", result: .refused(refusal)),
        ]),
        .prepareBatch(ClientReducerTests.request(4)),
      ]
    ) {
      $0.outbox = .preparing(ClientReducerTests.request(4))
      $0.nextRequest = 4
    }
  }

  @Test("a host operation the server refuses as too large is OPERATION_TOO_LARGE, not a message too long")
  func tooLarge() {
    let store = Self.uploading()
    store.exhaustivity = .off
    let effects = store.send(
      .batchUploaded(
        ClientReducerTests.request(3),
        OutboxReceipt(rejections: [OutboxRejection(operationID: "host-1", reason: .tooLarge)])
      ))
    guard
      case .reportHostOperations(let outcomes)? = effects.first(where: {
        if case .reportHostOperations = $0 { true } else { false }
      }),
      case .refused(let error) = outcomes.first?.result
    else {
      Issue.record("expected the host to hear the refusal")
      return
    }
    #expect(error.code == .operationTooLarge)
  }

  @Test("a batch refused whole: the message fails where it was made, and the host hears both of its own refused")
  func refusedWhole() {
    let store = Self.uploading()
    let refused = ChatError(.invalidAction, "no such epoch")
    store.send(
      .batchFailed(ClientReducerTests.request(3), refused, at: ClientReducerTests.now, jitter: 0.5),
      effects: [
        .finishBatch("b1"), .returnRefused([RefusedOperation(Self.batch.operations[0], refused)]),
        .reportHostOperations([
          HostOperationOutcome(id: "host-1", operation: Self.event, conversationID: nil, result: .refused(refused)),
          HostOperationOutcome(
            id: "host-2", operation: Self.profile, conversationID: "conv-1", result: .refused(refused)),
        ]),
        .prepareBatch(ClientReducerTests.request(4)),
      ]
    ) {
      $0.outbox = .preparing(ClientReducerTests.request(4))
      $0.backgroundError = refused
      $0.nextRequest = 4
    }
  }

  @Test("a batch the server already had (its answer was lost) counts as accepted, host operations too")
  func duplicateBatch() {
    let store = Self.uploading()
    store.exhaustivity = .off
    let effects = store.send(.batchUploaded(ClientReducerTests.request(3), OutboxReceipt(isDuplicate: true)))
    #expect(
      effects.contains(
        .reportHostOperations([
          HostOperationOutcome(id: "host-1", operation: Self.event, conversationID: nil, result: .accepted),
          HostOperationOutcome(id: "host-2", operation: Self.profile, conversationID: "conv-1", result: .accepted),
        ])))
    #expect(!effects.contains { if case .returnRefused = $0 { true } else { false } })
  }

  @Test(
    "a host operation is checked before it is queued: its kind, and its payload's size under the policy",
    arguments: [
      (HostOperation(kind: "", payload: [:]), ChatError.Code.invalidAction),
      (HostOperation(kind: "has space", payload: [:]), .invalidAction),
      (HostOperation(kind: String(repeating: "k", count: 65), payload: [:]), .invalidAction),
      (HostOperation(kind: "émoji", payload: [:]), .invalidAction),
      (
        HostOperation(kind: "analytics.event", payload: ["blob": .string(String(repeating: "x", count: 70_000))]),
        .operationTooLarge
      ),
    ])
  func refusedBeforeQueueing(operation: HostOperation, code: ChatError.Code) {
    #expect(operation.refusal(under: ChatPolicy())?.code == code)
  }

  @Test("a well-formed operation, at the policy's bound, is queued")
  func withinBounds() {
    var policy = ChatPolicy()
    let payload: JSONValue = ["blob": .string(String(repeating: "x", count: 100))]
    policy.maximumHostOperationBytes = payload.encodedByteCount
    #expect(HostOperation(kind: "analytics.event-2_b", payload: payload).refusal(under: policy) == nil)
    policy.maximumHostOperationBytes -= 1
    #expect(
      HostOperation(kind: "analytics.event-2_b", payload: payload).refusal(under: policy)?.code == .operationTooLarge)
  }
}
