import ConversationState
import ConversationStore
import Foundation
import Persistence

/// The list the user manages (#54): what one rename, pin, deletion or undo costs on a list of 100 and of 10,000
/// conversations, and what the first page of the device's stored list costs at those sizes.
enum ListEditWorkloads {
  /// `list.rename.c<count>`: one operation is `.change(id, .title(...))` on a row picked with the stride of
  /// `ListWorkloads.move` (a new title each time, so it is always a change), then its `.editSaved` answer,
  /// so edits do not pile up; each action is followed by the list subscriber's wake on the sender's thread,
  /// as `frame.list.*` times it (the answer comes a round trip later: a UI draws it on its own).
  static func rename(conversations count: Int, renames: Int) -> Workload {
    let ids = (0..<renames).map { row($0, in: count) }
    let operations = ids.enumerated().map { op, id in [ConversationListAction.change(id, .title("Renamed \(op)"))] }
    return edits("rename", conversations: count, operations: operations, framesPerOperation: 1)
  }

  /// `list.pin.c<count>`: the same with `.change(id, .pinned(...))`, each picked row pinned when it is not and
  /// unpinned when it is (a pin that changes nothing is not sent, so it would time nothing).
  static func pin(conversations count: Int, pins: Int) -> Workload {
    var pinned = Set<ConversationID>()
    let operations = (0..<pins).map { op -> [ConversationListAction] in
      let id = row(op, in: count)
      let pins = pinned.insert(id).inserted
      if !pins { pinned.remove(id) }
      return [.change(id, .pinned(pins, at: Conversations.start.addingTimeInterval(Double(op))))]
    }
    return edits("pin", conversations: count, operations: operations, framesPerOperation: 1)
  }

  /// `list.delete.c<count>`: `.delete(id)` with no undo window (`ChatPolicy(deleteUndoWindow: 0)`: the
  /// deletion is sent at once), its `.editSaved` answer (the row is gone for good), then a new conversation
  /// created (`.realtime(.conversationCreated)`, newest, so at the top) to keep `count` rows: a fair list
  /// size for every deletion. Three actions, three wakes. `ConversationListState.deleted` grows by one a
  /// deletion whatever the list's size, so later deletions of a run copy a larger set (the subscriber holds
  /// the one before): a cost of how many were deleted, the same at both sizes, that a run of 2,000 deletions
  /// shows more than a quick one of 200. Deleting and undoing in turn would keep the size too, but would
  /// time the undo (`list.undo.c<count>` times it).
  static func delete(conversations count: Int, deletions: Int) -> Workload {
    var listed = (0..<count).map { ConversationID("conv\($0)") }
    let operations = (0..<deletions).map { op -> [ConversationListAction] in
      let slot = (op &* 7_919) % count
      let victim = listed[slot]
      let created = ConversationSummary(
        id: ConversationID("new\(op)"), title: "New \(op)",
        lastActivityAt: Conversations.start.addingTimeInterval(Double(op + 1)))
      listed[slot] = created.id
      return [.delete(victim), .realtime(.conversationCreated(created))]
    }
    return edits(
      "delete", conversations: count, operations: operations, framesPerOperation: 2,
      policy: ChatPolicy(deleteUndoWindow: 0))
  }

  /// `list.undo.c<count>`: `.delete(id)` in its undo window (the default 5 s), then `.undoDelete(id)`,
  /// each followed by the wake: what a user's "Undo" costs. The row goes back through
  /// `ConversationList.place`, into the slot its deletion emptied (O(log n)).
  static func undo(conversations count: Int, undos: Int) -> Workload {
    let operations = (0..<undos).map { op -> [ConversationListAction] in
      let id = row(op, in: count)
      return [.delete(id), .undoDelete(id)]
    }
    return edits("undo", conversations: count, operations: operations, framesPerOperation: 2, answered: false)
  }

  /// The row the `op`th operation touches: a stride over the list, so most are deep in it.
  private static func row(_ op: Int, in count: Int) -> ConversationID {
    ConversationID("conv\((op &* 7_919) % count)")
  }

  /// `list.<kind>.c<count>`: each operation's actions through a `ConversationListStore` (the reducer with no
  /// runtime, as `frame.list.*` has it), every one followed by the wake; the first action's request (one
  /// minted per operation) answered with `.editSaved` right after it unless `answered` is false.
  private static func edits(
    _ kind: String, conversations count: Int, operations: [[ConversationListAction]], framesPerOperation: Int,
    policy: ChatPolicy = ChatPolicy(), answered: Bool = true
  ) -> Workload {
    let base = ListWorkloads.list(count)
    // The request each operation's first action mints: the reducer numbers them in order.
    let answers = operations.indices.map { op in
      ConversationListAction.editSaved(
        RequestID(epoch: base.epoch, sequence: base.requestSequence + UInt64(op + 1)))
    }
    return Workload(name: "list.\(kind).c\(DeltaWorkloads.label(count))") {
      let store = ConversationListStore(initialState: base, reducer: ConversationListReducer(policy: policy))
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        for (op, actions) in operations.enumerated() {
          store.send(actions[0])
          subscriber.wake(store)
          if answered {
            store.send(answers[op])
            subscriber.wake(store)
          }
          for action in actions.dropFirst() {
            store.send(action)
            subscriber.wake(store)
          }
        }
      }
      let state = store.state
      precondition(state.error == nil, "list.\(kind): an action was refused: \(String(describing: state.error))")
      precondition(state.edits.isEmpty && state.deleting.isEmpty, "list.\(kind): edits or deletions piled up")
      precondition(state.conversations.count == count, "list.\(kind): \(state.conversations.count) rows of \(count)")
      let frames = subscriber.frames
      precondition(
        frames == operations.count * framesPerOperation,
        "list.\(kind): every row change is a frame (\(frames) of \(operations.count * framesPerOperation))")
      return WorkloadResult(ops: operations.count, nanoseconds: nanoseconds, snapshots: frames)
    }
  }

  /// `list.stored.first.c<count>`: `scope.storedConversations(after: nil, limit: 30)`, the first page of the
  /// list a backend with no list of its own shows (`ChatClient`'s local list), on a scope whose index holds
  /// `count` rows, 3 of them pinned (written once, outside the timer, under the temporary directory). The
  /// archive's connection is kept open (as a conversation file open in the scope keeps it), so the timer
  /// holds the query, not opening the database.
  static func storedFirst(conversations count: Int, pages: Int) -> Workload {
    let scope = StorageWorkloads.scope("list\(count)")
    let rows = ListWorkloads.list(count).conversations.enumerated().map { index, row in
      var row = row
      if index % (count / 3) == count / 6 { row.pinnedAt = Conversations.start.addingTimeInterval(Double(index)) }
      row.lastMessagePreview = "The last message of conversation \(index)"
      return row
    }
    do {
      try scope.saveListRows(rows, removing: [])
    } catch {
      fatalError("cannot store the benchmark list: \(error)")
    }
    let keepsArchiveOpen = StorageWorkloads.file(scope, "bench")
    return Workload(name: "list.stored.first.c\(DeltaWorkloads.label(count))") {
      var page: ConversationPage?
      let nanoseconds = Harness.time {
        for _ in 0..<pages { page = try? scope.storedConversations(after: nil, limit: 30) }
      }
      withExtendedLifetime(keepsArchiveOpen) {}
      precondition(page?.conversations.count == 30 && page?.totalCount == count, "read \(String(describing: page))")
      precondition(page?.conversations.prefix(3).allSatisfy(\.isPinned) == true, "the pinned rows come first")
      return (pages, nanoseconds)
    }
  }
}
