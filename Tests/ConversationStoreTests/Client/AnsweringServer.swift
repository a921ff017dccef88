import ConversationTesting
import Foundation

@testable import ConversationStore

/// A server that answers everything at once, remembers every realtime stream it handed out and whether the
/// client let go of it, and can break or expire the live ones on demand.
final class AnsweringServer: Sendable {
  let backend = ControlledBackend()
  private let sockets = Sockets()
  private let uploaded = StateLock<Set<ClientMessageID>>([])
  private let offline = StateLock(false)
  private let refusing = StateLock(false)
  private let answered = StateLock(0)
  private let kinds = StateLock<[String]>([])
  private let task = StateLock<Task<Void, Never>?>(nil)

  /// The realtime streams handed out that may still be live (finishing an ended one does nothing).
  final class Sockets: Sendable {
    let value = StateLock<[Int: ControlledBackend.RealtimeStream]>([:])
    func withLock<T: Sendable>(_ body: (inout [Int: ControlledBackend.RealtimeStream]) -> T) -> T {
      value.withLock { body(&$0) }
    }
  }

  /// `failingRealtimeEvery` n: every nth realtime stream ends at once with an expired credential;
  /// `failingUploadsEvery` n: every nth outbox upload fails with a retryable network error.
  init(failingRealtimeEvery: Int = 0, failingUploadsEvery: Int = 0) {
    let calls = backend.calls
    let sockets = sockets
    let uploaded = uploaded
    let offline = offline
    let refusing = refusing
    let answered = answered
    let kinds = kinds
    let refused = ChatError(.unauthorized, "the token was refused", status: 401)
    let unreachable = ChatError(.network, "The server cannot be reached.")
    task.withLock {
      $0 = Task {
        var realtimeCalls = 0
        var uploads = 0
        for await call in calls {
          answered.withLock { $0 += 1 }
          kinds.withLock { $0.append(String(describing: call).prefix(while: { $0 != "(" }).description) }
          switch call {
          case .realtime(_, let socket):
            realtimeCalls += 1
            // Counted by the backend from the moment the client asked (see `realtime`), not here: the
            // client may let go of a stream before this task reads the call.
            sockets.withLock { $0[realtimeCalls] = socket }
            if offline.withLock({ $0 }) {
              socket.finish(throwing: unreachable)
            } else if refusing.withLock({ $0 }) {
              socket.finish(throwing: refused)
            } else if failingRealtimeEvery > 0, realtimeCalls % failingRealtimeEvery == 0 {
              socket.finish(throwing: ChatError(.unauthorized, "expired", status: 401))
            } else {
              socket.yield(.opened)
            }
          case .send(_, let reply) where offline.withLock({ $0 }):
            reply.finish(throwing: unreachable)
          case .uploadOutbox(_, let answer) where offline.withLock({ $0 }):
            answer.resume(throwing: unreachable)
          case .send(_, let reply) where refusing.withLock({ $0 }):
            reply.finish(throwing: refused)
          case .uploadOutbox(_, let answer) where refusing.withLock({ $0 }):
            answer.resume(throwing: refused)
          case .send(let payload, let reply):
            let message = Message.server(
              payload.text, id: "s-\(payload.clientID)", role: .user, at: 1, clientID: payload.clientID)
            reply.yield(.accepted(message, conversationID: payload.conversationID ?? "c-new"))
            reply.finish()
          case .regenerate(_, _, _, let reply), .resume(_, let reply): reply.finish()
          case .history(_, _, _, let answer):
            answer.resume(returning: HistoryPage(messages: [], nextCursor: nil, hasMore: false))
          case .messagesAfter(_, _, let answer): answer.resume(returning: [])
          case .conversations(_, _, let answer):
            answer.resume(returning: ConversationPage(conversations: [], nextCursor: nil, hasMore: false))
          case .rate(_, _, let answer), .feedback(_, _, let answer), .contactDetails(_, let answer): answer.resume()
          case .ticket(_, let answer): answer.resume(throwing: ChatError(.unsupported, "no tickets"))
          case .uploadOutbox(let batch, let answer):
            uploads += 1
            if failingUploadsEvery > 0, uploads % failingUploadsEvery == 0 {
              answer.resume(throwing: ChatError(.network, "the upload was cut"))
            } else {
              let sent = batch.operations.compactMap { operation -> ClientMessageID? in
                guard case .send(let outgoing) = operation.kind else { return nil }
                return outgoing.clientID
              }
              uploaded.withLock { $0.formUnion(sent) }
              answer.resume(returning: OutboxReceipt())
            }
          }
        }
      }
    }
  }

  deinit { task.withLock { $0 }?.cancel() }

  /// Realtime streams handed out, and how many of them the client let go of.
  var realtime: (opened: Int, released: Int) { backend.realtimeStreams }

  /// The messages the server has taken in an outbox batch it accepted.
  var uploadedMessages: Set<ClientMessageID> { uploaded.withLock { $0 } }

  /// Realtime streams the client still holds.
  var liveSockets: Int { backend.realtimeStreams.opened - backend.realtimeStreams.released }

  /// While offline, the server cannot be reached: new realtime streams, sends and uploads fail with a
  /// network error (what is live already stays, until `breakLiveSockets`).
  func setOffline(_ isOffline: Bool) { offline.withLock { $0 = isOffline } }

  /// While refusing, every token is refused (a revoked account): new realtime streams, sends and uploads
  /// fail with 401.
  func setRefusingTokens(_ isRefusing: Bool) { refusing.withLock { $0 = isRefusing } }

  /// How many calls the client has made so far.
  var callCount: Int { answered.withLock { $0 } }

  /// The kinds of the calls made after the first `skipping`, counted (for a failure message).
  func callKinds(after skipping: Int) -> [String: Int] {
    kinds.withLock { Dictionary($0.dropFirst(skipping).map { ($0, 1) }, uniquingKeysWith: +) }
  }

  /// Ends every live realtime stream with `error` (a dropped network, an expired credential).
  func breakLiveSockets(with error: ChatError) {
    let handedOut = sockets.withLock { sockets in
      defer { sockets = [:] }
      return Array(sockets.values)
    }
    for socket in handedOut { socket.finish(throwing: error) }
  }
}
