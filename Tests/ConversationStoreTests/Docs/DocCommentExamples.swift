import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The Swift examples of the ConversationStore module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and, where that is cheap, run
// against a scripted or controlled backend. The host's own names an example uses (`render`, `orders`, `api`,
// `myProtocol`…) are the stand-ins below; `MyServer` is `ArticleSnippets`' (a `ControlledBackend`).

private func render(_ state: ConversationState, _ changes: ChangeSet<ClientMessageID>) {}
private func render(_ state: ConversationState, changedRows: ChangeSet<ClientMessageID>) {}
private func render(_ state: ConversationState) {}
private func reloadAll(_ state: ConversationState) {}
private func reload(_ changes: ChangeSet<ClientMessageID>) {}
private func log(_ event: ClientDiagnostic) {}

/// The host's order service, which the `lookupOrder` tool asks.
private struct Orders {
  func lookup(_ id: JSONValue?) async throws -> JSONValue { ["id": id ?? .null, "status": "shipped"] }
}
private let orders = Orders()

/// A host's HTTP client, as `ChatBackend`'s and `ForwardPagedHistory`'s examples use one (`SupportAPI` in the
/// latter; the tests have a `SupportAPI` of their own).
private struct HostAPI: Sendable {
  struct Posted: Sendable {
    var message: Message
    var conversationID: ConversationID
    var streamURL: URL
  }
  struct WireEvent: Sendable {
    var asReplyEvent: ReplyEvent
  }
  struct MessagesPage: Sendable {
    var messages: [Message]
    var nextCursor: String?
    var total: Int?
  }

  func post(_ path: String, _ payload: SendPayload) async throws -> Posted {
    Posted(
      message: .confirmed(payload.text, clientID: payload.clientID, serverID: "s1", at: 1), conversationID: "c1",
      streamURL: URL(string: "https://chat.example.com/streams/1")!)
  }
  func events(_ url: URL) -> AsyncThrowingStream<WireEvent, any Error> {
    AsyncThrowingStream { continuation in
      for event: ReplyEvent in [.started(agent: nil), .delta("Hello"), .finished(.server("Hello", id: "s2", at: 2))] {
        continuation.yield(WireEvent(asReplyEvent: event))
      }
      continuation.finish()
    }
  }
  func history(_ conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }
  func messages(_ conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
  func messages(in conversation: ConversationID, after: String?, limit: Int) async throws -> MessagesPage {
    MessagesPage(messages: [], nextCursor: nil, total: 0)
  }
  func realtime(_ conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}
private let api = HostAPI()

/// An agent protocol's client, as `AgentBackend`'s example uses one: it answers every run with "Hi".
private struct AgentProtocol: Sendable {
  func run(_ messages: [Message]) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { continuation in
      continuation.yield(.started(agent: nil))
      continuation.yield(.delta("Hi"))
      continuation.yield(.finished(.server("Hi", id: "a1", at: 2)))
      continuation.finish()
    }
  }
}
private let myProtocol = AgentProtocol()

/// `ChatBackend`'s example: a backend of the host's own, in a namespace of its own (the tests have a `MyServer`).
private enum ChatBackendExample {
  // DOCC-CHATBACKEND-BEGIN
  struct MyServer: ChatBackend {
    func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
      AsyncThrowingStream { continuation in
        let task = Task {
          do {
            let response = try await api.post("/messages", payload)  // your HTTP client
            continuation.yield(.accepted(response.message, conversationID: response.conversationID))
            for try await event in api.events(response.streamURL) {  // e.g. an SSE decoder
              continuation.yield(event.asReplyEvent)  // .started, .delta, .finished…
            }
            continuation.finish()
          } catch {
            continuation.finish(throwing: error)  // never leave the stream open: the send would stay "sending"
          }
        }
        continuation.onTermination = { _ in task.cancel() }  // the store stopped listening: stop the request
      }
    }
    func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
      -> HistoryPage
    {
      try await api.history(conversation, before: cursor, limit: limit)
    }
    func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
      try await api.messages(conversation, after: after)
    }
    func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
      api.realtime(conversation)
    }
  }
  // DOCC-CHATBACKEND-END
}

