import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Sending messages")
struct SendingTests {
  @Test("the first send creates the conversation, is confirmed in place and the agent starts thinking")
  func firstSendCreatesConversation() {
    let chat = Chat()
    chat.send(.setDraft("Hello"))
    let request = chat.nextRequestID

    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "Hello", createdAt: time(0))))

    #expect(
      effects == [
        .sendMessage(request, SendPayload(conversationID: nil, clientID: "c1", text: "Hello", attachments: []))
      ]
    )
    #expect(chat.state.messages.outgoing.map(\.delivery) == [.sending])
    #expect(chat.state.isSending)
    #expect(chat.state.draft == "")

    let more = chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Hello", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-9"))

    #expect(more == [])
    #expect(chat.state.conversationID == "conv-9")
    #expect(chat.state.messages.count == 1)
    #expect(chat.state.messages[clientID: "c1"]?.serverID == "s1")
    #expect(chat.state.messages[clientID: "c1"]?.createdAt == time(1), "server time wins on confirm")
    #expect(chat.state.agentActivity == .thinking)
    #expect(!chat.state.isSending)
  }

  @Test("the realtime echo arriving before the send's response leaves one confirmed message")
  func echoBeforeResponse() {
    let chat = Chat.existing()
    let request = chat.userSends("Hi", id: "c1")
    let echo = Message.confirmed("Hi", clientID: "c1", serverID: "s1", at: 1)

    chat.send(.realtime("conv-1", .messageCreated(echo)))
    #expect(chat.state.messages.count == 1)
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent)
    let afterEcho = chat.state

    let effects = chat.send(.sendAccepted(request, confirmed: echo, conversationID: "conv-1"))

    #expect(effects == [])
    #expect(chat.state.messages == afterEcho.messages, "the late response changes no message")
    #expect(chat.state.messages.count == 1)
  }

  @Test("an echo carrying only the server ID still matches the confirmed message")
  func echoWithServerIDOnly() {
    let chat = Chat.existing()
    let request = chat.userSends("Hi", id: "c1")
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Hi", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-1"))

    chat.send(.realtime("conv-1", .messageCreated(.server("Hi", id: "s1", role: .user, at: 1))))

    #expect(chat.state.messages.count == 1)
    #expect(chat.state.messages.first?.clientID == "c1")
  }

  @Test("a second send before the conversation exists waits, then goes out once it does")
  func secondSendWaitsForConversation() {
    let chat = Chat(policy: .overlapping)
    let first = chat.userSends("One", id: "c1")
    let effects = chat.send(.send(OutgoingMessage(clientID: "c2", text: "Two", createdAt: time(1))))
    #expect(effects == [], "a second send would create a second conversation")
    #expect(chat.state.messages.outgoing.map(\.delivery) == [.sending, .pending])

    let second = chat.nextRequestID
    let flushed = chat.send(
      .sendAccepted(
        first, confirmed: .confirmed("One", clientID: "c1", serverID: "s1", at: 2), conversationID: "conv-7"))

    #expect(
      flushed == [
        .sendMessage(second, SendPayload(conversationID: "conv-7", clientID: "c2", text: "Two", attachments: []))
      ])
    #expect(chat.state.messages[clientID: "c2"]?.delivery == .sending)
  }

  @Test("a message written offline waits in the outbox and goes out when the connection is back")
  func offlineOutbox() {
    let chat = Chat.existing()
    chat.state.connection = .reconnecting(attempt: 1, retryAt: time(5))
    #expect(chat.send(.send(OutgoingMessage(clientID: "c1", text: "Later", createdAt: time(0)))) == [])
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)

    let connect = chat.send(.timerFired(.reconnect, at: time(5)))
    guard case .connectRealtime(let connectID, _) = connect.first else {
      Issue.record("expected a connect effect, got \(connect)")
      return
    }
    let send = chat.nextRequestID
    let effects = chat.send(.connectionOpened(connectID))

    #expect(
      effects == [
        .sendMessage(send, SendPayload(conversationID: "conv-1", clientID: "c1", text: "Later", attachments: []))
      ])
    #expect(chat.state.connection == .connected)
  }

  @Test("a failed message stays in the list, and retrying it reuses its client ID")
  func failedMessageRetried() {
    let chat = Chat.existing()
    let request = chat.userSends("Hello", id: "c1")
    let error = ChatError(.network, "offline")

    chat.send(.requestFailed(request, error))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .failed(error))
    #expect(error.retryable)
    #expect(chat.state.userError == error)

    let retry = chat.nextRequestID
    let effects = chat.send(.retry("c1"))

    #expect(
      effects == [
        .sendMessage(retry, SendPayload(conversationID: "conv-1", clientID: "c1", text: "Hello", attachments: []))
      ])
    #expect(retry != request)
    #expect(chat.state.messages.map(\.clientID) == ["c1"])
    #expect(chat.state.userError == nil)
  }

  @Test("pending and failed messages stay after confirmed ones, in send order")
  func outgoingAfterConfirmed() {
    let chat = Chat.existing([.server("Welcome", id: "s0", at: 0)], policy: .overlapping)
    let first = chat.userSends("one", id: "c1", at: 1)
    chat.userSends("two", id: "c2", at: 2)
    chat.send(.requestFailed(first, ChatError(.network, "down")))
    chat.send(.realtime("conv-1", .messageCreated(.server("Agent", id: "s5", at: 5))))

    #expect(chat.texts == ["Welcome", "Agent", "one", "two"])
  }

  @Test("a send with a conflicting client ID is refused and the original kept")
  func duplicateClientID() {
    let chat = Chat.existing()
    chat.userSends("first", id: "c1")
    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "second", createdAt: time(1))))
    #expect(effects == [])
    #expect(chat.texts == ["first"])
    #expect(chat.state.userError?.code == .invalidAction)
  }

  static let invalidSends: [(String, OutgoingMessage, ChatError.Code)] = [
    ("empty text, no attachment", OutgoingMessage(clientID: "c1", text: "", createdAt: time(0)), .emptyMessage),
    ("only whitespace", OutgoingMessage(clientID: "c1", text: "  \n\t", createdAt: time(0)), .emptyMessage),
    (
      "a fifth attachment",
      OutgoingMessage(
        clientID: "c1", text: "see", attachments: (1...5).map { attachment(AttachmentID("f\($0)"), bytes: 10) },
        createdAt: time(0)), .tooManyAttachments
    ),
    (
      "a 9 MiB attachment",
      OutgoingMessage(
        clientID: "c1", text: "", attachments: [attachment("big", bytes: 9 * 1024 * 1024)],
        createdAt: time(0)), .attachmentTooLarge
    ),
    (
      "a negative byte size",
      OutgoingMessage(clientID: "c1", text: "x", attachments: [attachment("odd", bytes: -1)], createdAt: time(0)),
      .attachmentTooLarge
    ),
  ]

  @Test("an invalid send is refused with a typed error, no effect, and the draft kept", arguments: invalidSends)
  func invalidSendRefused(_ story: (String, OutgoingMessage, ChatError.Code)) {
    let chat = Chat.existing()
    chat.send(.setDraft("my draft"))

    let effects = chat.send(.send(story.1))

    #expect(effects == [], "\(story.0)")
    #expect(chat.state.messages.isEmpty, "\(story.0)")
    #expect(chat.state.userError?.code == story.2, "\(story.0)")
    #expect(chat.state.draft == "my draft", "\(story.0)")
  }

  @Test("attachments without text are a valid message, and four of 8 MiB each are allowed")
  func attachmentsOnly() {
    let chat = Chat.existing()
    let files = (1...4).map { attachment(AttachmentID("f\($0)"), bytes: ChatPolicy().maximumAttachmentBytes) }
    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "", attachments: files, createdAt: time(0))))
    #expect(effects.count == 1)
    #expect(chat.state.messages[clientID: "c1"]?.attachments.count == 4)
  }

  @Test("upload progress moves forward, the URL lands, and bad progress is a typed background error")
  func uploadProgress() {
    let chat = Chat.existing()
    chat.send(
      .send(OutgoingMessage(clientID: "c1", text: "", attachments: [attachment("a", bytes: 5)], createdAt: time(0))))
    chat.send(.attachmentProgress("c1", "a", 0.5))
    chat.send(.attachmentProgress("c1", "a", 0.25))
    #expect(chat.state.messages[clientID: "c1"]?.attachments[0].uploadProgress == 0.5)

    chat.send(.attachmentProgress("c1", "a", .nan))
    #expect(chat.state.backgroundError?.code == .invalidEvent)
    chat.send(.attachmentProgress("c1", "nope", 0.3))
    #expect(chat.state.backgroundError?.code == .unknownMessage)

    let url = URL(string: "https://files.example/a")!
    chat.send(.attachmentUploaded("c1", "a", url))
    #expect(chat.state.messages[clientID: "c1"]?.attachments[0] == attachment("a", bytes: 5, progress: 1, url: url))
  }

  @Test("no sends in an ended conversation; a failed message can be retried while a human agent has it")
  func statusRules() {
    let chat = Chat.existing()
    let request = chat.userSends("help", id: "c1")
    chat.send(.requestFailed(request, ChatError(.network, "down")))
    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))

    #expect(chat.send(.retry("c1")).count == 1, "sends go to the human agent")

    chat.send(.realtime("conv-1", .statusChanged(.ended)))
    #expect(chat.send(.send(OutgoingMessage(clientID: "c2", text: "hi", createdAt: time(3)))) == [])
    #expect(chat.state.userError?.code == .conversationNotOngoing)
  }

  @Test("queued messages fail, and stay, when the conversation ends")
  func endFailsQueued() {
    let chat = Chat.existing()
    chat.state.connection = .closed
    chat.userSends("queued", id: "c1")
    chat.send(.realtime("conv-1", .statusChanged(.ended)))
    guard case .failed(let error) = chat.state.messages[clientID: "c1"]?.delivery else {
      Issue.record("the queued message should have failed")
      return
    }
    #expect(error.code == .conversationNotOngoing)
    #expect(chat.send(.retry("c1")) == [])
    #expect(chat.state.userError?.code == .conversationNotOngoing)
  }

  @Test("retrying a message that did not fail, or does not exist, is refused")
  func retryRefused() {
    let chat = Chat.existing([.server("hi", id: "s1", at: 0)])
    #expect(chat.send(.retry("srv-s1")) == [])
    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.send(.retry("ghost")) == [])
    #expect(chat.state.userError?.code == .unknownMessage)
  }
}

func attachment(_ id: AttachmentID, bytes: Int, progress: Double = 0, url: URL? = nil) -> MessageAttachment {
  MessageAttachment(
    id: id, filename: "\(id).png", contentType: "image/png", byteSize: bytes, uploadProgress: progress, url: url)
}
