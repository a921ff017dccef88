public import ConversationState
public import ConversationStore
import Foundation

/// A `ChatBackend` that plays scripted agent replies on a clock: for demos, and for tests that want a
/// whole conversation to happen without answering every call by hand.
///
/// Every request that streams a reply (a send, a regeneration, a continuation) plays the next queued reply
/// (see `ReplyScript`), "OK." when none is left; the `N`th reply played names the user's message `s-N-q`
/// and the answer `s-N-a`. A send that creates a conversation (no `conversationID`) names it
/// `conv-scripted-K`, `K` counting the conversations created so far from 1, so two new conversations are
/// two list rows; a send whose reply fails (`<error …>`) creates none. Once the user answered the approval
/// a reply asked for (`<approve …>`), or the app's tools their calls (`<tool NAME client>` under
/// `ToolResultDelivery.nextRun`), the answer's continuation (`continueRun`) plays the next queued reply,
/// which continues the same answer.
///
/// ```swift
/// let clock = TestClock()
/// let backend = try ScriptedBackend(
///   clock: clock, replies: ["Hel|lo |wor|ld.|<finish>", "<error 429 RATE_LIMITED retry-after=2>"])
/// let store = ChatStore(backend: backend, environment: .deterministic(clock: clock))
/// store.sendMessage("Hi")
/// clock.advance(by: 1)  // the reply streams in, one piece every `interval`
/// ```
public final class ScriptedBackend: ChatBackend {
  private struct Script: Sendable {
    var replies: [ReplyScript]
    var historyPages: [HistoryPage]
    var conversationPages: [ConversationPage]
    /// Replies played so far: sends, regenerations and continuations.
    var sends = 0
    /// Conversations created by a send so far.
    var conversations = 0
    /// The continuations asked for so far, in order.
    var continuations: [RunContinuation] = []
    var tickets = 0
    /// Results the app submitted for `<ask …>` calls, by call.
    var toolResults: [ToolCallID: ToolCall.Outcome] = [:]
    var toolWaiters: [ToolCallID: CheckedContinuation<ToolCall.Outcome?, Never>] = [:]
    /// Open realtime connections, to stream `<realtime>` replies on.
    var sockets: [Int: AsyncThrowingStream<RealtimeUpdate, any Error>.Continuation] = [:]
    var nextSocket = 0
    /// File names whose next upload fails once.
    var failingUploads: Set<String> = []
    var uploads: [String] = []
    /// The list changes and deletions received, in order.
    var listChanges: [ListChange] = []
    /// When set, every list change and deletion is refused with it.
    var listRefusal: ChatError?

    /// Takes the next queued reply ("OK." when none is left) with its number among the replies played.
    mutating func nextReply() -> (Int, ReplyScript) {
      sends += 1
      // "OK." is plain text, which always reads.
      return (sends, replies.isEmpty ? try! ReplyScript("OK.") : replies.removeFirst())
    }
  }

  /// A change of the user's list the backend received (`updateConversation`, `deleteConversation`).
  public enum ListChange: Hashable, Sendable {
    case updated(ConversationID, ConversationChange)
    case deleted(ConversationID)
  }

  private let clock: any ChatClock
  private let interval: Double
  private let historyDelay: Double
  private let realtimeFailure: ChatError?
  private let agent: AgentInfo?
  private let script: StateLock<Script>

  /// - Parameters:
  ///   - clock: the clock its pieces wait on: a `TestClock` in a test, `SystemChatClock()` in a demo.
  ///   - replies: one notation per reply, in order (see `ReplyScript`): a send's, a regeneration's or a
  ///     continuation's; replies past the last are "OK."
  ///   - interval: seconds between pieces of a reply.
  ///   - historyPages: pages served in order by `history`; an empty last page after them.
  ///   - historyDelay: how long each history page takes (a slow page).
  ///   - conversationPages: pages of the conversation list served in order; an empty last page after them.
  ///   - realtimeFailure: when set, the realtime connection fails with it instead of opening.
  ///   - agent: who answers (nil: an unnamed assistant).
  public init(
    clock: any ChatClock, replies: [String] = [], interval: Double = 0.05, historyPages: [HistoryPage] = [],
    historyDelay: Double = 0, conversationPages: [ConversationPage] = [], realtimeFailure: ChatError? = nil,
    agent: AgentInfo? = AgentInfo(id: "agent", name: "Agent")
  ) throws {
    self.clock = clock
    self.interval = interval
    self.historyDelay = historyDelay
    self.realtimeFailure = realtimeFailure
    self.agent = agent
    script = StateLock(
      Script(
        replies: try replies.map(ReplyScript.init), historyPages: historyPages, conversationPages: conversationPages))
  }

  /// Queues more replies.
  public func enqueue(_ notation: String) throws {
    let reply = try ReplyScript(notation)
    script.withLock { $0.replies.append(reply) }
  }

