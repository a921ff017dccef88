import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

@testable import ChatHTTP

/// The user's list managed against the reference server (`Docs/HTTP-PROTOCOL.md`, Managing the list): a
/// rename, a pin, the archive and an unread mark go out as `PATCH B/conversations/{id}`, a deletion as
/// `DELETE B/conversations/{id}`, and another device hears them as `conversation.updated` /
/// `conversation.deleted`.
@Suite("Managing the list against the reference server", .hangGuard)
struct ReferenceServerListTests {
  /// A list store on `server` with its first page loaded.
  static func loadedList(
    on server: ReferenceServer, backend: HTTPChatBackend? = nil, policy: ChatPolicy = ChatPolicy()
  ) async throws -> ConversationListStore {
    let list = ConversationListStore(backend: try backend ?? server.backend(), policy: policy)
    list.send(.load(pageSize: 50))
    _ = try #require(await list.state(within: 60) { $0.hasLoaded })
    return list
  }

  /// The list as a device that starts now loads it from `server`.
  static func listOnServer(_ server: ReferenceServer) async throws -> ConversationListState {
    let reader = try await loadedList(on: server)
    defer { reader.close() }
    return reader.state
  }

  /// The `/v1` requests the server received with `method`, as their paths.
  static func requests(_ method: String, on server: ReferenceServer) async throws -> [String] {
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    return log.filter { $0["method"] as? String == method }.compactMap { $0["path"] as? String }
  }

  @Test("a rename, a pin, the archive and an unread mark are kept by the server: a fresh load shows them")
  func changesAreKept() async throws {
    // Given a user whose list shows two conversations
    let server = try await ReferenceServer.start()
    let trip = try await server.conversation(title: "Order 1042", messages: 2)
    let returns = try await server.conversation(title: "Returns", messages: 2)
    let list = try await Self.loadedList(on: server)
    defer { list.close() }

    // When they rename and pin the first, mark it unread, and archive the second
    let pinnedAt = Date()
    list.send(.change(trip, .title("  Trip to Lisbon  ")))
    list.send(.change(trip, .pinned(true, at: pinnedAt)))
    list.send(.change(trip, .markedUnread(true)))
    list.send(.change(returns, .archived(true)))

    // Then the server confirms every change and the list shows them, pinned first, the archived one apart
    let confirmed = try #require(await list.state(within: 60) { $0.edits.isEmpty })
    #expect(confirmed.error == nil)
    #expect(confirmed.shown.map(\.id) == [trip])
    #expect(confirmed.conversations[trip]?.title == "Trip to Lisbon")
    // And each went out as one PATCH of the conversation
    let patches = try await Self.requests("PATCH", on: server)
    #expect(
      patches.sorted()
        == (["/v1/conversations/\(returns)"] + Array(repeating: "/v1/conversations/\(trip)", count: 3)).sorted())

    // When the user opens the app on another device
    let fresh = try await Self.listOnServer(server)

    // Then the server kept them all
    let row = try #require(fresh.conversations[trip])
    #expect(row.title == "Trip to Lisbon")
    #expect(row.isTitleSetByUser)
    #expect(row.isMarkedUnread)
    #expect(!row.isArchived)
    #expect(abs((row.pinnedAt ?? .distantPast).timeIntervalSince(pinnedAt)) < 0.002, "the pin's time, to the ms")
    #expect(fresh.conversations[returns]?.isArchived == true)
    #expect(fresh.conversations[returns]?.isPinned == false)
    #expect(fresh.shown.map(\.id) == [trip])

    // When the user unpins and opens it, and brings the other back from the archive
    list.send(.change(trip, .pinned(false, at: Date())))
    list.send(.markRead(trip))
    list.send(.change(returns, .archived(false)))
    _ = try #require(await list.state(within: 60) { $0.edits.isEmpty })

