import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The README's "Bind a UI" example, compiled and run as a test; `readmeShowsThisExample` keeps the README's
// copy identical to the lines between the markers.
// README-BINDING-BEGIN
/// What a list widget needs from a binding; a GTK, Qt or terminal view implements these three.
@MainActor
protocol ChatRowsView: AnyObject {
  func reloadAll(_ rows: ConversationRows)
  func rowsChanged(at position: Int, rows: ConversationRows)
  func show(connection: ConnectionState, error: ChatError?)
}

/// Renders every snapshot of `store` into `view` until the store closes or the task is cancelled.
@MainActor
func bind(_ store: ChatStore, to view: some ChatRowsView) -> Task<Void, Never> {
  Task { @MainActor in
    // One snapshot per wake-up at most: a slow frame skips to the latest state, never a backlog.
    for await snapshot in store.snapshots() {
      let state = snapshot.state
      let changes = snapshot.changes
      if changes.isReset || !changes.inserted.isEmpty || !changes.removed.isEmpty {
        view.reloadAll(state.rows)
      } else {
        // A streamed delta is an update of one row, the reply, which is always the last one.
        for id in changes.updated {
          if let position = state.rowIndex(of: id) { view.rowsChanged(at: position, rows: state.rows) }
        }
      }
      view.show(connection: state.connection, error: state.userError ?? state.backgroundError)
    }
  }
}
// README-BINDING-END

/// A list widget that records what the binding asked of it.
@MainActor
final class RecordingRowsView: ChatRowsView {
  var reloads: [[ClientMessageID]] = []
  var rowUpdates: [Int] = []
  var connection: ConnectionState?
  var replyText = ""

  func reloadAll(_ rows: ConversationRows) { reloads.append(rows.map(\.id)) }
  func rowsChanged(at position: Int, rows: ConversationRows) {
    rowUpdates.append(position)
    if case .reply(let reply) = rows[position] { replyText = reply.text.string }
  }
  func show(connection: ConnectionState, error: ChatError?) { self.connection = connection }
}

@Suite("README binding")
@MainActor
struct ReadmeBindingTests {
  @Test("the README's binding reloads on new rows and updates the reply row in place while it streams")
  func bindingRendersAStreamedReply() async {
    let backend = ControlledBackend()
    let store = ChatStore(ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic())
    let view = RecordingRowsView()
    let binding = bind(store, to: view)
    var calls = backend.calls.makeAsyncIterator()

    let clientID = store.sendMessage("Where is my order?")
    guard case .send(_, let reply) = await calls.next() else { return }
    reply.yield(
      .accepted(.confirmed("Where is my order?", clientID: clientID, serverID: "s1", at: 1), conversationID: "c1"))
    reply.yield(.started(agent: nil))
    _ = await store.state { $0.streamingReply != nil }
    while view.reloads.last?.count != 2 { await Task.yield() }
    let updatesBefore = view.rowUpdates.count
    reply.yield(.delta("It ships "))
    reply.yield(.delta("today."))
    while view.replyText != "It ships today." { await Task.yield() }
    #expect(view.rowUpdates.count > updatesBefore)
    #expect(view.rowUpdates.allSatisfy { $0 == 1 }, "only the reply row, the last one, was updated")
    #expect(view.reloads.last?.first == clientID)

    store.close()
    await binding.value
  }

  @Test("the README shows this file's binding verbatim")
  func readmeShowsThisExample() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-BINDING", in: #filePath).isShown(in: "README.md"),
      "README.md's binding example drifted from ReadmeBindingTests.swift; copy it over")
  }

  @Test("the binding article shows the GTK example's main-loop binding verbatim (the example itself runs in .ci/run)")
  func readmeShowsTheMainLoopRecipe() throws {
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Examples/GtkChat/Sources/GtkChat/MainLoopBinding.swift")
    #expect(
      try ReadmeExcerpt(marker: "README-MAINLOOP", in: example.path).isShown(
        in: "../../Sources/ConversationStore/ConversationStore.docc/BindingAUIToolkit.md"),
      "The binding article's main-loop recipe drifted from Examples/GtkChat; copy it over")
  }
}
