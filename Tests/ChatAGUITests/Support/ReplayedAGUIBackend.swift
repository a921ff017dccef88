import ChatAGUI
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents

/// A backend whose every run answers with the same AG-UI body, read through the real SSE decoder and
/// `AGUIReplyMapper` (for stories that need no server; the producer tests run the whole transport).
final class ReplayedAGUIBackend: ChatBackend {
  let bodies: StateLock<[String]>
  let appTools: Set<String>
  let threads = StateLock<[ConversationID: AGUIThread]>([:])
  let sent = StateLock<[RunContinuation]>([])

  /// Runs answer with `bodies` in turn (the last repeats); `{RUN}` in a body is the run's ID.
  init(_ bodies: [String], appTools: Set<String> = []) {
    self.bodies = StateLock(bodies)
    self.appTools = appTools
  }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? "thread-1"
    // The device's time, as AGUIBackend gives it (the stores here run on the live clock).
    let user = Message(clientID: payload.clientID, role: .user, text: payload.text, createdAt: Date())
    return run(conversation, user: user)
  }

  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    sent.withLock { $0.append(continuation) }
    return run(conversation, user: nil)
  }

  private func run(_ conversation: ConversationID, user: Message?) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let runNumber = sent.withLock { $0.count } + 1
    let runID = "run-\(runNumber)"
    let body = bodies.withLock { bodies in bodies.count > 1 ? bodies.removeFirst() : bodies[0] }
      .replacingOccurrences(of: "{RUN}", with: runID)
    var thread = threads.withLock { $0[conversation] } ?? AGUIThread()
    if let user { thread.upsert(AGUIThread.userMessage(user)) }
    var mapper = AGUIReplyMapper(
      runID: runID, conversationID: conversation, thread: thread, userMessage: user, appTools: appTools,
      receivedAt: Date())
    return AsyncThrowingStream { continuation in
      var decoder = ServerSentEventDecoder()
      do throws(ChatError) {
        for case .event(let event) in (try? decoder.feed(Array(body.utf8))) ?? [] {
          for reply in try mapper.map(event) { continuation.yield(reply) }
        }
        for reply in try mapper.finish() { continuation.yield(reply) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
      threads.withLock { $0[conversation] = mapper.thread }
    }
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}

/// An SSE body of AG-UI events, one `data:` line each, as the reference encoder writes them.
func sse(_ events: [String]) -> String { events.map { "data: \($0)\n\n" }.joined() }

/// The frames of JSON lines, decoded.
func frames(_ lines: [String]) throws(AGUIViolation) -> [AGUIFrame] {
  try lines.map { line throws(AGUIViolation) in try AGUIFrame(json: line) }
}
