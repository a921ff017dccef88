import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Error advice follows the codes' owners; ratings, catch-up, read state, failed bubbles, regeneration,
/// opening conversations and the policy.
@Suite("Server advice and capabilities")
struct ServerAdviceTests {
  @Test("CONVERSATION_CHANGED from the server: history is reloaded, then the send is tried again, once")
  func conversationChangedReloads() {
    let chat = Chat.existing()
    let send = chat.userSends("Hi", id: "c1")
    let history = chat.nextRequestID
    let effects = chat.send(.requestFailed(send, ChatError(.conversationChanged, "moved on", status: 409)))
    #expect(effects == [.fetchHistory(history, "conv-1", cursor: nil, limit: 20)], "reload first, send after")
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
    let again = chat.nextRequestID
    let after = chat.send(.historyLoaded(history, HistoryPage(messages: [], nextCursor: nil, hasMore: false)))
    #expect(
      after.contains { if case .sendMessage(again, let payload) = $0 { payload.clientID == "c1" } else { false } })
    chat.send(.requestFailed(again, ChatError(.conversationChanged, "still moving", status: 409)))
    guard case .failed = chat.state.messages[clientID: "c1"]?.delivery else {
      Issue.record("a second CONVERSATION_CHANGED fails the message instead of looping")
      return
    }
  }

  /// An answered question whose regeneration failed with `CONVERSATION_CHANGED`: the chat, the history
  /// reload's request, and the effects of the failure.
  static func regenerationHearsConversationChanged() -> (Chat, RequestID, [ConversationEffect]) {
    let chat = Chat.existing([.server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2)])
    let regeneration = chat.nextRequestID
    chat.send(.regenerate("srv-s2"))
    let history = chat.nextRequestID
    let effects = chat.send(.requestFailed(regeneration, ChatError(.conversationChanged, "moved on", status: 409)))
    return (chat, history, effects)
  }

  @Test("CONVERSATION_CHANGED on a regeneration: history is reloaded, then it is regenerated again, once")
  func conversationChangedRegenerates() {
    // Given an answered question, when its regeneration hears that the conversation changed
    let (chat, history, effects) = Self.regenerationHearsConversationChanged()

    // Then the newest page is reloaded first, and no error is shown yet
    #expect(effects == [.fetchHistory(history, "conv-1", cursor: nil, limit: 20)], "reload first, regenerate after")
    #expect(chat.state.userError == nil)
    #expect(chat.state.agentActivity == .idle)

    // And once the page is in, the answer is regenerated again
    let again = chat.nextRequestID
    let after = chat.send(.historyLoaded(history, HistoryPage(messages: [], nextCursor: nil, hasMore: false)))
    #expect(after.contains(.regenerate(again, "conv-1", replyTo: "s1", answer: "s2")))

    // And a second CONVERSATION_CHANGED is the user's to see: no loop
    let reloads = chat.send(.requestFailed(again, ChatError(.conversationChanged, "still moving", status: 409)))
    #expect(!reloads.contains { if case .fetchHistory = $0 { true } else { false } })
    #expect(chat.state.userError?.code == .conversationChanged)
    #expect(chat.texts == ["Q1", "A1"], "the answer is as it was")

    // And the user's own next regeneration gets its one retry again
    let mine = chat.nextRequestID
    chat.send(.regenerate("srv-s2"))
    #expect(
      chat.send(.requestFailed(mine, ChatError(.conversationChanged, "moved", status: 409))).contains {
        if case .fetchHistory = $0 { true } else { false }
      })
  }

  @Test("a regeneration waiting for its reload is dropped when the reload fails: that error is the user's")
  func regenerationReloadFails() {
    let (chat, history, _) = Self.regenerationHearsConversationChanged()
    chat.send(.requestFailed(history, ChatError(.network, "offline")))
    #expect(chat.state.regenerateAfterReload == nil)
    #expect(chat.state.userError?.code == .network)
    #expect(chat.state.requests.isEmpty, "nothing regenerates later, unasked")
  }

  @Test(
    "errors that say where the conversation stands move its status, so the next send is not tried blindly",
    arguments: [
      (ChatError.Code.conversationNotOngoing, ConversationStatus?.some(.ended), ConversationStatus.ended),
      (.conversationNotFound, nil, .notFound), (.chatUnavailable, nil, .unavailable),
    ])
  func statusFromErrors(_ code: ChatError.Code, _ named: ConversationStatus?, _ status: ConversationStatus) {
    let chat = Chat.existing()
    let send = chat.userSends("Hi", id: "c1")
    var error = ChatError(code, "no")
    error.conversationStatus = named
    chat.send(.requestFailed(send, error))
    #expect(chat.state.status == status)
    #expect(chat.send(.send(OutgoingMessage(clientID: "c2", text: "again", createdAt: time(1)))) == [])
    #expect(chat.state.userError?.code == code, "refused with the status's own code")
    #expect(!chat.state.messages.contains("c2"))
  }

  @Test("chat not available is a disabled state that a status event lifts; waiting messages fail and stay")
  func unavailableLifts() {
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .statusChanged(.unavailable)))
    #expect(chat.state.status == .unavailable)
    chat.send(.realtime("conv-1", .statusChanged(.ongoing)))
    let request = chat.nextRequestID
    #expect(
      chat.send(.send(OutgoingMessage(clientID: "c1", text: "Hi", createdAt: time(0)))).first
        == .sendMessage(request, SendPayload(conversationID: "conv-1", clientID: "c1", text: "Hi", attachments: [])))
  }

  @Test("RATE_LIMITED with retry-after puts the time in state, and nothing is sent before it")
  func rateLimitHolds() {
    let chat = Chat.existing(policy: .overlapping)
    let send = chat.userSends("Hi", id: "c1")
    let effects = chat.send(
      .requestFailed(send, ChatError(.rateLimited, "slow", status: 429, retryAfter: 30), at: time(100), jitter: 0.5))
    #expect(effects.contains(.startTimer(.rateLimitOver, seconds: 30)))
    #expect(chat.state.retryableAt == time(130))
    #expect(chat.send(.retry("c1")) == [], "held")
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
    chat.userSends("meanwhile", id: "c2")
    #expect(chat.state.messages[clientID: "c2"]?.delivery == .pending)
    let first = chat.nextRequestID
    let released = chat.send(.timerFired(.rateLimitOver, at: time(130)))
    #expect(released.map(\.sentClientID) == ["c1"], "the first goes; the next waits until it is accepted")
    #expect(chat.state.retryableAt == nil)
    let next = chat.send(
      .sendAccepted(
        first, confirmed: .confirmed("Hi", clientID: "c1", serverID: "s1", at: 131), conversationID: "conv-1"))
    #expect(next.map(\.sentClientID) == ["c2"], "then the second, in order")
  }

  @Test("ratings roll back to the last rating the server accepted, whatever order overlapping failures arrive in")
  func ratingsRollBack() {
    let chat = Chat.existing([.server("Answer", id: "s1", at: 1)])
    let up = chat.nextRequestID
    chat.send(.rateAnswer("srv-s1", .up))
    let down = chat.nextRequestID
    chat.send(.rateAnswer("srv-s1", .down))
    chat.send(.requestFailed(down, ChatError(.network, "x")))
    #expect(chat.state.messages[clientID: "srv-s1"]?.rating == .down, "still settling: the up request is in flight")
    chat.send(.requestFailed(up, ChatError(.network, "x")))
    #expect(chat.state.messages[clientID: "srv-s1"]?.rating == Rating.none, "neither reached the server")

    let accepted = chat.nextRequestID
    chat.send(.rateAnswer("srv-s1", .up))
    let failing = chat.nextRequestID
    chat.send(.rateAnswer("srv-s1", .down))
    chat.send(.requestFailed(failing, ChatError(.network, "x")))
    chat.send(.requestSucceeded(accepted))
    #expect(chat.state.messages[clientID: "srv-s1"]?.rating == .up, "what the server accepted")
    #expect(chat.state.acceptedRatings.isEmpty)
  }

  @Test("catch-up pages until the server says it is complete")
  func syncPages() {
    let chat = Chat.existing([.server("before", id: "s1", at: 1)])
    let connection = chat.nextRequestID
    chat.send(.connect)
    let sync = chat.nextRequestID
    chat.send(.connectionOpened(connection))
    let next = chat.nextRequestID
    let more = chat.send(.syncLoaded(sync, [.server("missed 1", id: "s2", at: 2)], hasMore: true))
    #expect(more == [.fetchMessagesAfter(next, "conv-1", after: "s2")])
    #expect(chat.state.connection == .syncing)
    chat.send(.syncLoaded(next, [.server("missed 2", id: "s3", at: 3)], hasMore: false))
    #expect(chat.state.connection == .connected)
    #expect(chat.texts == ["before", "missed 1", "missed 2"])
  }

  @Test("a failed catch-up backs off with jitter, doubling; one that cannot succeed leaves a visible gap")
  func syncBackoffAndGap() {
    let chat = Chat.existing([.server("before", id: "s1", at: 1)])
    let connection = chat.nextRequestID
    chat.send(.connect)
    var sync = chat.nextRequestID
    chat.send(.connectionOpened(connection))
    var waits: [Double] = []
    for _ in 0..<3 {
      let effects = chat.send(.requestFailed(sync, ChatError(.timeout, "slow"), jitter: 1))
      if case .startTimer(.resync, let seconds) = effects.last { waits.append(seconds) }
      sync = chat.nextRequestID
      chat.send(.timerFired(.resync, at: time(0)))
    }
    #expect(waits == [2, 4, 8])
    chat.send(.requestFailed(sync, ChatError(.conversationNotFound, "gone", status: 404)))
    #expect(chat.state.hasMissedMessagesGap)
  }

  @Test("while realtime is down a configured poll fetches new messages; it stops when the connection is back")
  func pollWhileDown() {
    let chat = Chat(.existing([.server("before", id: "s1", at: 1)]), policy: ChatPolicy(pollInterval: 1))
    let connection = chat.connected()
    let lost = chat.send(.connectionLost(connection, ChatError(.network, "x"), at: time(0), jitter: 1))
    #expect(lost.contains(.startTimer(.poll, seconds: 1)))
    let poll = chat.nextRequestID
    let polled = chat.send(.timerFired(.poll, at: time(1)))
    #expect(polled == [.startTimer(.poll, seconds: 1), .fetchMessagesAfter(poll, "conv-1", after: "s1")])
    chat.send(.syncLoaded(poll, [.server("new", id: "s2", at: 2)]))
    #expect(chat.texts == ["before", "new"])
    let reconnect = chat.nextRequestID
    chat.send(.timerFired(.reconnect, at: time(2)))
    #expect(chat.send(.connectionOpened(reconnect)).first == .cancelTimer(.poll))
  }

  @Test("reading reaches the server, coalesced: one request at a time, the newest cursor after it")
  func readState() {
    let chat = Chat.existing([
      .server("a", id: "s1", at: 1), .server("b", id: "s2", at: 2), .server("c", id: "s3", at: 3),
    ])
    let first = chat.nextRequestID
    #expect(chat.send(.markRead(upTo: "s1")) == [.submitReadCursor(first, "conv-1", upTo: "s1")])
    #expect(chat.send(.markRead(upTo: "s2")) == [], "one in flight")
    chat.send(.markRead(upTo: "s3"))
    let second = chat.nextRequestID
    #expect(chat.send(.readCursorSaved(first)) == [.submitReadCursor(second, "conv-1", upTo: "s3")])
    #expect(chat.send(.readCursorSaved(second)) == [])
    #expect(chat.state.savedReadCursor == "s3")
  }

  @Test("a server-side read cursor and unread count load with history: the badge is right before messages are")
  func serverReadState() {
    let chat = Chat.existing()
    let history = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 2))
    chat.send(
      .historyLoaded(
        history,
        HistoryPage(
          messages: [.server("a", id: "s8", at: 8), .server("b", id: "s9", at: 9)], nextCursor: "p2", hasMore: true,
          title: "Order 1042", status: .takenOver, readUpTo: "s8", unreadCount: 7, totalCount: 40)))
    #expect(chat.state.readCursor?.messageID == "s8")
    #expect(chat.state.unreadCount == 1)
    #expect(chat.state.unreadBadge == 7, "the server counts unread messages not loaded here")
    #expect(chat.state.title == "Order 1042" && chat.state.status == .takenOver)
    chat.send(.markRead(upTo: "s9"))
    #expect(chat.state.unreadBadge == 0)
  }

  @Test(
    "a failed message can be discarded, or taken back into the draft, also once the conversation ended",
    arguments: [false, true])
  func discardFailed(_ intoDraft: Bool) {
    let chat = Chat.existing()
    let send = chat.userSends("typo'd message", id: "c1")
    chat.send(.requestFailed(send, ChatError(.network, "x")))
    chat.send(.realtime("conv-1", .statusChanged(.ended)))
    chat.send(intoDraft ? .takeBackIntoDraft("c1") : .discard("c1"))
    #expect(!chat.state.messages.contains("c1"))
    #expect(chat.state.draft == (intoDraft ? "typo'd message" : ""))
  }

  @Test("a message on its way cannot be discarded")
  func cannotDiscardSending() {
    let chat = Chat.existing()
    chat.userSends("on its way", id: "c1")
    chat.send(.discard("c1"))
    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sending)
  }

  @Test("opening an existing conversation resumes it: history is asked for, and a live connection follows it")
  func openConversation() {
    let chat = Chat.existing([.server("old chat", id: "s1", at: 1)])
    let connection = chat.connected()
    chat.send(.setDraft("kept per conversation by the host, not here"))
    let reconnect = chat.nextRequestID
    let history = RequestID(epoch: chat.state.epoch, sequence: reconnect.sequence + 1)
    let effects = chat.send(.open("conv-2"))
    #expect(effects.contains(.cancel(connection)))
    #expect(effects.contains(.connectRealtime(reconnect, "conv-2")))
    #expect(effects.contains(.fetchHistory(history, "conv-2", cursor: nil, limit: 20)))
    #expect(chat.state.conversationID == "conv-2" && chat.state.messages.isEmpty)
  }

  @Test(
    "the policy's limits are checked at send with typed errors",
    arguments: [
      (String(repeating: "x", count: 11), [] as [MessageAttachment], ChatError.Code.messageTooLong),
      (
        "ok",
        [MessageAttachment(id: "a", filename: "a.png", contentType: "image/png", byteSize: 1)] + [
          MessageAttachment(id: "b", filename: "b.png", contentType: "image/png", byteSize: 1)
        ], .tooManyAttachments
      ),
      (
        "ok", [MessageAttachment(id: "a", filename: "big.png", contentType: "image/png", byteSize: 2_000)],
        .attachmentTooLarge
      ),
      (
        "ok", [MessageAttachment(id: "a", filename: "x.exe", contentType: "application/x-msdownload", byteSize: 1)],
        .attachmentTypeNotAllowed
      ),
    ])
  func policyLimits(_ text: String, _ attachments: [MessageAttachment], _ code: ChatError.Code) {
    let policy = ChatPolicy(
      maximumAttachments: 1, maximumAttachmentBytes: 1_024, allowedAttachmentTypes: ["image/*", "application/pdf"],
      maximumTextLength: 10)
    let chat = Chat(.existing(), policy: policy)
    chat.send(.setDraft(text))
    #expect(
      chat.send(.send(OutgoingMessage(clientID: "c1", text: text, attachments: attachments, createdAt: time(0)))) == [])
    #expect(chat.state.userError?.code == code)
    #expect(chat.state.draft == text, "the draft is kept")
  }

  @Test("title and status can arrive with a reply; a stale description changes nothing")
  func describedWithReply() {
    let chat = Chat.existing()
    let send = chat.userSends("I want a human", id: "c1")
    chat.send(.conversationDescribed(send, title: "Escalation", status: .takenOver))
    #expect(chat.state.title == "Escalation" && chat.state.status == .takenOver)
    chat.send(.replyEnded(send))
    chat.send(.conversationDescribed(send, title: "stale", status: .ended))
    #expect(chat.state.title == "Escalation" && chat.state.status == .takenOver)
  }

  @Test("10 MB of text is refused with MESSAGE_TOO_LONG under the default policy")
  func hugeText() {
    let chat = Chat.existing()
    let text = String(repeating: "a", count: 10_000_000)
    chat.send(.send(OutgoingMessage(clientID: "c1", text: text, createdAt: time(0))))
    #expect(chat.state.userError?.code == .messageTooLong)
    #expect(chat.state.messages.isEmpty)
  }
}

extension ConversationEffect {
  /// The client ID a `sendMessage` effect sends; nil for any other effect.
  var sentClientID: ClientMessageID? {
    if case .sendMessage(_, let payload) = self { return payload.clientID }
    return nil
  }
}
