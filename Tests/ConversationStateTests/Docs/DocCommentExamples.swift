import ConversationStore
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import ConversationState

// The Swift examples of ConversationState's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and, where that is cheap, run.
// The free names an example uses (`store`, `client`, `message`, `render`…) are parameters or the stand-ins below.

private func showApproval(for callID: ToolCallID, _ message: String?) {}
private func showApprovals(_ requests: [InputRequest]) {}
private func showRetry(_ message: String) {}
private func paragraph(_ text: String) {}
private func collapsedThoughts(_ text: String) {}
private func toolRow(_ call: ToolCall?) {}
private func link(_ title: String?, _ url: URL?) {}
private func attachmentChip(_ file: FilePart) {}
private func customView(kind: String, _ value: JSONValue) {}

/// A list widget's model, as a toolkit has one: told which rows changed.
private final class RowsModel {
  var changed: [Int] = []
  func itemsChanged(position: Int, removed: Int, added: Int) { changed.append(position) }
}

/// A text buffer a toolkit shows the streaming reply in.
private final class ReplyBuffer {
  var text = ""
  func append(_ tail: String) { text += tail }
  func set(_ whole: String) { text = whole }
}

/// An agent protocol's client, as a backend has one.
private struct AgentAPI {
  func startRun(
    thread: ConversationID, resume: [(InputRequestID, InputAnswer?)], toolMessages: [(ToolCallID, ToolCall.Outcome)]
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish() }
  }
}

/// An event of a protocol that numbers its events, as a backend decodes it.
private struct NumberedEvent {
  var sequenceNumber: UInt64
  var text: String
}

/// A message an agent who is not in this file wrote: the stand-in for `AgentInfo` in `OutOfLine`'s example.
private struct Agented {
  // DOCC-OUTOFLINE-BEGIN
  private var storedAgent = OutOfLine<AgentInfo>(nil)  // 8 bytes
  var agent: AgentInfo? {
    get { storedAgent.value }
    set { storedAgent.value = newValue }
  }
  // DOCC-OUTOFLINE-END
}

private struct NumberedAPI {
  let api = AgentAPI()

  // DOCC-RUNCONTINUATION-BEGIN
  func continueRun(_ run: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let resume = run.inputAnswers.map { ($0.id, $0.answer) }  // every request, each answered
    let toolMessages = run.toolResults.map { ($0.id, $0.outcome) }
    return api.startRun(thread: conversation, resume: resume, toolMessages: toolMessages)
  }
  // DOCC-RUNCONTINUATION-END

  func positioned(_ event: NumberedEvent, _ continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation) {
    // DOCC-STREAMPOSITION-BEGIN
    // In a backend's reply stream: each event with the position its protocol gave it.
    continuation.yield(.positioned(.sequence(event.sequenceNumber), .delta(event.text)))
    // DOCC-STREAMPOSITION-END
  }
}

@MainActor
private func inputRequestExample(_ store: ChatStore) {
  // DOCC-INPUTREQUEST-BEGIN
  if case .awaitingInput(let requests) = store.state.messages.last?.reply {
    for request in requests where request.answer == nil {
      if case .toolApproval(let callID) = request.kind { showApproval(for: callID, request.message) }
    }
  }
  store.send(.answerInput("int-call-1", .approved))
  // DOCC-INPUTREQUEST-END
}

private func messagePartExample(_ message: Message) {
  // DOCC-MESSAGEPART-BEGIN
  for part in message.parts {
    switch part.content {
    case .text(let text): paragraph(text)
    case .reasoning(let reasoning): collapsedThoughts(reasoning.text)  // never `encryptedValue`
    case .toolCall(let id): toolRow(message.toolCalls.first { $0.id == id })
    case .source(let source): link(source.title, source.url)
    case .file(let file): attachmentChip(file)
    case .data(let data): customView(kind: data.kind, data.value)
    }
  }
  // DOCC-MESSAGEPART-END
}