/// `ForwardPagedHistory`'s example, in a namespace of its own (the tests have a `SupportServer`).
private enum ForwardPagedHistoryExample {
  typealias SupportAPI = HostAPI

  // DOCC-FORWARDPAGEDHISTORY-BEGIN
  struct SupportServer: ChatBackend {
    let api: SupportAPI  // your HTTP client
    let pages: ForwardPagedHistory

    init(api: SupportAPI, policy: ChatPolicy = ChatPolicy()) throws {
      self.api = api
      pages = try ForwardPagedHistory(serverPageLimit: 50, policy: policy) { conversation, after, limit in
        // GET /conversations/{id}/messages?after=<cursor>&limit=50 → {messages, next_cursor, total_count?}
        let answer = try await api.messages(in: conversation, after: after, limit: limit)
        return ForwardPagedHistory.Page(
          messages: answer.messages, nextCursor: answer.nextCursor, totalCount: answer.total)
      }
    }

    func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
      -> HistoryPage
    {
      try await pages.history(of: conversation, before: cursor, limit: limit)
    }
    // send, messages(in:after:), realtime…
  }
  // DOCC-FORWARDPAGEDHISTORY-END
}

extension ForwardPagedHistoryExample.SupportServer {
  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish() }
  }
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}

// DOCC-AGENTBACKEND-BEGIN
final class MyAgent: AgentBackend {
  let contextPolicy: AgentContextPolicy
  var toolResultDelivery: ToolResultDelivery { .nextRun }  // runs end with the app's calls pending

  init(contextPolicy: AgentContextPolicy = .standard) throws(ChatError) {
    try contextPolicy.validate()  // INVALID_CONFIGURATION at once
    self.contextPolicy = contextPolicy
  }
  func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let history = context.messages + [AgentContext.userMessage(payload, at: Date())]
    return myProtocol.run(history)  // encode, post, map the stream
  }
  func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    myProtocol.run(context.messages)  // ends with the prompt
  }
  func continueRun(_ run: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    myProtocol.run(context.messages + [run.message])  // the answer, with its outcomes and answers
  }
  func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError(.notResumable, "No resumable streams.")) }
  }
  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)  // the stored conversation is the history
  }
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }  // opens and stays quiet
  }
}
// DOCC-AGENTBACKEND-END

// Examples that need a live client, a screen or a server: compiled, not run.

private func snapshotStreamExample(_ store: ChatStore) async {
  // DOCC-SNAPSHOTSTREAM-BEGIN
  let frames: AsyncStream<Snapshot<ConversationState>> = store.snapshotStream()
  for await snapshot in frames { render(snapshot.state, snapshot.changes) }
  // DOCC-SNAPSHOTSTREAM-END
}

private func snapshotSequenceExample(_ store: ChatStore) async {
  // DOCC-SNAPSHOTSEQUENCE-BEGIN
  for await snapshot in store.snapshots() {
    if snapshot.changes.isReset { reloadAll(snapshot.state) } else { reload(snapshot.changes) }
  }
  // DOCC-SNAPSHOTSEQUENCE-END
}

private func contactExample(_ client: ChatClient) throws -> ContactUploadState {
  // DOCC-CHATCLIENT-CONTACT-BEGIN
  try client.setContactDetails(ContactDetails(email: "ana@example.com"))
  let upload = client.state.contactUpload  // .sending, then .idle once the backend has them
  // DOCC-CHATCLIENT-CONTACT-END
  return upload
}

private func hostOperationExample(_ client: ChatClient) async throws -> OutboxOperationID {
  // DOCC-CHATCLIENT-ENQUEUE-BEGIN
  let id = try await client.enqueue(HostOperation(kind: "profile.set", payload: ["plan": "pro"]))
  // DOCC-CHATCLIENT-ENQUEUE-END
  return id
}