  /// Confirms the message and plays the next queued reply ("OK." when none is left) on the backend's clock.
  /// A send with no `conversationID` creates the conversation `conv-scripted-K`, the `K`th created (from 1),
  /// unless its reply fails the send.
  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (number, reply, conversationID) = script.withLock { script in
      let (number, reply) = script.nextReply()
      if let conversationID = payload.conversationID { return (number, reply, conversationID) }
      // A failed send creates nothing, and the next conversation takes the number; the stream fails before
      // anything names this placeholder.
      guard !reply.failsTheSend else { return (number, reply, ConversationID("conv-scripted-unsent")) }
      script.conversations += 1
      return (number, reply, ConversationID("conv-scripted-\(script.conversations)"))
    }
    let confirmed = Message(
      clientID: payload.clientID, serverID: ServerMessageID("s-\(number)-q"), role: .user, text: payload.text,
      createdAt: clock.now(), attachments: payload.attachments)
    return play(
      reply, number: number, accepted: .accepted(confirmed, conversationID: conversationID),
      conversationID: conversationID, answerID: ServerMessageID("s-\(number)-a"))
  }

  /// Plays the next queued reply ("OK." when none is left), the same as for a send but with no confirmation.
  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let (number, reply) = script.withLock { $0.nextReply() }
    return play(
      reply, number: number, accepted: nil, conversationID: conversation, answerID: ServerMessageID("s-\(number)-a"))
  }

  /// Continues the answer that waited (an approval answered, the app's tool results in): plays the next
  /// queued reply ("OK." when none is left) as the rest of that answer, with no confirmation. Its finish
  /// names the answer it continues (`continuation.answer`), so the answer keeps its server ID. A `<result>`
  /// for a call the user denied changes nothing (the store keeps it denied), so one script serves either
  /// answer; script the text for the answer a test gives. `continuations` lists what each one carried.
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let (number, reply) = script.withLock { script in
      script.continuations.append(continuation)
      return script.nextReply()
    }
    return play(
      reply, number: number, accepted: nil, conversationID: conversation,
      answerID: continuation.answer ?? ServerMessageID("s-\(number)-a"))
  }

  /// The continuations the store asked for so far (`continueRun`), in order: the answer each continued,
  /// with the user's answers and the app's tool results it carried.
  public var continuations: [RunContinuation] { script.withLock { $0.continuations } }

  /// Sends `event` on every open realtime connection.
  private func broadcast(_ event: RealtimeEvent, in conversationID: ConversationID) {
    let sockets = script.withLock { Array($0.sockets.values) }
    for socket in sockets { socket.yield(.event(conversationID, event)) }
  }

  /// Streams `reply`: `accepted` first when set, then its steps one `interval` apart. `answerID` is the
  /// server ID of the answer it streams (a continuation's is the answer it continues).
  private func play(
    _ reply: ReplyScript, number: Int, accepted: ReplyEvent?, conversationID: ConversationID,
    answerID replyID: ServerMessageID
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let clock = clock
    let interval = interval
    let agent = agent
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          if case .fail(let error) = reply.steps.first { throw error }
          if let accepted { continuation.yield(accepted) }
          let viaRealtime = reply.steps.first == .viaRealtime
          continuation.yield(.started(agent: agent, replyID: viaRealtime ? replyID : nil))
          var text = ""
          var run = ScriptedRun(number: number)
          for step in reply.steps {
            try await clock.sleep(seconds: interval)
            for event in run.events(for: step) { continuation.yield(event) }
            switch step {
            case .viaRealtime, .toolCall, .toolResult, .toolFailed, .approval, .reasoning, .source:
              break
            case .delta(let delta) where viaRealtime:
              text += delta
              self.broadcast(.replyDelta(replyID, delta), in: conversationID)
            case .delta(let delta):
              text += delta
              continuation.yield(.delta(delta))
            case .wait(let seconds):
              try await clock.sleep(seconds: seconds)
            case .ask(let name, let arguments):
              let callID = ToolCallID("\(name)-\(number)")
              continuation.yield(
                .toolCall(ToolCall(id: callID, name: name, input: arguments, execution: .client)))
              guard let outcome = await self.result(of: callID) else { throw CancellationError() }
              continuation.yield(.toolResult(callID, outcome))
            case .finish:
              let message = Message(
                clientID: ClientMessageID("s-\(number)-a"), serverID: replyID,
                role: .assistant, text: text, createdAt: clock.now(), reply: .completed, agent: agent)
              if viaRealtime {
                self.broadcast(.replyFinished(replyID, message), in: conversationID)
              } else {
                continuation.yield(.finished(message))
              }
              continuation.finish()
              return
            case .end:
              continuation.finish()
              return
            case .drop:
              throw ChatError(.network, "The connection dropped mid-reply.")
            case .fail(let error):
              throw error
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// File names uploaded so far, in order (one entry per upload the runtime really made).
  public var uploadedFiles: [String] { script.withLock { $0.uploads } }

  /// Makes the next upload of `filename` fail with a retryable network error.
  public func failNextUpload(of filename: String) {
    script.withLock { _ = $0.failingUploads.insert(filename) }
  }

  /// Stores an attachment in two steps on the clock (half, then all of it) at
  /// `https://files.example/<filename>`, unless `failNextUpload(of:)` asked for a failure.
  public func upload(_ attachment: AttachmentUpload) -> AsyncThrowingStream<UploadEvent, any Error> {
    let clock = clock
    let interval = interval
    let fails = script.withLock { script in
      script.uploads.append(attachment.filename)
      return script.failingUploads.remove(attachment.filename) != nil
    }
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          try await clock.sleep(seconds: interval)
          continuation.yield(.progress(0.5))
          try await clock.sleep(seconds: interval)
          if fails { throw ChatError(.network, "The upload of \(attachment.filename) failed.") }
          continuation.yield(.stored(URL(string: "https://files.example/\(attachment.filename)")!))
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// What the app submitted for each `<ask …>` call so far.
  public var submittedToolResults: [ToolCallID: ToolCall.Outcome] { script.withLock { $0.toolResults } }

  /// Records the app's result and lets the waiting reply go on.
  public func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws {
    let waiter = script.withLock { script in
      script.toolResults[call] = outcome
      return script.toolWaiters.removeValue(forKey: call)
    }
    waiter?.resume(returning: outcome)
  }

  /// Waits for the app's result of `call`; nil when the reply's task is cancelled first.
  private func result(of call: ToolCallID) async -> ToolCall.Outcome? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ToolCall.Outcome?, Never>) in
        let ready = script.withLock { script -> ToolCall.Outcome?? in
          if let outcome = script.toolResults[call] { return .some(outcome) }
          if Task.isCancelled { return .some(nil) }
          script.toolWaiters[call] = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      script.withLock { $0.toolWaiters.removeValue(forKey: call) }?.resume(returning: nil)
    }
  }

  /// Serves the next history page after `historyDelay` seconds on the clock; an empty last page when none is left.
  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    if historyDelay > 0 { try await clock.sleep(seconds: historyDelay) }
    return script.withLock { script in
      script.historyPages.isEmpty
        ? HistoryPage(messages: [], nextCursor: nil, hasMore: false) : script.historyPages.removeFirst()
    }
  }

  /// Nothing to catch up on: a scripted server sends no messages of its own.
  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }

  /// A connection that opens at once and stays open, or that fails with `realtimeFailure` when one is set.
  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    let failure = realtimeFailure
    return AsyncThrowingStream { continuation in
      if let failure {
        continuation.finish(throwing: failure)
        return
      }
      let socket = script.withLock { script in
        script.nextSocket += 1
        script.sockets[script.nextSocket] = continuation
        return script.nextSocket
      }
      continuation.onTermination = { [weak self] _ in
        _ = self?.script.withLock { $0.sockets.removeValue(forKey: socket) }
      }
      continuation.yield(.opened)
    }
  }

  /// Serves the next conversation page; an empty last page when none is left.
  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    script.withLock { script in
      script.conversationPages.isEmpty
        ? ConversationPage(conversations: [], nextCursor: nil, hasMore: false) : script.conversationPages.removeFirst()
    }
  }

  /// Accepts and records every change of the list (`listChanges`), unless `refuseListChanges(with:)` said.
  public func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    try recordListChange(.updated(conversation, change))
  }

  /// Accepts and records every deletion (`listChanges`), unless `refuseListChanges(with:)` said.
  public func deleteConversation(_ conversation: ConversationID) async throws {
    try recordListChange(.deleted(conversation))
  }

  /// The list changes and deletions received so far, in order (refused ones included).
  public var listChanges: [ListChange] { script.withLock { $0.listChanges } }

  /// From now on, refuses every list change and deletion with `error` (nil: accepts them again), as a
  /// server that is down (`.network`) or says no (`.unauthorized`) does.
  public func refuseListChanges(with error: ChatError?) { script.withLock { $0.listRefusal = error } }

  private func recordListChange(_ change: ListChange) throws {
    let refusal = script.withLock { script -> ChatError? in
      script.listChanges.append(change)
      return script.listRefusal
    }
    if let refusal { throw refusal }
  }

  /// Accepts every rating.
  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {}
  /// Accepts every conversation rating.
  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {}
  /// Opens a ticket numbered in order: `T-1`, `T-2`, …
  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    let number = script.withLock { script in
      script.tickets += 1
      return script.tickets
    }
    return TicketReceipt(ticketID: "T-\(number)")
  }
}
