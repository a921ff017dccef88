package import ConversationState
package import Foundation

/// What a step of a client, or of one of its conversations, tells a host's diagnostics
/// (`ClientDiagnostic`), read from the state before and after it: a pure function, so the client's runtime
/// only reads its clock, calls it, and hands the events on. Nothing here looks at a message, an ID or an
/// error's text; every field comes from a counter, a state's case, a batch's size or a redacted failure.
///
/// ```swift
/// let before = state
/// let effects = ClientReducer().reduce(into: &state, action: action)
/// let events = DiagnosticRules.events(from: before, to: state, by: action, at: clock.now())
/// ```
package enum DiagnosticRules {
  /// The client's own events for one reduced `action` (its shared connection and its outbox uploader),
  /// seen at `at` on the device's clock. The action is read only where the state cannot tell: how many
  /// operations of an answered batch the server refused, and that a batch left the uploader refused whole.
  package static func events(from old: ClientState, to new: ClientState, by action: ClientAction, at: Date)
    -> [ClientDiagnostic]
  {
    (connection(from: old, to: new, at: at) + outbox(from: old, to: new, by: action, at: at))
      .map { ClientDiagnostic($0, at: at) }
  }

  private static func connection(from old: ClientState, to new: ClientState, at: Date) -> [ClientDiagnostic.Code] {
    var codes: [ClientDiagnostic.Code] = []
    if old.connection != new.connection {
      switch new.connection {
      case .connecting:
        codes.append(.connectionConnecting(attempt: new.failedConnectionAttempts + 1))
      case .connected where old.connection == .connecting:
        codes.append(.connectionOpened(attempt: new.failedConnectionAttempts + 1))
      case .reconnecting(let attempt, let retryAt):
        codes.append(
          .connectionLost(
            attempt: attempt, retryDelayMilliseconds: milliseconds(from: at, to: retryAt),
            failure: ClientDiagnostic.Failure(new.backgroundError)))
      case .closed where new.needsCredentials && !new.isClosed:
        codes.append(.connectionNeedsCredentials(failure: ClientDiagnostic.Failure(new.backgroundError)))
      case .idle, .connected, .syncing, .closed:
        // Forgotten for another person, or closed with the client: nothing happened to the network.
        break
      }
    }
    if old.connection == .connected, new.connection == .connected, old.failedConnectionAttempts > 0,
      new.failedConnectionAttempts == 0
    {
      codes.append(.connectionHealthy(afterFailedAttempts: old.failedConnectionAttempts))
    }
    return codes
  }

  private static func outbox(from old: ClientState, to new: ClientState, by action: ClientAction, at: Date)
    -> [ClientDiagnostic.Code]
  {
    var codes: [ClientDiagnostic.Code] = []
    switch action {
    case .batchUploaded(let request, let receipt):
      if case .uploading(request, let batch) = old.outbox {
        let refused = Set(receipt.rejections.map(\.operationID))
        codes.append(
          .outboxBatchUploaded(
            operations: batch.operations.count, refused: batch.operations.count { refused.contains($0.id) }))
      }
    case .batchFailed(let request, _, _, _):
      // Only a batch refused whole leaves the uploader for the next one on a failure.
      if case .uploading(request, let batch) = old.outbox, case .preparing = new.outbox {
        codes.append(
          .outboxBatchRefused(
            operations: batch.operations.count, failure: ClientDiagnostic.Failure(new.backgroundError)))
      }
    default:
      break
    }
    guard old.outbox != new.outbox else { return codes }
    switch new.outbox {
    case .uploading(_, let batch):
      if case .preparing = old.outbox {
        codes.append(.outboxBatchPrepared(operations: batch.operations.count, attempt: new.outboxFailures + 1))
      }
    case .waiting(let attempt, let retryAt):
      codes.append(
        .outboxBatchFailed(
          attempt: attempt, retryDelayMilliseconds: milliseconds(from: at, to: retryAt),
          failure: ClientDiagnostic.Failure(new.backgroundError)))
    case .needsCredentials:
      codes.append(.outboxWaitingForCredentials(failure: ClientDiagnostic.Failure(new.backgroundError)))
    case .idle, .preparing:
      break
    }
    return codes
  }

  /// Whole milliseconds from `at` to `retryAt`, clamped as every timer is (`ChatPolicy.timerDelay`: 0 to
  /// 30 days), so a time from outside can never trap the conversion.
  static func milliseconds(from at: Date, to retryAt: Date) -> Int {
    Int((ChatPolicy.timerDelay(retryAt.timeIntervalSince(at)) * 1000).rounded())
  }
}
