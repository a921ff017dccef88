public import ConversationState

/// A backend whose every request carries the conversation: an agent protocol (AG-UI, the AI SDK's stream,
/// OpenAI's APIs) that keeps no conversation on the server.
///
/// The store builds each request's `AgentContext` from the conversation it shows and stores, and calls the
/// methods below with it; the backend encodes it and keeps nothing between requests. So what the agent is
/// sent is what the user sees, after a relaunch and from a second client on the same storage too. Older
/// messages than memory holds come from storage through the store's `storedHistory` reader: `ChatClient`
/// with `ChatStorage` passes it; a `ChatStore` wired by hand needs `storedHistory: file.historyReader`, and
/// without one only what memory holds is sent.
///
/// Six requirements have no defaults: `contextPolicy`, `toolResultDelivery`, and `send`, `regenerate`,
/// `continueRun` and `resumeReply` with their `context`, so a backend, or a wrapper around one, that
/// misses one does not compile. As a `ChatBackend` it also needs `history`, `messages(in:after:)` and
/// `realtime` (or conform to `CompanionBackend`, which sends those to a companion). `ChatBackend`'s own
/// `send`, `regenerate`, `continueRun` and `resumeReply` call the four with an empty context (a caller with
/// no conversation to give, such as a test driving the backend alone).
///
/// ```swift
/// final class MyAgent: AgentBackend {
///   let contextPolicy: AgentContextPolicy
///   var toolResultDelivery: ToolResultDelivery { .nextRun }  // runs end with the app's calls pending
///
///   init(contextPolicy: AgentContextPolicy = .standard) throws(ChatError) {
///     try contextPolicy.validate()  // INVALID_CONFIGURATION at once
///     self.contextPolicy = contextPolicy
///   }
///   func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
///     let history = context.messages + [AgentContext.userMessage(payload, at: Date())]
///     return myProtocol.run(history)  // encode, post, map the stream
///   }
///   func regenerate(
///     in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
///   ) -> AsyncThrowingStream<ReplyEvent, any Error> {
///     myProtocol.run(context.messages)  // ends with the prompt
///   }
///   func continueRun(_ run: RunContinuation, in conversation: ConversationID, context: AgentContext)
///     -> AsyncThrowingStream<ReplyEvent, any Error>
///   {
///     myProtocol.run(context.messages + [run.message])  // the answer, with its outcomes and answers
///   }
///   func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
///     AsyncThrowingStream { $0.finish(throwing: ChatError(.notResumable, "No resumable streams.")) }
///   }
///   func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
///     HistoryPage(messages: [], nextCursor: nil, hasMore: false)  // the stored conversation is the history
///   }
///   func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
///   func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
///     AsyncThrowingStream { $0.yield(.opened) }  // opens and stays quiet
///   }
/// }
/// ```
public protocol AgentBackend: ChatBackend {
  /// How much of the conversation each request carries, and the host's transform of it.
  var contextPolicy: AgentContextPolicy { get }
  /// How the app's tool results reach the agent: the protocol decides, and the store follows it whatever
  /// the host's `ChatPolicy.toolResultDelivery` says (through `ChatPolicy.following(_:)`, which
  /// `ChatStore(backend:)` and `ChatClient` apply; a store built with a reducer of your own must apply it).
  ///
  /// The store validates `contextPolicy` before every request (`INVALID_CONFIGURATION`, nothing sent);
  /// validate it in your initializer too, as the shipped backends do, to fail at once.
  var toolResultDelivery: ToolResultDelivery { get }
  /// Sends the user's message after `context` (the messages before it) and streams the reply.
  func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Streams a new answer to `prompt`, the last message of `context` (the store makes sure of it: a
  /// transform that dropped it fails the request `INVALID_CONFIGURATION` before this is called). Fail
  /// `UNKNOWN_MESSAGE` when it is not (`AgentContext.checkEnds(with:)`).
  func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Continues the answer that waited, `continuation.message`, which follows `context`. What the run waits
  /// on (its interrupts, its app calls) is read from that message, so a wait asked before a relaunch is
  /// answered after it.
  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Resumes the reply that answers the last message of `context`.
  func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
}

extension AgentBackend {
  /// The request with no conversation before it (see `AgentBackend`).
  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    send(payload, context: AgentContext())
  }