private func searchExample(_ client: ChatClient) async throws {
  // DOCC-CHATCLIENT-SEARCH-BEGIN
  let page = try await client.search("refund")
  for (conversation, results) in page.byConversation { print(conversation, results.count) }
  // DOCC-CHATCLIENT-SEARCH-END
}

@MainActor
private func chatClientExample() async throws {
  // DOCC-CHATCLIENT-BEGIN
  let client = ChatClient(
    backend: MyServer(),
    options: ChatClientOptions(
      workspace: "acme", storage: try ChatStorage(root: ChatStorage.defaultRoot(app: "acme-chat"))))
  client.list.send(.load(pageSize: 30))
  let chat = client.conversation("c42")  // at once: read from disk on the worker, then connected
  chat.sendMessage("Where is my order?")  // its row moves to the top of client.list
  client.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true)
  await client.close()  // everything stopped and written
  // DOCC-CHATCLIENT-END
}

private func conversationExample(_ client: ChatClient) async {
  // DOCC-CHATCLIENT-CONVERSATION-BEGIN
  let chat = client.conversation("c42")  // at once; chat.state.isRestoring while the file is read
  for await snapshot in chat.snapshots() where !snapshot.state.isRestoring { render(snapshot.state) }
  // DOCC-CHATCLIENT-CONVERSATION-END
}

private func diagnosticStreamExample() -> ChatClient {
  // DOCC-CLIENTDIAGNOSTIC-STREAM-BEGIN
  let (events, sink) = ClientDiagnostic.makeStream(bufferingNewest: 256)
  let client = ChatClient(backend: MyServer(), options: ChatClientOptions(diagnostics: sink))
  Task { for await event in events { log(event) } }
  // DOCC-CLIENTDIAGNOSTIC-STREAM-END
  return client
}

private func storedHistoryExample(_ file: ConversationFile, _ id: ConversationID, _ backend: any ChatBackend)
  -> ChatStore
{
  // DOCC-STOREDHISTORYREADER-BEGIN
  let store = ChatStore(
    file.restored ?? ConversationState(conversationID: id), backend: backend,
    storedHistory: file.historyReader)
  // DOCC-STOREDHISTORYREADER-END
  return store
}

private func chatStoreExample() -> ChatStore {
  // DOCC-CHATSTORE-BEGIN
  let store = ChatStore(backend: MyServer())
  store.send(.connect)
  store.sendMessage("Where is my order?")
  // DOCC-CHATSTORE-END
  return store
}

private func chatStoreToolsExample() -> ChatStore {
  // DOCC-CHATSTORE-TOOLS-BEGIN
  let store = ChatStore(
    backend: MyServer(),
    tools: [
      "lookupOrder": { arguments in try await orders.lookup(arguments["id"]) }
    ])
  // DOCC-CHATSTORE-TOOLS-END
  return store
}

@Suite("ConversationStore's doc-comment examples")
struct ConversationStoreDocCommentTests {
  @Test("a store applies an action at once, and its subscribers' loops end when it closes")
  func store() {
    // DOCC-STORE-BEGIN
    let store = Store(initialState: ConversationState(), reducer: ConversationReducer())
    Task {
      for await snapshot in store.snapshots() {
        render(snapshot.state, changedRows: snapshot.changes)
      }
    }
    store.send(.setDraft("Hi"))
    store.close()  // the loop above ends
    // DOCC-STORE-END
    #expect(store.state.draft == "Hi")
    #expect(!store.send(.setDraft("Bye")), "a closed store changes nothing")
  }

  @Test("an observable conversation shows a draft as soon as it is sent")
  @MainActor
  func observableConversation() {
    let store = ChatStore(backend: ControlledBackend(), environment: .deterministic())
    defer { store.close() }
    // DOCC-OBSERVABLECONVERSATION-BEGIN
    let chat = ObservableConversation(store)  // on the main actor, as the UI it drives
    chat.send(.setDraft("Hi"))  // chat.draft == "Hi" now
    // a message list view reads chat.messages, the reply bubble chat.streamingReply, a banner chat.connection
    // DOCC-OBSERVABLECONVERSATION-END
    #expect(chat.draft == "Hi")
  }

