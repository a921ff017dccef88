import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Collects a reply stream, without the events' positions; the error it ended with, if any.
func collect(_ stream: AsyncThrowingStream<ReplyEvent, any Error>) async -> (events: [ReplyEvent], error: ChatError?) {
  var events: [ReplyEvent] = []
  do {
    for try await event in stream { events.append(event.unpositioned) }
    return (events, nil)
  } catch {
    return (events, error as? ChatError ?? ChatError(.network, "\(error)"))
  }
}

func text(of events: [ReplyEvent]) -> String {
  events.map { if case .delta(let piece) = $0 { piece } else { "" } }.joined()
}

@Suite("HTTPChatBackend against the reference server", .hangGuard)
struct ReferenceServerTests {
  @Test(
    "a reply streams frame by frame in either style, and finishes with the text that streamed",
    arguments: ["typed", "frames"])
  func streamedReply(style: String) async throws {
    // Given the reference server, a second between frames until the first text is read here (so a busy
    // machine reading late still reads it long before the server is done), then 1 ms
    let server = try await ReferenceServer.start(["--style", style])
    try await server.faults(["delay_ms": 1000])
    let backend = try server.backend()

    // When the user starts a conversation
    let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "Hello there", attachments: [])
    var events: [ReplyEvent] = []
    var heldAtFirstDelta: [[String: Any]]?
    var error: ChatError?
    do {
      for try await event in backend.send(payload) {
        events.append(event.unpositioned)
        if case .delta = event.unpositioned, heldAtFirstDelta == nil,
          case .accepted(_, let conversation)? = events.first
        {
          heldAtFirstDelta = try await server.messages(in: conversation)
          try await server.faults(["delay_ms": 1])
        }
      }
    } catch let failure as ChatError {
      error = failure
    }

