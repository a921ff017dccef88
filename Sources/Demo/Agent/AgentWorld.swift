import ConversationStore
import ConversationTesting
import Foundation

/// The simulated server's data: its conversations, their messages, and the connections open to it.
struct AgentWorld: Sendable {
  struct Conversation: Sendable {
    var title: String
    var status: ConversationStatus = .ongoing
    var messages: [Message] = []
    /// What the user made of it in their list, as a server with a list keeps it.
    var isTitleSetByUser = false
    var pinnedAt: Date?
    var isArchived = false
    var isMarkedUnread = false
  }

  var conversations: [ConversationID: Conversation] = [:]
  /// Conversations the user deleted: gone from the list's pages, and not found by any later call.
  var deleted: Set<ConversationID> = []
  var random: SplitMix64
  var sockets: [Int: AsyncThrowingStream<RealtimeUpdate, any Error>.Continuation] = [:]
  var nextSocket = 0
  var toolWaiters: [ToolCallID: CheckedContinuation<ToolCall.Outcome, Never>] = [:]
  var failNext = false
  /// Regenerations so far: each asks for the next wording, so siblings differ.
  var regenerations = 0
  /// How the next reply goes wrong partway (`/cut`, `/break`, `/fail reply`), if it does.
  var nextReplyFault: ReplyFault?
  var tickets = 0
  /// Replies, hand-overs and other work still running.
  var work = 0
  var appliedBatches: Set<String> = []
  private var counter = 0

  init(seed: UInt64, now: Date) {
    random = SplitMix64(seed: seed)
    addSampleConversations(now: now)
  }

  mutating func nextID() -> Int {
    counter += 1
    return counter
  }

  /// Throws once after `/fail`.
  mutating func checkFailure() throws {
    guard failNext else { return }
    failNext = false
    throw ChatError(.providerError, "The simulated server failed this request (/fail).", status: 503)
  }

  /// Throws `CONVERSATION_NOT_FOUND` for a conversation the user deleted, as a server does for one it no
  /// longer has.
  func checkNotDeleted(_ id: ConversationID?) throws {
    guard let id, deleted.contains(id) else { return }
    throw ChatError(.conversationNotFound, "Conversation \(id.rawValue) was deleted.", status: 404)
  }

  /// The user changed a conversation of their list; throws `CONVERSATION_NOT_FOUND` for one it does not have.
  mutating func change(_ id: ConversationID, _ change: ConversationChange) throws {
    try checkNotDeleted(id)
    guard var conversation = conversations[id] else {
      throw ChatError(.conversationNotFound, "Conversation \(id.rawValue) is not on the server.", status: 404)
    }
    switch change {
    case .title(let title):
      conversation.title = title
      conversation.isTitleSetByUser = true
    case .pinned(let pinned, let at): conversation.pinnedAt = pinned ? at : nil
    case .archived(let archived): conversation.isArchived = archived
    case .markedUnread(let marked): conversation.isMarkedUnread = marked
    }
    conversations[id] = conversation
  }

  /// The user deleted a conversation: it and its messages go. One deleted already is gone: not found.
  mutating func delete(_ id: ConversationID) throws {
    try checkNotDeleted(id)
    guard conversations.removeValue(forKey: id) != nil else {
      throw ChatError(.conversationNotFound, "Conversation \(id.rawValue) is not on the server.", status: 404)
    }
    deleted.insert(id)
  }

  /// A send arrives: the conversation (created if new, titled from the first words), the stored message,
  /// and the new conversation's title.
  mutating func accept(_ payload: SendPayload, at now: Date) -> (ConversationID, Message, String?) {
    var title: String?
    let conversationID: ConversationID
    if let existing = payload.conversationID, conversations[existing] != nil {
      conversationID = existing
    } else {
      conversationID = payload.conversationID ?? ConversationID("c-\(nextID())")
      title = String(payload.text.prefix(32))
      conversations[conversationID] = Conversation(title: title ?? "New conversation")
    }
    let message = Message(
      clientID: payload.clientID, serverID: ServerMessageID("s\(nextID())"), role: .user, text: payload.text,
      createdAt: now)
    conversations[conversationID]?.messages.append(message)
    return (conversationID, message, title)
  }

  /// Stores a message the agent (or a person) wrote.
  mutating func record(
    _ text: String, from agent: AgentInfo, in conversationID: ConversationID, at now: Date,
    role: Role = .assistant, id: ServerMessageID? = nil
  ) -> Message {
    let serverID = id ?? ServerMessageID("s\(nextID())")
    let message = Message(
      clientID: ClientMessageID("srv-\(serverID)"), serverID: serverID, role: role,
      author: ParticipantID(agent.id.rawValue), text: text, createdAt: now, agent: agent)
    // A reply that ends after its conversation was deleted is not kept: nothing brings the conversation back.
    if !deleted.contains(conversationID) {
      conversations[conversationID, default: Conversation(title: "Conversation")].messages.append(message)
    }
    return message
  }

  /// Adds what a continuation run said to the answer it continued.
  mutating func append(_ text: String, to message: ServerMessageID, in conversationID: ConversationID) {
    guard let index = conversations[conversationID]?.messages.firstIndex(where: { $0.serverID == message }) else {
      return
    }
    conversations[conversationID]?.messages[index].text += text
  }

  func text(of message: ServerMessageID, in conversationID: ConversationID) -> String? {
    conversations[conversationID]?.messages.first { $0.serverID == message }?.text
  }

  mutating func setStatus(_ status: ConversationStatus, of conversationID: ConversationID) {
    conversations[conversationID]?.status = status
  }