  @Test("an observable store shows a draft as soon as it is sent")
  @MainActor
  func observableStore() {
    let store = ChatStore(backend: ControlledBackend(), environment: .deterministic())
    defer { store.close() }
    // DOCC-OBSERVABLESTORE-BEGIN
    let model = ObservableStore(store)
    model.send(.setDraft("Hi"))  // model.state.draft == "Hi" here
    // DOCC-OBSERVABLESTORE-END
    #expect(model.state.draft == "Hi")
  }

  @Test("a chat store shows a message as sending at once, and asks its backend to send it")
  func chatStore() async throws {
    let store = chatStoreExample()
    defer { store.close() }
    let sending = await store.state { $0.messages.outgoing.first?.delivery == .sending }
    #expect(sending?.messages.outgoing.map(\.text) == ["Where is my order?"])
  }

  @Test("an app tool is a closure of the host's, by name")
  func chatStoreTools() async throws {
    let store = chatStoreToolsExample()
    defer { store.close() }
    #expect(try await orders.lookup(1042) == ["id": 1042, "status": "shipped"])
  }

  @Test("the host's backend streams the accepted message and the reply it posted for")
  func chatBackend() async throws {
    let store = ChatStore(backend: ChatBackendExample.MyServer(), environment: .deterministic())
    defer { store.close() }
    store.sendMessage("Hi")
    let state = await store.state { $0.messages.last?.text == "Hello" }
    #expect(state?.messages.count == 2)
  }

  @Test("a server that pages forwards serves the newest page first")
  func forwardPagedHistory() async throws {
    let server = try ForwardPagedHistoryExample.SupportServer(api: HostAPI())
    let page = try await server.history(of: "c1", before: nil, limit: 20)
    #expect(page.messages.isEmpty)
    #expect(!page.hasMore)
  }

  @Test("an agent of the host's own answers with the conversation as its context")
  func agentBackend() async throws {
    let store = ChatStore(backend: try MyAgent(), environment: .deterministic())
    defer { store.close() }
    store.sendMessage("Hello?")
    let state = await store.state { $0.messages.last?.text == "Hi" }
    #expect(state?.messages.last?.role == .assistant)
  }

  @Test("an event's position is dropped to read what it says")
  func unpositioned() async throws {
    let backend = ChatBackendExample.MyServer()  // streams "Hello" at once
    let payload = SendPayload(conversationID: nil, clientID: "c1", text: "Hi", attachments: [])
    var printed: [String] = []
    func print(_ text: String, terminator: String) { printed.append(text) }
    // DOCC-UNPOSITIONED-BEGIN
    for try await event in backend.send(payload) {
      if case .delta(let text) = event.unpositioned { print(text, terminator: "") }
    }
    // DOCC-UNPOSITIONED-END
    #expect(printed.joined() == "Hello")
  }
}

@Suite("Doc comment examples: a conversation's steps reaching the list")
struct ListReportingExample {
  @Test("ConversationListEvent.reporting's example: the user's message reaches its row in the list")
  func reportsTheUsersMessage() async throws {
    // Given a list with conversation c42's row, and the store of c42
    let list = ConversationListStore(backend: ControlledBackend(), environment: .deterministic())
    list.send(.realtime(.conversationCreated(ConversationSummary(id: "c42", title: nil, lastActivityAt: .story(0)))))
    let store = ChatStore(.existing(id: "c42"), backend: ControlledBackend(), environment: .deterministic())
    var snapshots = store.snapshots().makeAsyncIterator()
    let first = await snapshots.next()
    var before = try #require(first).state

    // When the user writes, and the step is reported
    store.send(.send(OutgoingMessage(clientID: "m1", text: "Where is order 1042?", createdAt: .story(1))))
    let next = await snapshots.next()
    let snapshot = try #require(next)
    let after = snapshot.state
    // DOCC-LIST-REPORTING-BEGIN
    for action in ConversationListEvent.reporting(from: before, to: after, changes: snapshot.changes) {
      list.send(action)
    }
    // DOCC-LIST-REPORTING-END
    before = after

    // Then the row shows it
    let row = await list.state { $0.conversations["c42"]?.lastMessagePreview != nil }
    #expect(row?.conversations["c42"]?.lastMessagePreview == "Where is order 1042?")
    store.close()
    list.close()
  }
}

