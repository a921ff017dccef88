import CGtk
import CGtkShims
import ConversationStore

/// A `GtkStringList` (a `GListModel`) kept equal to a list of rows by positional updates only.
///
/// `apply` turns a change set of row IDs into `gtk_string_list_splice` calls: removed rows by their old
/// positions (last first, so earlier positions stay put), inserted rows at their new positions (first first),
/// updated rows replaced in place. Each splice emits one `items-changed(position, removed, added)`, so a list
/// view re-binds only those rows; a streamed reply is one `(p, 1, 1)` per callback. Only a reset reloads.
@MainActor
final class StringListRows<RowID: Hashable & Sendable> {
  /// Where the rows live: a `GtkStringList *`, owned by this object.
  let model: OpaquePointer
  /// How many rows the model holds.
  private(set) var count = 0

  init() { model = gtk_string_list_new(nil) }

  isolated deinit { g_object_unref(UnsafeMutableRawPointer(model)) }

  /// Brings the model from the rows it showed to the new ones.
  ///
  /// - Parameters:
  ///   - oldPosition: where a row was in the rows shown before (for removed rows).
  ///   - newPosition: where a row is now (for inserted and updated rows).
  ///   - newCount: how many rows there are now; a mismatch after the splices (a change set that does not
  ///     describe the two lists) falls back to a reload rather than showing wrong rows.
  ///   - text: the text of the row now at a position.
  func apply(
    _ changes: ChangeSet<RowID>, oldPosition: (RowID) -> Int?, newPosition: (RowID) -> Int?, newCount: Int,
    text: (Int) -> String
  ) {
    guard !changes.isReset else { return reload(count: newCount, text: text) }
    for position in changes.removed.compactMap(oldPosition).sorted(by: >) { splice(at: position, removing: 1) }
    for position in changes.inserted.compactMap(newPosition).sorted() {
      splice(at: position, removing: 0, adding: text(position))
    }
    guard count == newCount else { return reload(count: newCount, text: text) }
    for position in changes.updated.compactMap(newPosition).sorted() {
      splice(at: position, removing: 1, adding: text(position))
    }
  }

  /// Replaces every row: for a reset (the first state, another conversation).
  func reload(count newCount: Int, text: (Int) -> String) {
    let rows = (0..<newCount).map(text)
    splice(at: 0, removing: count, adding: rows)
  }

  /// The text of the row at `position`, as the list view shows it.
  func text(at position: Int) -> String? {
    guard let item = g_list_model_get_item(gtk_chat_list_model(UnsafeMutableRawPointer(model)), guint(position))
    else { return nil }
    defer { g_object_unref(item) }
    return gtk_string_object_get_string(OpaquePointer(item)).map { String(cString: $0) }
  }

  private func splice(at position: Int, removing removed: Int, adding rows: String...) {
    splice(at: position, removing: removed, adding: rows)
  }

  private func splice(at position: Int, removing removed: Int, adding rows: [String]) {
    // GTK copies the strings; these only have to outlive the call.
    let strings = rows.map { strdup($0) }
    defer { for string in strings { free(string) } }
    var additions = strings.map { UnsafePointer($0) } + [nil]
    gtk_string_list_splice(model, guint(position), guint(removed), &additions)
    count += rows.count - removed
  }
}
