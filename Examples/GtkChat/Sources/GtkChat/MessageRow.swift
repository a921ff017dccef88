import CGtk
import ConversationStore

/// The widgets of one row of the message list, made once by the factory's "setup" and filled by every
/// "bind" with whichever message the list view puts in the row (rows are recycled as the list scrolls).
///
/// From top to bottom: the row's text (who, how it is doing, what it says), the reasoning collapsed in an
/// expander, one line per tool call with its outcome, the approval the answer waits for with Approve and
/// Deny, the cited sources as links, and the sibling picker ‹ i/n ›. Whatever a message lacks is hidden.
@MainActor
final class MessageRow {
  let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
  let text = makeLabel()
  let reasoning = gtk_expander_new("")!
  let reasoningText = makeLabel(cssClass: "dim-label")
  let tools = makeLabel(cssClass: "dim-label")
  let approval = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
  let approvalQuestion = makeLabel()
  let approveButton = gtk_button_new_with_label("Approve")!
  let denyButton = gtk_button_new_with_label("Deny")!
  let sources = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4)!
  let siblings = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2)!
  let previousButton = gtk_button_new_with_label("‹")!
  let siblingPlace = makeLabel()
  let nextButton = gtk_button_new_with_label("›")!

  /// The message the row shows now; nil while the row is unbound.
  private(set) var messageID: ClientMessageID?
  /// The approval the buttons answer.
  private(set) var requestID: InputRequestID?
  /// The sources the links show, so unchanged links are not made again on every streamed update.
  private var shownSources: [KnowledgeSource] = []
  /// What the buttons do: the window's actions, given the row's message or request.
  private let actions: RowActions

  init(actions: RowActions) {
    self.actions = actions
    gtk_label_set_wrap_mode(OpaquePointer(text), PANGO_WRAP_WORD_CHAR)
    gtk_expander_set_child(OpaquePointer(reasoning), reasoningText)
    gtk_label_set_wrap_mode(OpaquePointer(reasoningText), PANGO_WRAP_WORD_CHAR)
    gtk_widget_set_hexpand(approvalQuestion, 1)
    gtk_widget_add_css_class(approveButton, "suggested-action")
    gtk_widget_add_css_class(denyButton, "destructive-action")
    for child in [approvalQuestion, approveButton, denyButton] { gtk_box_append(gtkCast(approval), child) }
    for child in [previousButton, siblingPlace, nextButton] { gtk_box_append(gtkCast(siblings), child) }
    gtk_widget_set_halign(siblings, GTK_ALIGN_START)
    for arrow in [previousButton, nextButton] { gtk_widget_add_css_class(arrow, "flat") }
    for child in [text, reasoning, tools, approval, sources, siblings] { gtk_box_append(gtkCast(box), child) }
    for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { side(box, 4) }
    for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end] { side(box, 8) }
    connectButtons()
  }

  private func connectButtons() {
    connect(UnsafeMutableRawPointer(approveButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: MessageRow.self).answer(.approved) }
    }
    connect(UnsafeMutableRawPointer(denyButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: MessageRow.self).answer(.denied(reason: "Denied in the GTK window")) }
    }
    connect(UnsafeMutableRawPointer(previousButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: MessageRow.self).showSibling(.previous) }
    }
    connect(UnsafeMutableRawPointer(nextButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: MessageRow.self).showSibling(.next) }
    }
  }

  private func answer(_ answer: InputAnswer) {
    if let requestID { actions.answer(requestID, answer) }
  }

  private func showSibling(_ choice: SiblingChoice) {
    if let messageID { actions.showSibling(messageID, choice) }
  }

  /// Shows `row` of `state`, whose text the list model holds as `shownText`.
  func fill(_ row: ConversationRow, shownText: String, in state: ConversationState) {
    if messageID != row.id { gtk_expander_set_expanded(OpaquePointer(reasoning), 0) }
    messageID = row.id
    gtk_label_set_text(OpaquePointer(text), shownText)
    let content = RowContent(row, in: state)
    show(reasoning, content.reasoning != nil)
    if let thoughts = content.reasoning {
      gtk_expander_set_label(OpaquePointer(reasoning), thoughts.label)
      gtk_label_set_text(OpaquePointer(reasoningText), thoughts.text)
    }
    show(tools, !content.tools.isEmpty)
    if !content.tools.isEmpty { gtk_label_set_text(OpaquePointer(tools), content.tools.joined(separator: "\n")) }
    requestID = content.approval?.id
    show(approval, content.approval != nil)
    if let request = content.approval {
      gtk_label_set_text(OpaquePointer(approvalQuestion), request.message ?? "Approve this call?")
    }
    fillSources(content.sources)
    show(siblings, content.place != nil)
    if let place = content.place {
      gtk_label_set_text(OpaquePointer(siblingPlace), "\(place.index + 1)/\(place.count)")
    }
    enableSiblingButtons(state.canChangeBranch)
  }

  /// The arrows work only while the path on screen may change (no reply streaming, nothing unsent).
  func enableSiblingButtons(_ enabled: Bool) {
    gtk_widget_set_sensitive(previousButton, enabled ? 1 : 0)
    gtk_widget_set_sensitive(nextButton, enabled ? 1 : 0)
  }

  /// The row no longer shows a message (scrolled away, or its message left the list).
  func unbind() {
    messageID = nil
    requestID = nil
  }

  private func fillSources(_ list: [KnowledgeSource]) {
    show(sources, !list.isEmpty)
    guard list != shownSources else { return }
    shownSources = list
    while let child = gtk_widget_get_first_child(sources) { gtk_box_remove(gtkCast(sources), child) }
    for source in list {
      // A source the user cannot open (no public URL) is its title alone.
      let link =
        source.url.map { gtk_link_button_new_with_label($0.absoluteString, source.title)! }
        ?? gtk_label_new(source.title)!
      gtk_box_append(gtkCast(sources), link)
    }
  }

  private func show(_ widget: UnsafeMutablePointer<GtkWidget>, _ visible: Bool) {
    if (gtk_widget_get_visible(widget) != 0) != visible { gtk_widget_set_visible(widget, visible ? 1 : 0) }
  }
}

/// What a row's buttons ask of the window.
struct RowActions {
  var answer: @MainActor (InputRequestID, InputAnswer) -> Void
  var showSibling: @MainActor (ClientMessageID, SiblingChoice) -> Void
}