  /// While the connection is down, the person in the most recent conversation writes: the reconnect's
  /// catch-up brings it.
  mutating func postWhileOffline(at now: Date) -> Message? {
    guard let (id, _) = conversations.max(by: { lastActivity($0.value) < lastActivity($1.value) }) else { return nil }
    return record(
      "(sent while you were offline) We've also emailed you a copy of this conversation.", from: SimulatedAgent.human,
      in: id, at: now, role: .humanAgent)
  }

  /// Older messages, newest page first; the cursor is the index of the oldest message already sent.
  func page(of conversationID: ConversationID, before cursor: PageCursor?, limit: Int) throws -> HistoryPage {
    try checkNotDeleted(conversationID)
    guard let conversation = conversations[conversationID] else {
      return HistoryPage(messages: [], nextCursor: nil, hasMore: false)
    }
    let end = cursor.flatMap { Int($0.rawValue) } ?? conversation.messages.count
    let start = max(0, end - limit)
    return HistoryPage(
      messages: Array(conversation.messages[start..<end]), nextCursor: start > 0 ? PageCursor("\(start)") : nil,
      hasMore: start > 0, title: conversation.title, status: conversation.status)
  }

  func messages(in conversationID: ConversationID, after: ServerMessageID?) throws -> [Message] {
    try checkNotDeleted(conversationID)
    guard let messages = conversations[conversationID]?.messages else { return [] }
    guard let after, let index = messages.firstIndex(where: { $0.serverID == after }) else { return messages }
    return Array(messages[(index + 1)...])
  }

  func conversationPage(after cursor: PageCursor?, limit: Int) -> ConversationPage {
    let sorted = conversations.sorted { lastActivity($0.value) > lastActivity($1.value) }
    let start = cursor.flatMap { Int($0.rawValue) } ?? 0
    let end = min(sorted.count, start + limit)
    let rows = sorted[min(start, end)..<end].map { id, conversation in
      var row = ConversationSummary(
        id: id, title: conversation.title, status: conversation.status,
        lastActivityAt: conversation.messages.last?.createdAt, lastMessagePreview: conversation.messages.last?.text,
        pinnedAt: conversation.pinnedAt, isArchived: conversation.isArchived)
      row.isMarkedUnread = conversation.isMarkedUnread
      row.isTitleSetByUser = conversation.isTitleSetByUser
      return row
    }
    return ConversationPage(
      conversations: rows, nextCursor: end < sorted.count ? PageCursor("\(end)") : nil, hasMore: end < sorted.count)
  }

  /// A batch from the outbox: each message stored once per batch ID, in sequence order.
  mutating func apply(_ batch: OutboxBatch, at now: Date) -> (OutboxReceipt, [(ConversationID, Message)]) {
    guard appliedBatches.insert(batch.id).inserted else { return (OutboxReceipt(isDuplicate: true), []) }
    var accepted: [(ConversationID, Message)] = []
    var rejections: [OutboxRejection] = []
    for operation in batch.operations {
      guard case .send(let outgoing) = operation.kind else { continue }
      guard let id = operation.conversationID, conversations[id] != nil else {
        rejections.append(OutboxRejection(operationID: operation.id, reason: .conversationNotFound))
        continue
      }
      let message = Message(
        clientID: outgoing.clientID, serverID: ServerMessageID("s\(nextID())"), role: .user, text: outgoing.text,
        createdAt: now)
      conversations[id]?.messages.append(message)
      accepted.append((id, message))
    }
    return (OutboxReceipt(rejections: rejections), accepted)
  }

  private func lastActivity(_ conversation: Conversation) -> Date {
    conversation.messages.last?.createdAt ?? .distantPast
  }

  /// Three conversations to start with; the first has a long history to page through.
  private mutating func addSampleConversations(now: Date) {
    let start = now.addingTimeInterval(-7 * 86_400)
    var order = Conversation(title: "Order 1042 delivery")
    for index in 0..<60 {
      let fromUser = index.isMultiple(of: 2)
      let serverID = ServerMessageID("h\(index)")
      order.messages.append(
        Message(
          clientID: ClientMessageID("srv-h\(index)"), serverID: serverID, role: fromUser ? .user : .assistant,
          text: fromUser ? "Earlier question #\(index / 2 + 1) about order 1042" : "Earlier answer #\(index / 2 + 1).",
          createdAt: start.addingTimeInterval(Double(index) * 60), reply: fromUser ? nil : .completed,
          agent: fromUser ? nil : SimulatedAgent.assistant))
    }
    conversations["c-1042"] = order
    var refund = Conversation(title: "Refund for a broken mug")
    refund.messages = [
      Message(
        clientID: "srv-r1", serverID: "r1", role: .user, text: "My mug arrived broken.",
        createdAt: start.addingTimeInterval(86_400)),
      Message(
        clientID: "srv-r2", serverID: "r2", role: .assistant, text: "Sorry about that! A refund is on its way.",
        createdAt: start.addingTimeInterval(86_460), reply: .completed, agent: SimulatedAgent.assistant),
    ]
    conversations["c-refund"] = refund
    var welcome = Conversation(title: "Welcome")
    welcome.messages = [
      Message(
        clientID: "srv-w1", serverID: "w1", role: .assistant,
        text: "Welcome! Ask me about an order (try \"where is order 1042?\"), a refund, or ask for a person.",
        createdAt: start.addingTimeInterval(2 * 86_400), reply: .completed, agent: SimulatedAgent.assistant)
    ]
    conversations["c-welcome"] = welcome
  }
}

/// How the simulated agent's next reply goes wrong partway, so the demo can show each outcome.
enum ReplyFault: Sendable {
  /// Its stream ends without a finish: the answer is cut off (`truncated`).
  case cut
  /// It breaks the protocol's rules (asks to approve a call it never made): the answer is `rejected`.
  case breakRules
  /// It fails with a server error: the answer is `failed`.
  case fail
}