    // Then the server has nothing pinned, marked or archived any more
    let after = try await Self.listOnServer(server)
    #expect(after.conversations[trip]?.isPinned == false)
    #expect(after.conversations[trip]?.isMarkedUnread == false)
    #expect(after.conversations[returns]?.isArchived == false)
    #expect(Set(after.shown.map(\.id)) == [trip, returns])
  }

  @Test("a deletion sent after its undo window removes the conversation: not listed, its history is gone")
  func deletionIsKept() async throws {
    // Given a user whose list shows two conversations, on a device with no undo window, and another device
    // that loaded the same list
    let server = try await ReferenceServer.start()
    let doomed = try await server.conversation(title: "Order 1042", messages: 4)
    let kept = try await server.conversation(title: "Returns", messages: 2)
    let backend = try server.backend()
    let list = try await Self.loadedList(on: server, backend: backend, policy: ChatPolicy(deleteUndoWindow: 0))
    defer { list.close() }
    let otherDevice = try await Self.loadedList(on: server, policy: ChatPolicy(deleteUndoWindow: 0))
    defer { otherDevice.close() }

    // When the user deletes the first
    list.send(.delete(doomed))

    // Then the server confirms it, and the row stays gone
    let done = try #require(await list.state(within: 60) { $0.deleting.isEmpty })
    #expect(done.error == nil)
    #expect(done.conversations[doomed] == nil)
    #expect(done.deleted.contains(doomed))
    #expect(try await Self.requests("DELETE", on: server) == ["/v1/conversations/\(doomed)"])
    // And a fresh load does not list it, while the other stays
    let fresh = try await Self.listOnServer(server)
    #expect(fresh.conversations[doomed] == nil)
    #expect(fresh.conversations[kept] != nil)
    // And its history is gone from the server
    await #expect {
      _ = try await backend.history(of: doomed, before: nil, limit: 10)
    } throws: { error in
      (error as? ChatError)?.code == .conversationNotFound && (error as? ChatError)?.status == 404
    }

    // When the other device, which still lists it, deletes it too
    otherDevice.send(.delete(doomed))

    // Then its 404 counts as done: the row goes, with no error
    let alsoDone = try #require(await otherDevice.state(within: 60) { $0.deleting.isEmpty })
    #expect(alsoDone.error == nil)
    #expect(alsoDone.conversations[doomed] == nil)
    #expect(alsoDone.deleted.contains(doomed))
    #expect(try await Self.requests("DELETE", on: server).count == 2)
  }

  @Test("an empty title is refused on the device; one the server refuses rolls back with INVALID_TITLE")
  func refusedTitles() async throws {
    // Given a user whose list shows a conversation
    let server = try await ReferenceServer.start()
    let id = try await server.conversation(title: "Order 1042", messages: 2)
    let list = try await Self.loadedList(on: server)
    defer { list.close() }

    // When they rename it to nothing but spaces, or to more than 200 characters
    list.send(.change(id, .title("   ")))

    // Then the device refuses it: the row is as it was, nothing waits, nothing was sent
    #expect(list.state.error?.code == .invalidTitle)
    #expect(list.state.edits.isEmpty)
    #expect(list.state.conversations[id]?.title == "Order 1042")
    list.send(.clearError)
    list.send(.change(id, .title(String(repeating: "x", count: ConversationSummary.maximumUserTitleLength + 1))))
    #expect(list.state.error?.code == .invalidTitle)
    #expect(list.state.edits.isEmpty)
    #expect(try await Self.requests("PATCH", on: server).isEmpty)

    // When they rename it to a title the server's rules refuse (it refuses titles starting with "!")
    list.send(.clearError)
    list.send(.change(id, .title("!Urgent")))
    #expect(list.state.conversations[id]?.title == "!Urgent", "shown at once")

    // Then the server's refusal rolls the row back, with the server's error shown
    let rolledBack = try #require(await list.state(within: 60) { $0.edits.isEmpty && $0.error != nil })
    #expect(rolledBack.error?.code == .invalidTitle)
    #expect(rolledBack.error?.status == 400)
    #expect(rolledBack.error?.retryable == false)
    #expect(rolledBack.conversations[id]?.title == "Order 1042")
    #expect(rolledBack.conversations[id]?.isTitleSetByUser == false)
    // And it was sent once, not retried, and the server kept its title
    #expect(try await Self.requests("PATCH", on: server) == ["/v1/conversations/\(id)"])
    #expect(try await Self.listOnServer(server).conversations[id]?.title == "Order 1042")
  }

  @Test("changes and a deletion made on another device reach this device's list over its shared connection")
  func changesFromAnotherDevice() async throws {
    // Given a user whose ChatClient lists two conversations (its shared realtime connection open)
    let server = try await ReferenceServer.start()
    let trip = try await server.conversation(title: "Order 1042", messages: 2)
    let doomed = try await server.conversation(title: "Returns", messages: 2)
    let client = ChatClient(backend: try server.backend())
    let list = client.list
    list.send(.load(pageSize: 50))
    _ = try #require(await list.state(within: 60) { $0.hasLoaded })
    for await state in client.snapshots() where state.connection == .connected { break }

    // When the same user renames, pins and archives the first on another device, and deletes the second
    let otherDevice = try await Self.loadedList(on: server, policy: ChatPolicy(deleteUndoWindow: 0))
    defer { otherDevice.close() }
    let pinnedAt = Date()
    otherDevice.send(.change(trip, .title("Trip to Lisbon")))
    otherDevice.send(.change(trip, .pinned(true, at: pinnedAt)))
    otherDevice.send(.change(trip, .archived(true)))
    otherDevice.send(.delete(doomed))

    // Then this device's list shows every change, and the deleted conversation is gone for good
    let told = try #require(
      await list.state(within: 60) { state in
        let row = state.conversations[trip]
        return row?.title == "Trip to Lisbon" && row?.isPinned == true && row?.isArchived == true
          && state.deleted.contains(doomed)
      })
    let row = try #require(told.conversations[trip])
    #expect(row.isTitleSetByUser)
    #expect(abs((row.pinnedAt ?? .distantPast).timeIntervalSince(pinnedAt)) < 0.002, "the other device's pin time")
    #expect(told.conversations[doomed] == nil)
    #expect(told.edits.isEmpty)
    #expect(told.error == nil)
    await client.close()
  }

  /// One realtime frame, as the stream delivers it.
  struct Frame: CoalescingElement {
    var event: ServerSentEvent

    func deltaText(continuedBy next: Frame) -> String? { nil }
    func replacingDeltaText(with text: String) -> Frame { self }
    func positioned(_ position: StreamPosition) -> Frame { self }
  }
}