private func replyStateExample(_ message: Message) {
  // DOCC-REPLYSTATE-BEGIN
  switch message.reply {
  case .awaitingInput(let requests): showApprovals(requests.filter { $0.answer == nil })
  case .failed(let error), .rejected(let error): showRetry(error.message)
  case .truncated: showRetry("The answer was cut off.")
  default: break
  }
  // DOCC-REPLYSTATE-END
}

private func attachmentSourceExample(_ store: ChatStore) {
  // DOCC-ATTACHMENTSOURCE-BEGIN
  let photo = MessageAttachment(
    id: "a1", filename: "receipt.png", contentType: "image/png", byteSize: 48_213,
    source: .file(URL(fileURLWithPath: "/tmp/receipt.png")))
  store.sendMessage("Here is my receipt", attachments: [photo])  // uploaded first, then sent
  // DOCC-ATTACHMENTSOURCE-END
}

private func contactDetailsExample(_ client: ChatClient) throws {
  // DOCC-CONTACTDETAILS-BEGIN
  try client.setContactDetails(ContactDetails(email: "ana@example.com", name: "Ana"))
  // DOCC-CONTACTDETAILS-END
}

private func hostOperationExample(_ client: ChatClient) async throws -> OutboxOperationID {
  // DOCC-HOSTOPERATION-BEGIN
  let event = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened", "screen": "orders"])
  let id = try await client.enqueue(event)  // on disk when this returns
  // DOCC-HOSTOPERATION-END
  return id
}

private func diagnosticsExample() -> ChatClient {
  // DOCC-CLIENTDIAGNOSTIC-BEGIN
  let (events, sink) = ClientDiagnostic.makeStream(bufferingNewest: 256)
  let client = ChatClient(backend: MyServer(), options: ChatClientOptions(workspace: "acme", diagnostics: sink))
  Task {
    for await event in events {  // in order; ends when the client closes
      if case .connectionLost(let attempt, let retryDelay, let failure) = event.code {
        print("\(event.at) connection lost (\(attempt)): \(failure.kind), retry in \(retryDelay) ms")
      }
    }
  }
  // DOCC-CLIENTDIAGNOSTIC-END
  return client
}

/// The host's own backend in the examples: any `ChatBackend`.
private typealias MyServer = ControlledBackend

@Suite("ConversationState's doc-comment examples")
struct ConversationStateDocCommentTests {
  @Test("a rate-limit error is retryable, as ChatError's example says")
  func chatError() {
    // DOCC-CHATERROR-BEGIN
    let error = ChatError(.rateLimited, "Slow down", status: 429)
    let retryable = error.retryable  // true: classified from code and status by `ChatError.isRetryable`
    // DOCC-CHATERROR-END
    #expect(retryable)
  }

