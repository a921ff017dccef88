import CGtk
import CGtkShims
import ConversationStore

/// The message list's rows: a `GtkSignalListItemFactory` whose "bind" fills a `MessageRow` from the state the
/// window renders.
///
/// The list model holds one string per row, `RowString`: the row's message ID and its text. "bind" finds the
/// message by that ID, not by the row's position: GTK may bind a row in the middle of a batch of splices,
/// when positions do not match the state yet, and keeps that binding until the row's item changes. Every
/// change of a message replaces its item (`StringListRows.apply`), so every change rebinds its row.
@MainActor
final class MessageRowFactory {
  /// The `GtkListItemFactory *`.
  let factory: OpaquePointer
  /// The state rows are filled from; the window sets it before it changes the list model.
  var state: ConversationState?
  /// Every row made, by its `GtkListItem`.
  private(set) var rows: [UInt: MessageRow] = [:]
  /// What the rows' buttons do; set by the window once it exists, before any row is made.
  var actions = RowActions(answer: { _, _ in }, showSibling: { _, _ in })

  init() {
    factory = gtk_signal_list_item_factory_new()
    // The factory lives as long as the window (for the program's life); GTK holds it unretained.
    let me = Unmanaged.passUnretained(self).toOpaque()
    let factoryPointer = UnsafeMutableRawPointer(factory)
    _ = gtk_chat_connect_argument(
      factoryPointer, "setup",
      { _, item, data in
        MainActor.assumeIsolated { owner(data, as: MessageRowFactory.self).setUp(OpaquePointer(item!)) }
      }, me)
    _ = gtk_chat_connect_argument(
      factoryPointer, "bind",
      { _, item, data in
        MainActor.assumeIsolated { owner(data, as: MessageRowFactory.self).bind(OpaquePointer(item!)) }
      }, me)
    _ = gtk_chat_connect_argument(
      factoryPointer, "unbind",
      { _, item, data in
        MainActor.assumeIsolated { owner(data, as: MessageRowFactory.self).row(of: OpaquePointer(item!))?.unbind() }
      }, me)
    _ = gtk_chat_connect_argument(
      factoryPointer, "teardown",
      { _, item, data in
        MainActor.assumeIsolated { owner(data, as: MessageRowFactory.self).tearDown(OpaquePointer(item!)) }
      }, me)
  }

  /// The rows that show a message now.
  var boundRows: [MessageRow] { rows.values.filter { $0.messageID != nil } }

  /// The row showing `message`, when the list view has one for it.
  func row(showing message: ClientMessageID) -> MessageRow? {
    rows.values.first { $0.messageID == message && gtk_widget_get_mapped($0.box) != 0 }
  }

  private func setUp(_ item: OpaquePointer) {
    let row = MessageRow(actions: actions)
    gtk_list_item_set_child(item, row.box)
    gtk_list_item_set_activatable(item, 0)
    rows[UInt(bitPattern: Int(bitPattern: item))] = row
  }

  private func bind(_ item: OpaquePointer) {
    guard let row = row(of: item), let state, let object = gtk_list_item_get_item(item),
      let string = gtk_string_object_get_string(OpaquePointer(object)),
      let (id, text) = RowString.decode(String(cString: string)),
      let position = state.rowIndex(of: id)
    else { return }
    row.fill(state.rows[position], shownText: text, in: state)
  }

  private func tearDown(_ item: OpaquePointer) {
    rows[UInt(bitPattern: Int(bitPattern: item))] = nil
  }

  private func row(of item: OpaquePointer) -> MessageRow? { rows[UInt(bitPattern: Int(bitPattern: item))] }
}

/// A message row as the list model holds it: the message's ID, a unit separator, then the row's text.
enum RowString {
  private static let separator: Character = "\u{1F}"

  static func encode(_ id: ClientMessageID, _ text: String) -> String { id.rawValue + String(separator) + text }

  static func decode(_ string: String) -> (ClientMessageID, String)? {
    guard let split = string.firstIndex(of: separator) else { return nil }
    return (ClientMessageID(String(string[..<split])), String(string[string.index(after: split)...]))
  }
}

/// A list view of the message rows in a scrolled window.
@MainActor
func makeMessageListView(_ model: OpaquePointer, factory: MessageRowFactory) -> (
  scroller: UnsafeMutablePointer<GtkWidget>, list: UnsafeMutablePointer<GtkWidget>
) {
  // The selection model takes the list model's reference it is given; keep the caller's own.
  g_object_ref(UnsafeMutableRawPointer(model))
  let selection = gtk_no_selection_new(gtk_chat_list_model(UnsafeMutableRawPointer(model)))
  let list = gtk_list_view_new(selection, factory.factory)!
  let scroller = gtk_scrolled_window_new()!
  gtk_scrolled_window_set_policy(OpaquePointer(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
  gtk_scrolled_window_set_child(OpaquePointer(scroller), list)
  gtk_widget_set_vexpand(scroller, 1)
  return (scroller, list)
}