/// What `Docs/HTTP-PROTOCOL.md` (Managing the list) pins on the wire: the requests, the list's rows, and the
/// realtime frames.
@Suite("Managing the list on the wire")
struct ListChangeWireTests {
  static let pinnedAt = Date(timeIntervalSince1970: 1_764_558_000.125)

  static func body(_ endpoint: Endpoint) -> String? {
    endpoint.body.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test(
    "each change is a PATCH of the conversation with exactly its one field",
    arguments: [
      (ConversationChange.title("Trip to Lisbon"), #"{"title":"Trip to Lisbon"}"#),
      (.pinned(true, at: pinnedAt), #"{"pinned":true,"pinned_at":"2025-12-01T03:00:00.125Z"}"#),
      (.pinned(false, at: pinnedAt), #"{"pinned":false}"#),
      (.archived(true), #"{"archived":true}"#),
      (.archived(false), #"{"archived":false}"#),
      (.markedUnread(true), #"{"unread":true}"#),
      (.markedUnread(false), #"{"unread":false}"#),
    ])
  func patchBody(_ change: ConversationChange, _ expected: String) {
    // Given a change the user made
    // When it is written for the server
    let endpoint = Endpoint.updateConversation("conv-7", change)

    // Then it is a PATCH of the conversation, whose body is the change's one field, with no idempotency key
    #expect(endpoint.method == "PATCH")
    #expect(endpoint.path == "conversations/conv-7")
    #expect(Self.body(endpoint) == expected)
    #expect(endpoint.key == nil)
  }

  @Test("a deletion is a DELETE of the conversation, with no body")
  func deleteRequest() {
    let endpoint = Endpoint.deleteConversation("conv-7")
    #expect(endpoint.method == "DELETE")
    #expect(endpoint.path == "conversations/conv-7")
    #expect(endpoint.body == nil)
    #expect(endpoint.key == nil)
  }

  @Test("a list row carries the pin, the archive, the user's mark and whose title it is; absent is none")
  func listRow() throws {
    // Given a page with a managed row, one with the fields null, and one from a server that knows none
    let page = Data(
      #"""
      {"conversations": [
        {"id": "conv-1", "title": "Trip", "pinned_at": "2025-12-01T03:00:00.125Z", "archived": true,
         "unread": true, "title_set_by_user": true},
        {"id": "conv-2", "title": "Returns", "pinned_at": null, "archived": false, "unread": false,
         "title_set_by_user": false},
        {"id": "conv-3", "title": "Old server"}],
       "next_cursor": null, "has_more": false}
      """#.utf8)

    // When it is read
    let rows = try WireJSON.decode(ConversationsBody.self, from: page, what: "a page").conversations.map(\.summary)

    // Then the first has all four, and the others none
    #expect(rows[0].pinnedAt == Self.pinnedAt)
    #expect(rows[0].isArchived && rows[0].isMarkedUnread && rows[0].isTitleSetByUser)
    for row in rows.dropFirst() {
      #expect(row.pinnedAt == nil && !row.isArchived && !row.isMarkedUnread && !row.isTitleSetByUser)
    }
  }

  static let now = Date(timeIntervalSince1970: 1_764_600_000)

  static func listEvents(_ type: String, _ data: String) throws(ChatError) -> [ConversationListEvent]? {
    try RealtimeEventMapper.listEvents(ServerSentEvent(type: type, data: data, lastEventID: "9"), receivedAt: now)
  }

  @Test("conversation.updated is one list event per field it carries, in a fixed order")
  func updatedFrame() throws {
    // Given a frame that carries every field
    let all = try Self.listEvents(
      "conversation.updated",
      #"{"conversation_id": "conv-1", "unread": true, "archived": false, "pinned": true, "pinned_at": "2025-12-01T03:00:00.125Z", "title": "Trip"}"#
    )
    // Then it is four changes: title, pin, archive, mark
    #expect(
      all == [
        .conversationChanged("conv-1", .title("Trip")),
        .conversationChanged("conv-1", .pinned(true, at: Self.pinnedAt)),
        .conversationChanged("conv-1", .archived(false)), .conversationChanged("conv-1", .markedUnread(true)),
      ])
    // And one field is one change; a pin without a time is the device's now; fields it does not know are nothing
    #expect(
      try Self.listEvents("conversation.updated", #"{"conversation_id": "conv-1", "pinned": false}"#)
        == [.conversationChanged("conv-1", .pinned(false, at: Self.now))])
    #expect(
      try Self.listEvents("conversation.updated", #"{"conversation_id": "conv-1", "pinned": true}"#)
        == [.conversationChanged("conv-1", .pinned(true, at: Self.now))])
    #expect(try Self.listEvents("conversation.updated", #"{"conversation_id": "conv-1", "colour": "red"}"#) == [])
  }

  @Test("conversation.deleted is the list's conversationDeleted")
  func deletedFrame() throws {
    #expect(
      try Self.listEvents("conversation.deleted", #"{"conversation_id": "conv-1"}"#) == [.conversationDeleted("conv-1")]
    )
  }

  @Test("a list frame that cannot be read is INVALID_EVENT; other types are not the list's")
  func unreadable() throws {
    for (type, data) in [
      ("conversation.updated", #"{"conversation_id": "conv-1", "archived": "yes"}"#),
      ("conversation.updated", #"{"conversation_id": "conv-1", "pinned": true, "pinned_at": "soon"}"#),
      ("conversation.updated", #"{"conversation_id": "conv-1", "title": "  "}"#),
      ("conversation.updated", #"{"title": "Trip"}"#), ("conversation.deleted", "{oops"),
    ] {
      #expect(throws: ChatError.self, "\(type) \(data)") { try Self.listEvents(type, data) }
      do {
        _ = try Self.listEvents(type, data)
      } catch {
        #expect(error.code == .invalidEvent)
      }
    }
    #expect(try Self.listEvents("conversation.title", #"{"conversation_id": "conv-1", "title": "Trip"}"#) == nil)
    // And the conversation's mapper leaves the list's frames alone: skipped, not rejected
    let frame = ServerSentEvent(
      type: "conversation.updated", data: #"{"conversation_id": "conv-1", "archived": true}"#, lastEventID: "9")
    #expect(try RealtimeEventMapper.map(frame, receivedAt: Self.now) == nil)
  }
}