    // Then the message is accepted into a new conversation, and the reply streams and finishes
    #expect(error == nil)
    guard case .accepted(let user, let conversation) = events.first, case .finished(let reply, _) = events.last else {
      Issue.record("unexpected events \(events)")
      return
    }
    #expect(user.clientID == "c-1")
    // The first text came while the server was still answering: it stores the reply only once it is sent.
    #expect(heldAtFirstDelta?.count == 1, "the first delta arrived as it streamed, not at the end")
    #expect(reply.text == text(of: events) && !reply.text.isEmpty)
    let held = try await server.messages(in: conversation)
    #expect(held.compactMap { $0["text"] as? String } == ["Hello there", reply.text])
  }

  @Test("a store on the backend sends, streams and commits the reply; the realtime echo adds nothing twice")
  func storeConversation() async throws {
    let server = try await ReferenceServer.start()
    let store = ChatStore(backend: try server.backend())
    defer { store.close() }
    store.send(.connect)

    store.sendMessage("Where is my parcel?")

    let done = await store.state(within: 30) { state in
      state.messages.count == 2 && state.messages.last?.reply == .completed && state.streamingReply == nil
    }
    #expect(done?.messages.first?.delivery == .sent)
    let conversation = try #require(done?.conversationID)
    let held = try await server.messages(in: conversation)
    #expect(held.count == 2)
    #expect(done?.messages.last?.text == held.last?["text"] as? String)
  }

  @Test("stopping a reply closes its connection: the server sees it close and never finishes the reply")
  func stopClosesTheConnection() async throws {
    // Given a reply streaming slowly (about 15 s for the whole of it)
    let server = try await ReferenceServer.start()
    try await server.faults(["delay_ms": 300])
    let store = ChatStore(backend: try server.backend())
    defer { store.close() }
    store.sendMessage("Tell me everything")
    let streaming = await store.state(within: 20) { !($0.streamingReply?.text.isEmpty ?? true) }
    let conversation = try #require(streaming?.conversationID)

    // When the user stops it
    store.send(.stopReply)

    // Then the server's next write finds the connection closed, and it holds no answer
    var sawClose = false
    for _ in 0..<100 where !sawClose {
      let log = try await server.state()["log"] as? [[String: Any]] ?? []
      sawClose = log.contains { $0["path"] as? String == "/v1/messages" && $0["client_closed"] as? Bool == true }
      if !sawClose { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(sawClose, "the server never saw the reply's connection close")
    let held = try await server.messages(in: conversation)
    #expect(held.map { $0["role"] as? String } == ["user"])
  }

  @Test("a ChatClient on the backend: one realtime connection feeds the open conversation and the list")
  func chatClient() async throws {
    // Given a client on the server, in a new conversation with an answer
    let server = try await ReferenceServer.start()
    let client = ChatClient(backend: try server.backend())
    let chat = client.newConversation()
    chat.sendMessage("Hello")
    let answered = await chat.state(within: 30) { $0.messages.count == 2 && $0.streamingReply == nil }
    let conversation = try #require(answered?.conversationID)

    // When a person writes in it on the server's side
    try await server.agentMessage("A person here: anything else?", in: conversation)

    // Then it arrives in the open conversation, and the list shows it at the top, over one connection
    let arrived = await chat.state(within: 30) { $0.messages.last?.text == "A person here: anything else?" }
    #expect(arrived?.messages.count == 3)
    // (The list takes the event after the conversation does: wait for the row to show it.)
    let listed = await client.list.state(within: 30) {
      $0.conversations.first { _ in true }?.lastMessagePreview == "A person here: anything else?"
    }
    #expect(listed?.conversations.first { _ in true }?.id == conversation)
    #expect(try await server.state()["realtime_connections"] as? Int == 1)
    await client.close()
  }

  @Test("a malformed realtime frame is reported as rejected and skipped; the same connection carries the next")
  func malformedRealtimeFrame() async throws {
    // Given a live realtime connection
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation()
    let backend = try server.backend()
    let inbox = Inbox()
    let reading = inbox.listen(to: backend)
    #expect(await waitFor { inbox.opened.withLock { $0 } == 1 })

    // When the server sends a frame that is not JSON, then a good one
    _ = try await server.control(
      "events", ["conversation_id": conversation.rawValue, "type": "message.created", "raw_data": "{not json"])
    try await server.agentMessage("after the bad one", in: conversation)

    // Then the bad one is reported, and the good one arrives on the same connection
    #expect(await waitFor { inbox.texts.withLock { $0 } == ["after the bad one"] })
    #expect(inbox.rejected.withLock { $0.map(\.code) } == [.invalidEvent])
    #expect(inbox.opened.withLock { $0 } == 1)
    reading.cancel()
  }

  @Test("a reply dropped mid-way ends as a retryable failure, keeping what streamed; nothing hangs")
  func droppedMidway() async throws {
    // Given a server that cuts the next reply after three frames
    let server = try await ReferenceServer.start()
    try await server.faults(["drop_reply_after_frames": 3])

    // When the user sends
    let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "Tell me a story", attachments: [])
    let (events, error) = try await collect(server.backend().send(payload))

    // Then the reply ends with a retryable error after what streamed
    let failure = try #require(error)
    #expect([ChatError.Code.incompleteStream, .network].contains(failure.code), "\(failure)")
    #expect(failure.retryable)
    #expect(!text(of: events).isEmpty)
    #expect(!events.contains { if case .finished = $0 { true } else { false } })
  }

  @Test("a malformed frame ends that reply with INVALID_EVENT")
  func malformedFrame() async throws {
    let server = try await ReferenceServer.start()
    try await server.faults(["malformed_next_reply_frame": true])

    let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "Hello", attachments: [])
    let (_, error) = try await collect(server.backend().send(payload))

    #expect(error?.code == .invalidEvent)
  }

  @Test("429 becomes RATE_LIMITED with Retry-After's seconds; the next call goes through")
  func rateLimited() async throws {
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 4)
    try await server.faults(["rate_limit_next": ["count": 1, "retry_after": 2]])
    let backend = try server.backend()

    await #expect(throws: ChatError.self) { _ = try await backend.history(of: conversation, before: nil, limit: 10) }
    do {
      _ = try await backend.history(of: conversation, before: nil, limit: 10)
    } catch {
      Issue.record("the call after the limit failed: \(error)")
    }
    try await server.faults(["rate_limit_next": ["count": 1, "retry_after": 2]])
    do {
      _ = try await backend.conversations(after: nil, limit: 10)
      Issue.record("no rate limit")
    } catch let error as ChatError {
      #expect(error.code == .rateLimited && error.status == 429 && error.retryAfter == 2 && error.retryable)
    }
  }

  @Test("history pages go back with the cursor, oldest first in each page, until there is no more")
  func historyPaging() async throws {
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 25)
    let backend = try server.backend()

    var cursor: PageCursor?
    var pages: [[Message]] = []
    repeat {
      let page = try await backend.history(of: conversation, before: cursor, limit: 10)
      pages.append(page.messages)
      cursor = page.hasMore ? page.nextCursor : nil
    } while cursor != nil && pages.count < 10

    #expect(pages.map(\.count) == [10, 10, 5])
    let all = pages.reversed().flatMap { $0 }
    #expect(Set(all.compactMap(\.serverID)).count == 25)
    #expect(all.map(\.createdAt) == all.map(\.createdAt).sorted())
  }

  @Test("a ticket carries the category and priority the server's form configures, as the user picked them")
  func ticketFields() async throws {
    // Given a conversation on the server
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 1)
    let backend = try server.backend()

    // When the user asks for a ticket with the form's own values
    let receipt = try await backend.createTicket(
      TicketDraft(subject: "Refund", category: "billing/refunds", priority: "P2", body: "Charged twice."),
      from: conversation)

    // Then the server got both as strings, with the rest of the ticket
    let tickets = try await server.state()["tickets"] as? [[String: Any]] ?? []
    let ticket = try #require(tickets.first { $0["ticket_id"] as? String == receipt.ticketID })
    #expect(ticket["category"] as? String == "billing/refunds")
    #expect(ticket["priority"] as? String == "P2")
    #expect(ticket["conversation_id"] as? String == conversation.rawValue)

    // And a draft without a category sends none, at the default priority
    let plain = try await backend.createTicket(TicketDraft(subject: "Help", body: "Where is it?"), from: nil)
    let second = try await server.state()["tickets"] as? [[String: Any]] ?? []
    let stored = try #require(second.first { $0["ticket_id"] as? String == plain.ticketID })
    #expect(stored["category"] is NSNull)
    #expect(stored["priority"] as? String == "normal")
  }

  @Test("a history page and a list page bring the server's totals and read state into the stores")
  func pageTotals() async throws {
    // Given a conversation of 25 messages on the server, and a store showing it
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 25)
    let backend = try server.backend()
    let store = ChatStore(ConversationState(conversationID: conversation), backend: backend)
    defer { store.close() }

    // When its newest page loads
    store.send(.loadHistory(pageSize: 10))
    let loaded = try #require(await store.state(within: 30) { $0.history.hasLoadedFirstPage })

    // Then the state counts 25 in all, with 10 loaded, and has the server's unread count
    #expect(loaded.history.totalCount == 25)
    #expect(loaded.messages.count == 10)
    #expect(loaded.serverUnreadCount != nil)

    // And the list's first page counts every conversation the user has
    let list = ConversationListStore(backend: backend)
    defer { list.close() }
    list.send(.load(pageSize: 1))
    let rows = try #require(await list.state(within: 30) { $0.hasLoaded })
    #expect(rows.conversations.count == 1)
    #expect(rows.totalCount == 1)
  }

  @Test("an expired token: the store asks the host's provider for a fresh one and sends again, once on the server")
  func credentialRefresh() async throws {
    // Given a server that stops accepting the token after two more requests
    let server = try await ReferenceServer.start()
    let token = StateLock("secret")
    let refreshes = StateLock(0)
    let store = ChatStore(
      backend: try server.backend { token.withLock { $0 } },
      credentials: {
        refreshes.withLock { $0 += 1 }
        try await server.faults(["accepted_token": "t2"])
        token.withLock { $0 = "t2" }
      })
    defer { store.close() }
    try await server.faults(["expire_token_after_requests": 0])

    // When the user sends
    store.sendMessage("Are you there?")

    // Then it gets through after one refresh, and the server holds the message once
    let done = await store.state(within: 30) { $0.messages.count == 2 && $0.streamingReply == nil }
    #expect(done?.messages.first?.delivery == .sent)
    #expect(refreshes.withLock { $0 } == 1)
    let conversation = try #require(done?.conversationID)
    #expect(try await server.messages(in: conversation).count == 2)
  }

  @Test("the realtime stream resumes after a drop with Last-Event-ID: nothing missed, nothing twice")
  func realtimeResumes() async throws {
    // Given a live realtime stream
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation()
    let backend = try server.backend()
    let inbox = Inbox()
    func listen() -> Task<Void, Never> { inbox.listen(to: backend) }
    var listening = listen()
    #expect(await waitFor { inbox.opened.withLock { $0 } == 1 })
    try await server.agentMessage("one", in: conversation)
    #expect(await waitFor { inbox.texts.withLock { $0 } == ["one"] })

    // When the connection drops and two messages come while it is down
    try await server.faults(["drop_realtime": true])
    await listening.value
    try await server.agentMessage("two", in: conversation)
    try await server.agentMessage("three", in: conversation)
    #expect(!backend.realtimeLastEventID.isEmpty)

    // Then the reconnect replays exactly what was missed
    listening = listen()
    #expect(await waitFor { inbox.texts.withLock { $0 }.count >= 3 })
    try await server.agentMessage("four", in: conversation)
    #expect(await waitFor { inbox.texts.withLock { $0 }.count >= 4 })
    #expect(inbox.texts.withLock { $0 } == ["one", "two", "three", "four"])
    listening.cancel()
  }

  @Test("an outbox batch whose response was lost is sent again with the same ID: applied once on the server")
  func lostBatchResponse() async throws {
    // Given a conversation, and a server that will lose the next batch's answer
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 2)
    let backend = try server.backend()
    try await server.faults(["lose_next_batch_response": true])
    let written = OutgoingMessage(clientID: "c-9", text: "written offline", createdAt: Date())
    let batch = OutboxBatch(
      id: "b-1", epoch: 0, firstSequence: 1,
      operations: [
        OutboxOperation(id: "send-c-9", conversationID: conversation, kind: .send(written), enqueuedAt: Date()),
        OutboxOperation(
          id: "read-1", conversationID: conversation, kind: .markRead(upTo: "m-404"), enqueuedAt: Date()),
      ])

    // When the upload's answer is lost, and the same batch is sent again
    await #expect(throws: (any Error).self) { _ = try await backend.uploadOutbox(batch) }
    let receipt = try await backend.uploadOutbox(batch)

    // Then the server says "duplicate", and holds the message once
    #expect(receipt.isDuplicate)
    let held = try await server.messages(in: conversation)
    #expect(held.filter { $0["text"] as? String == "written offline" }.count == 1)
    #expect(held.count == 3)
  }

  @Test("a refused outbox operation comes back with its closed reason")
  func refusedOperation() async throws {
    let server = try await ReferenceServer.start()
    let batch = OutboxBatch(
      id: "b-2", epoch: 0, firstSequence: 1,
      operations: [
        OutboxOperation(
          id: "rate-1", conversationID: "conv-missing", kind: .rateAnswer("m-1", .up), enqueuedAt: Date())
      ])

    let receipt = try await server.backend().uploadOutbox(batch)

    #expect(receipt.rejections.map(\.reason) == [.conversationNotFound])
    #expect(receipt.rejections.first?.operationID == "rate-1")
  }

  @Test("host operations travel in a batch: the server applies the kinds it knows, in order, and refuses the rest")
  func hostOperations() async throws {
    // Given a batch with an analytics event, a kind the server does not know, and an oversized property
    let server = try await ReferenceServer.start()
    let now = Date()
    let event = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened", "count": 2])
    let unknown = HostOperation(kind: "loyalty.points", payload: ["add": 5])
    let oversized = HostOperation(kind: "profile.set", payload: ["bio": .string(String(repeating: "x", count: 20_000))])
    let batch = OutboxBatch(
      id: "b-host", epoch: 0, firstSequence: 1,
      operations: [
        OutboxOperation(id: "host-1", conversationID: nil, kind: .host(event), enqueuedAt: now),
        OutboxOperation(id: "host-2", conversationID: nil, kind: .host(unknown), enqueuedAt: now),
        OutboxOperation(id: "host-3", conversationID: nil, kind: .host(oversized), enqueuedAt: now),
      ])

    // When the backend uploads it
    let receipt = try await server.backend().uploadOutbox(batch)

    // Then the event is applied as the host gave it, and the others come back with their reasons, typed
    #expect(receipt.rejections.map(\.operationID) == ["host-2", "host-3"])
    let refused = zip(receipt.rejections, batch.operations.dropFirst()).map { $0.error(for: $1.kind).code }
    #expect(refused == [.invalidAction, .operationTooLarge])
    let applied = try await server.state()["host_operations"] as? [[String: Any]]
    #expect(applied?.map { $0["id"] as? String } == ["host-1"])
    #expect(applied?.first?["host_kind"] as? String == "analytics.event")
    let payload = applied?.first?["payload"] as? [String: Any]
    #expect(payload?["name"] as? String == "chat_opened" && payload?["count"] as? Int == 2)
  }

  @Test("a guest's e-mail reaches the server without signing anyone in; a bad one the server refuses is shown")
  func guestContactDetails() async throws {
    // Given an anonymous client on the server
    let server = try await ReferenceServer.start()
    let client = ChatClient(backend: try server.backend())

    // When the guest fills in the pre-chat form
    try client.setContactDetails(ContactDetails(email: "ana@example.com", name: "Ana"))

    // Then the server has their details, once, and the client is still anonymous
    var contact: [String: Any]?
    for _ in 0..<6000 where contact == nil {  // up to a minute: the bound only ends a wait that never ends
      contact = try await server.state()["contact"] as? [String: Any]
      if contact == nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(contact?["email"] as? String == "ana@example.com" && contact?["name"] as? String == "Ana")
    #expect(await waitFor { client.state.contactUpload == .idle })
    #expect(try await server.state()["contact_updates"] as? Int == 1)
    #expect(client.identity == nil)
    await client.close()
  }

  @Test("a stream that goes quiet longer than the idle timeout fails with TIMEOUT instead of hanging")
  func idleTimeout() async throws {
    let server = try await ReferenceServer.start()
    try await server.faults(["delay_ms": 3000])

    let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "Hello", attachments: [])
    let (_, error) = try await collect(server.backend(idleTimeout: 0.5).send(payload))

    #expect(error?.code == .timeout)
    #expect(error?.retryable == true)
  }

  @Test("a regeneration refused because a person took over moves the status to taken over, not ended; sends go on")
  func notOngoingNamesTheStatus() async throws {
    // Given a conversation the store has loaded while the AI agent had it
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 2)
    let store = ChatStore(backend: try server.backend())
    defer { store.close() }
    store.send(.open(conversation))
    store.send(.loadHistory(pageSize: 20))
    let loaded = try #require(await store.state(within: 30) { $0.messages.count == 2 && !$0.history.isLoadingHistory })
    #expect(loaded.status == .ongoing)

    // When a teammate takes it over (the store, not connected, does not hear it) and the user asks the AI
    // agent for another answer
    try await server.control("conversation_status", ["conversation_id": conversation.rawValue, "status": "taken_over"])
    let answer = try #require(loaded.messages.last)
    store.send(.regenerate(answer.clientID))

    // Then the refusal names where the conversation stands, and the store follows it: taken over, not ended
    let refused = try #require(await store.state(within: 30) { $0.userError != nil })
    #expect(refused.userError?.code == .conversationNotOngoing)
    #expect(refused.userError?.conversationStatus == .takenOver)
    #expect(refused.status == .takenOver)

    // And the user can still write: the message goes to the teammate
    store.sendMessage("Are you there?")
    let sent = await store.state(within: 30) {
      $0.messages.contains { $0.text == "Are you there?" && $0.delivery == .sent }
    }
    #expect(sent != nil)
    #expect(try await server.messages(in: conversation).contains { $0["text"] as? String == "Are you there?" })
  }

  @Test("a failed JSON call reports the code in the server's error body, not only its status's")
  func bodyCodeOfJSONCall() async throws {
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 2)

    do {
      try await server.backend().rate("m-404", in: conversation, as: .up)
      Issue.record("rating an unknown message was accepted")
    } catch let error as ChatError {
      #expect(error.code == .unknownMessage && error.status == 422)
    }
  }

  @Test("a bad token is UNAUTHORIZED and never retryable")
  func badToken() async throws {
    let server = try await ReferenceServer.start()

    do {
      _ = try await server.backend(token: { "wrong" }).conversations(after: nil, limit: 10)
      Issue.record("a wrong token was accepted")
    } catch let error as ChatError {
      #expect(error.code == .unauthorized && error.status == 401 && !error.retryable)
    }
  }
}

/// Polls `condition` every 10 ms for up to 10 s of real time.
func waitFor(_ condition: @Sendable () -> Bool) async -> Bool {
  for _ in 0..<1000 {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}

/// What a realtime listener saw, from any thread.
final class Inbox: Sendable {
  let texts = StateLock<[String]>([])
  let opened = StateLock(0)
  let rejected = StateLock<[ChatError]>([])

  /// Reads `backend`'s realtime stream into this inbox until the task is cancelled or the stream ends.
  func listen(to backend: some ChatBackend) -> Task<Void, Never> {
    Task { [self] in
      do {
        for try await update in backend.realtime(conversation: nil) {
          switch update {
          case .opened: opened.withLock { $0 += 1 }
          case .rejected(let error): rejected.withLock { $0.append(error) }
          case .event(_, .messageCreated(let message)): texts.withLock { $0.append(message.text) }
          case .event, .list: break
          }
        }
      } catch {}
    }
  }
}