  @Test("an app tool declares its parameters as a JSON Schema")
  func appTool() {
    // DOCC-APPTOOL-BEGIN
    let weather = AppTool(
      name: "get_weather", description: "The forecast for a city",
      parameters: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])
    // DOCC-APPTOOL-END
    #expect(weather.parameters["required"] == ["city"])
  }

  @Test("a policy tightens attachments and polling, and the reducer takes it")
  func chatPolicy() {
    // DOCC-CHATPOLICY-BEGIN
    var policy = ChatPolicy()
    policy.maximumAttachments = 1  // one file per message…
    policy.maximumAttachmentBytes = 10 * 1024 * 1024  // …of at most 10 MiB
    policy.pollInterval = 1  // poll for new messages while realtime is down
    let reducer = ConversationReducer(policy: policy)
    // DOCC-CHATPOLICY-END
    #expect(reducer.policy.maximumAttachments == 1)
  }

  @Test("a server's refusal of a stale batch says where it numbers, clamped into range")
  func outboxSequencing() {
    // DOCC-OUTBOXSEQUENCING-BEGIN
    // The server refused a batch as stale, saying it is in epoch 4 and expects sequence 1:
    let receipt = OutboxReceipt(resync: OutboxSequencing(epoch: 4, nextSequence: 1))
    // DOCC-OUTBOXSEQUENCING-END
    #expect(receipt.resync?.epoch == 4 && receipt.resync?.nextSequence == 1)
    #expect(OutboxSequencing(epoch: 0, nextSequence: -3) == OutboxSequencing(epoch: 1, nextSequence: 1))
  }

  @Test("a server's delay is clamped into 0…600 seconds")
  func serverDelay() {
    // DOCC-SERVERDELAY-BEGIN
    let longest = ChatPolicy().serverDelay(1e19)  // 600
    let none = ChatPolicy().serverDelay(-5)  // 0
    // DOCC-SERVERDELAY-END
    #expect(longest == 600)
    #expect(none == 0)
  }

  @Test("a server's Retry-After longer than the backoff is waited out, never less than either")
  func outboxRetryDelay() {
    // DOCC-OUTBOXRETRYDELAY-BEGIN
    let busy = ChatError(.rateLimited, "Slow down.", status: 429, retryAfter: 120)
    let wait = ChatPolicy().outboxRetryDelay(attempt: 1, after: busy, jitter: 1)  // 120, not the backoff's 30
    // DOCC-OUTBOXRETRYDELAY-END
    #expect(wait == 120)
    #expect(
      ChatPolicy().outboxRetryDelay(attempt: 1, after: ChatError(.rateLimited, "", retryAfter: 5), jitter: 1) == 30)
    #expect(
      ChatPolicy().outboxRetryDelay(attempt: 1, after: ChatError(.rateLimited, "", retryAfter: 1e19), jitter: 0) == 600)
  }

  @Test("a backend without realtime polls")
  func connectionMode() {
    // DOCC-CONNECTIONMODE-BEGIN
    var policy = ChatPolicy()
    policy.connectionMode = .polling  // the backend has no realtime channel
    policy.pollInterval = 1  // ask for new messages every second
    // DOCC-CONNECTIONMODE-END
    #expect(policy.connectionMode == .polling)
  }

  @Test("a ticket's priority is any string the server's form knows")
  func ticketPriority() {
    // DOCC-TICKETPRIORITY-BEGIN
    let draft = TicketDraft(subject: "Refund", category: "billing", priority: "P2", body: "Charged twice.")
    // DOCC-TICKETPRIORITY-END
    #expect(draft.priority.rawValue == "P2")
  }

  @Test("a JSON Patch decodes from its wire form")
  func jsonPatchDecodes() throws {
    // DOCC-JSONPATCH-DECODE-BEGIN
    let json = #"[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"}]"#
    let patch = try JSONDecoder().decode([JSONPatchOperation].self, from: Data(json.utf8))
    let same = patch[0] == .add(at: try JSONPointer(parsing: "/a"), value: 1)  // true
    // DOCC-JSONPATCH-DECODE-END
    #expect(same)
  }

  @Test("a move names where it comes from and where it goes")
  func jsonPatchMove() throws {
    // DOCC-JSONPATCH-MOVE-BEGIN
    let move = JSONPatchOperation(
      .move(from: try JSONPointer(parsing: "/draft")), path: try JSONPointer(parsing: "/sent/-"))
    // DOCC-JSONPATCH-MOVE-END
    let state: JSONValue = ["draft": "Hi", "sent": []]
    #expect(try state.applying([move]) == ["sent": ["Hi"]])
  }

  @Test("removing past the end of an array says which operation failed and why")
  func jsonPatchError() throws {
    // DOCC-JSONPATCH-ERROR-BEGIN
    let state: JSONValue = ["tags": ["a"]]
    do {
      _ = try state.applying([.remove(at: try JSONPointer(parsing: "/tags/1"))])
    } catch {
      print(error)  // .indexOutOfRange(operation: 0, path: /tags/1, count: 1)
    }
    // DOCC-JSONPATCH-ERROR-END
    let path = try JSONPointer(parsing: "/tags/1")
    #expect(throws: JSONPatchError.indexOutOfRange(operation: 0, path: path, count: 1)) {
      try state.applying([.remove(at: path)])
    }
  }

  @Test("a patch applies to a copy and returns it")
  func jsonPatchApplying() throws {
    // DOCC-JSONPATCH-APPLYING-BEGIN
    let state: JSONValue = ["count": 1, "tags": ["a"]]
    let next = try state.applying([
      .replace(at: try JSONPointer(parsing: "/count"), value: 2),
      .add(at: try JSONPointer(parsing: "/tags/-"), value: "b"),
    ])
    // next == ["count": 2, "tags": ["a", "b"]]
    // DOCC-JSONPATCH-APPLYING-END
    #expect(next == ["count": 2, "tags": ["a", "b"]])
  }

  @Test("a test operation compares numbers by value")
  func jsonPatchApply() throws {
    // DOCC-JSONPATCH-APPLY-BEGIN
    var state: JSONValue = ["count": 1]
    try state.apply([.test(at: try JSONPointer(parsing: "/count"), value: 1.0)])  // 1 equals 1.0
    // DOCC-JSONPATCH-APPLY-END
    #expect(state == ["count": 1])
  }

  @Test("a pointer parses its escapes and prints them back")
  func jsonPointer() throws {
    // DOCC-JSONPOINTER-BEGIN
    let pointer = try JSONPointer(parsing: "/agents/0/a~1b")
    let tokens = pointer.tokens  // ["agents", "0", "a/b"]
    let text = pointer.description  // "/agents/0/a~1b"
    // DOCC-JSONPOINTER-END
    #expect(tokens == ["agents", "0", "a/b"])
    #expect(text == "/agents/0/a~1b")
  }

  @Test("a pointer made of tokens escapes them")
  func jsonPointerTokens() {
    // DOCC-JSONPOINTER-TOKENS-BEGIN
    let text = JSONPointer(tokens: ["a/b", "~"]).description  // "/a~1b/~0"
    // DOCC-JSONPOINTER-TOKENS-END
    #expect(text == "/a~1b/~0")
  }

  @Test("escapes are undone in order, and a pointer needs its leading slash")
  func jsonPointerParsing() throws {
    // DOCC-JSONPOINTER-PARSING-BEGIN
    let tokens = try JSONPointer(parsing: "/~01").tokens  // ["~1"]: `~0` is undone last, so it cannot make a `~1`
    // nil: parsing throws .invalidPointer("foo", problem: .missingLeadingSlash)
    let relative = try? JSONPointer(parsing: "foo")
    // DOCC-JSONPOINTER-PARSING-END
    #expect(tokens == ["~1"])
    #expect(relative == nil)
    #expect(throws: JSONPatchError.invalidPointer("foo", problem: .missingLeadingSlash)) {
      try JSONPointer(parsing: "foo")
    }
  }

  @Test("a JSON value reads by key")
  func jsonValueSubscript() {
    // DOCC-JSONVALUE-SUBSCRIPT-BEGIN
    let arguments: JSONValue = ["id": 1042]
    let id = arguments["id"]  // .number(1042)
    // DOCC-JSONVALUE-SUBSCRIPT-END
    #expect(id == .number(1042))
  }

  @Test("a confirmed message takes its pending one's place")
  func messageList() {
    let message = Message(clientID: "c1", role: .user, text: "Hi", createdAt: .story(1), delivery: .pending)
    let confirmedByServer = Message.confirmed("Hi", clientID: "c1", serverID: "s1", at: 1)
    // DOCC-MESSAGELIST-BEGIN
    var list = MessageList()
    list.appendOutgoing(message)  // pending, after every committed message
    list.commit(confirmedByServer)  // same client ID: moves into server order, in place of the pending one
    let delivery = list[clientID: message.clientID]?.delivery  // .sent
    // DOCC-MESSAGELIST-END
    #expect(delivery == .sent)
    #expect(list.outgoing.isEmpty)
  }

  @Test("the changed rows of a snapshot are updated in place")
  func conversationRows() {
    let model = RowsModel()
    let message = Message.confirmed("Hi", clientID: "c1", serverID: "s1", at: 1)
    var state = ConversationState.existing([message])
    state.draft = "x"
    let snapshot = Snapshot(version: 1, state: state, changes: ChangeSet(updated: ["c1"]))
    // DOCC-CONVERSATIONROWS-BEGIN
    for id in snapshot.changes.updated {
      if let row = snapshot.state.rowIndex(of: id) { model.itemsChanged(position: row, removed: 1, added: 1) }
    }
    // DOCC-CONVERSATIONROWS-END
    #expect(model.changed == [0])
  }

  @Test("opening a conversation in a client's state makes a store for it")
  func clientState() {
    // DOCC-CLIENTSTATE-BEGIN
    var state = ClientState()
    let effects = ClientReducer().reduce(into: &state, action: .open("c42", adopting: nil, unheld: []))
    // state.conversations == ["c42": h0], effects == [.openConversation(h0, "c42")]
    // DOCC-CLIENTSTATE-END
    let handle = state.conversations["c42"]
    #expect(handle != nil)
    #expect(effects.contains { $0 == .openConversation(handle!, "c42") })
  }

  @Test("one field of a message is read in place; a missing message and a missing field both read nil")
  func messageListRead() {
    var state = ConversationState()
    state.messages.commit(
      Message(clientID: "c1", serverID: "s1", role: .assistant, text: "Hi", createdAt: .distantPast, reply: .completed))
    var id: ClientMessageID = "c1"
    // DOCC-MESSAGELISTREAD-BEGIN
    let reply = state.messages.read(clientID: id) { $0.reply } ?? nil  // `?? nil`: no message, or no reply
    // DOCC-MESSAGELISTREAD-END
    #expect(reply == .completed)
    id = "c2"
    #expect((state.messages.read(clientID: id) { $0.reply } ?? nil) == nil)
  }

  @Test("a hash trie's copy keeps its keys when the original changes")
  func hashTrie() {
    // DOCC-HASHTRIE-BEGIN
    var index = HashTrie<String, Int>()
    index["client-1"] = 0
    let snapshot = index  // shares every node
    index["client-2"] = 1  // copies one path; snapshot still has one key
    // DOCC-HASHTRIE-END
    #expect(snapshot.count == 1)
    #expect(index.count == 2)
  }

  @Test("an out-of-line value reads back what was set")
  func outOfLine() {
    var message = Agented()
    message.agent = AgentInfo(id: "a1", name: "Ada")
    #expect(message.agent?.name == "Ada")
    #expect(MemoryLayout<OutOfLine<AgentInfo>>.size == 8)
  }

  @Test("a persistent vector's copy keeps its elements when the original grows")
  func persistentVector() {
    // DOCC-PERSISTENTVECTOR-BEGIN
    var history = PersistentVector<Int>()
    history.append(1)
    let snapshot = history  // O(1), shares every node
    history.append(2)  // a new tail that refers to the old one; `snapshot` still reads [1]
    // DOCC-PERSISTENTVECTOR-END
    #expect(Array(snapshot) == [1])
    #expect(Array(history) == [1, 2])
  }

  @Test("a position index finds the position it was given")
  func positionIndex() {
    let messages = [Message.confirmed("Hi", clientID: "c1", serverID: "s1", at: 1)]
    // DOCC-POSITIONINDEX-BEGIN
    var index = PositionIndex<ClientMessageID>()
    if let displaced = index.set(0, for: "c1"), messages[displaced].clientID != "c1" {
      index.separate("c1", at: 0, from: displaced)  // another ID has c1's hash
    }
    let position = index.candidate(for: "c1")  // 0: the list checks messages[0].clientID == "c1"
    // DOCC-POSITIONINDEX-END
    #expect(position == 0)
  }

  @Test("a streamed text's copy keeps what it had when more is appended")
  func streamedText() {
    // DOCC-STREAMEDTEXT-BEGIN
    var reply = StreamedText()
    reply.append("Hel")
    let shown = reply  // what the UI rendered
    reply.append("lo")  // O(2); `shown.string` is still "Hel"
    // DOCC-STREAMEDTEXT-END
    #expect(shown.string == "Hel")
    #expect(reply.string == "Hello")
  }

  @Test("a toolkit appends only what streamed since the text it showed")
  func streamedTextAppended() {
    let buffer = ReplyBuffer()
    var shown: StreamedText?
    var state = ConversationState.existing()
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "r1", startedAt: .story(1))
    for delta in ["Hel", "lo"] {
      state.streamingReply?.text.append(delta)
      let snapshot = Snapshot(version: 1, state: state, changes: ChangeSet())
      // DOCC-STREAMEDTEXT-APPENDED-BEGIN
      if let reply = snapshot.state.streamingReply {
        if let shown, let tail = reply.text.appended(since: shown) {
          buffer.append(tail)
        } else {
          buffer.set(reply.text.string)
        }
        shown = reply.text
      }
      // DOCC-STREAMEDTEXT-APPENDED-END
    }
    #expect(buffer.text == "Hello")
  }

  @Test("a run's continuation carries every answer and tool result to the agent")
  func runContinuation() async throws {
    let run = RunContinuation(
      answer: "s2", message: .server("Pick one", id: "s2", at: 2), toolResults: [], inputAnswers: [])
    var events = NumberedAPI().continueRun(run, in: "c1").makeAsyncIterator()
    #expect(try await events.next() == nil)
  }

  @Test("a numbered event is yielded at its position")
  func streamPosition() async throws {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    NumberedAPI().positioned(NumberedEvent(sequenceNumber: 7, text: "Hi"), continuation)
    continuation.finish()
    var events = stream.makeAsyncIterator()
    #expect(try await events.next() == .positioned(.sequence(7), .delta("Hi")))
  }

  @Test("a list change and the rows a sidebar shows")
  func listChanges() throws {
    let list = ConversationListStore(backend: try ScriptedBackend(clock: TestClock()), environment: .deterministic())
    defer { list.close() }
    list.send(.realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Trip"))))
    let id: ConversationID = "c1"
    // DOCC-CONVERSATIONCHANGE-BEGIN
    list.send(.change(id, .title("Trip to Lisbon")))
    list.send(.change(id, .pinned(true, at: Date())))
    // DOCC-CONVERSATIONCHANGE-END
    let snapshot = (state: list.state, changes: ChangeSet<ConversationID>.reset)
    var sidebar: [(String, Bool)] = []
    // DOCC-LISTSHOWN-BEGIN
    for row in snapshot.state.shown { sidebar.add(row.title, pinned: row.isPinned) }
    // DOCC-LISTSHOWN-END
    #expect(sidebar.map(\.0) == ["Trip to Lisbon"] && sidebar.map(\.1) == [true])
  }

  @Test("the suggestions shown are chips that send themselves")
  func suggestionChips() throws {
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: try ScriptedBackend(clock: TestClock()),
      environment: .deterministic())
    defer { store.close() }
    store.send(.setStarterPrompts(["Where is my order?"]))
    let state = store.state
    var chips: [String] = []
    func chip(_ text: String, _ tap: () -> Void) {
      chips.append(text)
      tap()
    }
    // DOCC-SUGGESTIONS-BEGIN
    for (index, text) in state.shownSuggestions.enumerated() {
      chip(text) { store.sendSuggestion(index) }
    }
    // DOCC-SUGGESTIONS-END
    #expect(chips == ["Where is my order?"])
    #expect(store.state.messages.map(\.text) == ["Where is my order?"])
  }
}

extension [(String, Bool)] {
  /// A sidebar's row adder, for `ConversationListState.shown`'s example.
  fileprivate mutating func add(_ title: String, pinned: Bool) { append((title, pinned)) }
}