private func openSearchResult(_ result: SearchResult, in store: ChatStore) {
  // DOCC-SEARCH-OFF-SCREEN-BEGIN
  if result.isOffScreen { store.send(.showBranch(containing: result.message.clientID)) }
  // DOCC-SEARCH-OFF-SCREEN-END
}

private func queuedRow(number: Int, text: String, dimmed: Bool) { print(number, text, dimmed) }
private func resumeBanner(_ pause: FollowUpPause) { print(pause) }

private func followUpRows(_ state: ConversationState) {
  // DOCC-FOLLOWUPS-BEGIN
  for (index, turn) in state.followUps.turns.enumerated() {
    queuedRow(number: index + 1, text: turn.text, dimmed: true)
  }
  if let pause = state.followUps.pause { resumeBanner(pause) }  // sends `.resumeQueue`
  // DOCC-FOLLOWUPS-END
}

private func grantRow(_ toolName: String, since: Date, revoke: () -> Void) { print(toolName, since) }

private func grantRows(_ state: ConversationState, _ store: ChatStore) {
  // DOCC-APPROVAL-GRANTS-BEGIN
  for grant in state.approvalGrants {
    grantRow(grant.toolName, since: grant.grantedAt) { store.send(.revokeApproval(toolName: grant.toolName)) }
  }
  // DOCC-APPROVAL-GRANTS-END
}

private func settingsRow(_ title: String, revoke: @escaping @Sendable () async -> Void) { print(title) }

private func standingApprovalRows(_ client: ChatClient) {
  // DOCC-STANDING-APPROVALS-BEGIN
  for grant in client.standingApprovals {
    settingsRow("Always: \(grant.toolName)") { await client.revokeStandingApproval(toolName: grant.toolName) }
  }
  // DOCC-STANDING-APPROVALS-END
}

@Test("steering while nothing answers sends at once, as the doc comment's example does")
func steerExample() async {
  let chat = ChatStore(backend: ControlledBackend())
  defer { chat.close() }
  // DOCC-STEER-BEGIN
  chat.steer("Use the EU store, not the US one")  // sent once the running answer completed
  // DOCC-STEER-END
  #expect(chat.state.messages.last?.text == "Use the EU store, not the US one")
  #expect(chat.state.followUps.isEmpty)
}

private func askExample(_ chat: ChatStore) async {
  // DOCC-ASK-BEGIN
  do {
    let answer = try await chat.ask("Where is my order?")
    print(answer.text)
  } catch {
    print("No answer: \(error.message)")  // a typed ChatError
  }
  // DOCC-ASK-END
}

/// A banner a host shows over every screen.
private final class Banner {
  var isHidden = true
  var text = ""
}

private func clientBanner(_ client: ChatClient, _ banner: Banner) async {
  // DOCC-CLIENT-SNAPSHOTS-BEGIN
  for await state in client.snapshots() {
    let waiting = state.outboxCount ?? 0
    banner.isHidden = !state.awaitsHostCredentials && !state.connection.isOffline && waiting == 0
    banner.text = waiting == 0 ? "Offline" : "\(waiting) changes waiting to be sent"
  }
  // DOCC-CLIENT-SNAPSHOTS-END
}

private func conversationListStore(_ id: ConversationID) {
  // DOCC-LISTSTORE-BEGIN
  let list = ConversationListStore(backend: MyServer())
  list.send(.load(pageSize: 30))
  list.send(.change(id, .title("Refund for order 1042")))
  // DOCC-LISTSTORE-END
  list.close()
}

private func suggestionExample(_ chat: ChatStore) {
  // DOCC-SENDSUGGESTION-BEGIN
  chat.send(.setStarterPrompts(["Where is my order?", "Change my address"]))
  chat.sendSuggestion(0)  // sends "Where is my order?"
  // DOCC-SENDSUGGESTION-END
}