  /// The request with no conversation before it: with nothing to answer, the shipped backends fail
  /// `UNKNOWN_MESSAGE` (see `AgentBackend`).
  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    regenerate(in: conversation, replyTo: prompt, answer: answer, context: AgentContext())
  }

  /// The request with no conversation before it (see `AgentBackend`).
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    continueRun(continuation, in: conversation, context: AgentContext())
  }

  /// The request with no conversation before it (see `AgentBackend`).
  public func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error> {
    resumeReply(from: cursor, context: AgentContext())
  }
}

/// How much of the conversation an agent request carries: the one place that says it.
///
/// The default, `newest(100)`, sends the newest 100 stored messages before the request's own (a
/// relaunched conversation's older ones are read from storage). A text budget keeps the newest messages
/// whose text (in UTF-8 bytes) fits in it. `transform`, last, is the host's own say over the list (what the
/// AI SDK calls `prepareSendMessagesRequest`): drop, reorder, summarise or add messages before they are
/// encoded. Messages the transform drops are not replaced by older ones: `newest(30)` with a filter sends
/// at most 30.
///
/// What is counted is stored messages, not wire messages: one answer may become several (its steps, its
/// tool results), and the request's own message (a send's, a continuation's answer) is always sent besides.
/// System notes are sent in the protocol's `system` role and a human agent's messages as `assistant`; drop
/// them in `transform` if the agent should not see them.
///
/// ```swift
/// var context = AgentContextPolicy.newest(30)
/// context.maximumTextBytes = 60_000
/// context.transform = { messages in messages.filter { $0.role != .system } }
/// let agent = try AGUIBackend(endpoint: url, contextPolicy: context)
/// ```
///
/// What a regeneration carries must still end with its prompt: a transform that drops it fails the request
/// `INVALID_CONFIGURATION` before anything is sent.
public struct AgentContextPolicy: Sendable {
  /// The most messages a request carries; nil for the whole conversation (which reads all of it from
  /// storage: O(history) per request).
  public var maximumMessages: Int?
  /// The most bytes of message text (UTF-8, `Message.text` only: reasoning, tool inputs and outputs,
  /// attachments and provider metadata are not counted) a request carries, newest first; nil for no budget.
  /// The newest message is kept whatever its size. It does not limit what is read from storage: with
  /// `maximumMessages` nil the whole history is read first.
  public var maximumTextBytes: Int?
  /// The host's change to the list, oldest first, after the limits; nil for none. Called off the main
  /// thread, once per request; it must not block.
  public var transform: (@Sendable ([Message]) -> [Message])?

  /// A policy with these limits and transform.
  public init(
    maximumMessages: Int? = 100, maximumTextBytes: Int? = nil,
    transform: (@Sendable ([Message]) -> [Message])? = nil
  ) {
    self.maximumMessages = maximumMessages
    self.maximumTextBytes = maximumTextBytes
    self.transform = transform
  }

  /// The newest `count` messages.
  public static func newest(_ count: Int) -> AgentContextPolicy { AgentContextPolicy(maximumMessages: count) }

  /// The whole conversation, however long.
  public static var wholeConversation: AgentContextPolicy { AgentContextPolicy(maximumMessages: nil) }

  /// The newest 100 messages.
  public static var standard: AgentContextPolicy { AgentContextPolicy() }

  /// Checks the limits: `INVALID_CONFIGURATION` for a limit below 1.
  public func validate() throws(ChatError) {
    if let maximumMessages, maximumMessages < 1 {
      throw ChatError(.invalidConfiguration, "AgentContextPolicy.maximumMessages must be at least 1.")
    }
    if let maximumTextBytes, maximumTextBytes < 1 {
      throw ChatError(.invalidConfiguration, "AgentContextPolicy.maximumTextBytes must be at least 1.")
    }
  }

  /// The messages a request carries of `messages` (oldest first): the limits, then the
  /// transform.
  /// A limit below 1 (which `validate()` refuses) keeps the newest message only.
  public func apply(to messages: [Message]) -> [Message] {
    var kept = messages
    if let maximumMessages, kept.count > max(1, maximumMessages) {
      kept.removeFirst(kept.count - max(1, maximumMessages))
    }
    if let maximumTextBytes {
      var used = 0
      var first = kept.endIndex
      while first > kept.startIndex {
        let size = kept[first - 1].text.utf8.count
        if used + size > maximumTextBytes, first < kept.endIndex { break }
        used += size
        first -= 1
      }
      kept.removeFirst(first - kept.startIndex)
    }
    return transform?(kept) ?? kept
  }
}
