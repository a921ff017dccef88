import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The short examples of the README and the articles that are not whole programs, compiled here between
// markers (`DocumentationCodeTests` checks each document's Swift blocks against them) and run by the tests
// below. `MyServer`, `messageListView`, `render` and `showCard` stand for the host's own.

typealias MyServer = ControlledBackend

@MainActor let messageListView = RecordingRowsView()

func render<ID>(_ rows: ConversationRows, _ changes: ChangeSet<ID>) {}

func showCard(_ text: String, approve: () -> Void, deny: () -> Void) { approve() }

@MainActor
func landingExample(backend: any ChatBackend) async {
  // DOC-LANDING-BEGIN
  let client = ChatClient(backend: backend, options: ChatClientOptions(workspace: "acme"))
  let chat = client.newConversation()
  chat.sendMessage("Where is my order?")
  for await snapshot in chat.snapshots() { render(snapshot.state.rows, snapshot.changes) }
  // DOC-LANDING-END
}

@MainActor
func storeLifecycleExample() -> ChatStore {
  // DOC-STORE-LIFECYCLE-BEGIN
  let store = ChatStore(backend: MyServer())  // a new conversation; ChatStore(.init(conversationID: id), …) resumes it
  let binding = bind(store, to: messageListView)
  store.send(.connect)
  store.send(.loadHistory(pageSize: 20))
  store.sendMessage("Where is my order?")  // optimistic: shown as sending at once
  // … when the screen goes away for good:
  store.close()  // cancels requests, the connection and timers; the loop above ends
  // DOC-STORE-LIFECYCLE-END
  _ = binding
  return store
}

@MainActor
func observationExample(_ store: ChatStore) -> ObservableConversation {
  // DOC-OBSERVATION-BEGIN
  let chat = ObservableConversation(store)  // on the main actor, as the UI it drives
  chat.send(.setDraft("Hi"))  // chat.draft == "Hi" as soon as send returns
  // observed per area: a streamed delta changes chat.streamingReply only, not chat.messages or chat.draft
  // DOC-OBSERVATION-END
  return chat
}

func listStoreExample() -> ConversationListStore {
  // DOC-LIST-STORE-BEGIN
  let conversations = ConversationListStore(backend: MyServer())
  conversations.send(.load(pageSize: 20))
  conversations.send(.loadMore(pageSize: 20))  // appended, deduplicated; nothing while a load is in flight
  conversations.send(.refresh)  // reconciles the loaded window, keeps what was paged in
  conversations.send(.realtime(.messageCreated("c-9", preview: "Shipped!", role: .assistant, at: Date())))
  // DOC-LIST-STORE-END
  return conversations
}

func toolsExample() -> ChatStore {
  // DOC-TOOLS-BEGIN
  let store = ChatStore(
    backend: MyServer(),
    tools: [
      "lookupOrder": { arguments in
        guard case .number(let id)? = arguments["id"] else { throw ChatError(.toolFailed, "no order id") }
        return ["order": .number(id), "status": "shipped"]
      }
    ])
  // DOC-TOOLS-END
  return store
}

func attachmentExample(_ store: ChatStore) {
  // DOC-ATTACHMENT-BEGIN
  let receipt = MessageAttachment(
    id: "a1", filename: "receipt.png", contentType: "image/png", byteSize: 48_213,
    source: .file(URL(fileURLWithPath: "/tmp/receipt.png")))
  store.sendMessage("Here is my receipt", attachments: [receipt])
  // DOC-ATTACHMENT-END
}

func diagnosticsExample() -> ChatClient {
  // DOC-DIAGNOSTICS-BEGIN
  let (events, sink) = ClientDiagnostic.makeStream(bufferingNewest: 256)
  let client = ChatClient(backend: MyServer(), options: ChatClientOptions(workspace: "acme", diagnostics: sink))
  Task {
    for await event in events {  // in order; ends when the client closes
      if case .connectionLost(let attempt, let retryDelay, let failure) = event.code {
        print("\(event.at) connection lost (\(attempt)): \(failure.kind), retry in \(retryDelay) ms")
      }
    }
  }
  // DOC-DIAGNOSTICS-END
  return client
}

func approvalCardExample(_ store: ChatStore) {
  // DOC-APPROVAL-CARD-BEGIN
  // An approval card under the latest answer.
  if case .awaitingInput(let requests) = store.state.latestAnswer?.reply {
    for request in requests where request.answer == nil {
      if case .toolApproval(let callID) = request.kind {
        showCard(
          request.message ?? "Allow \(callID)?",
          approve: { store.send(.answerInput(request.id, .approved)) },
          deny: { store.send(.answerInput(request.id, .denied(reason: nil))) })
      }
    }
  }
  // DOC-APPROVAL-CARD-END
}
