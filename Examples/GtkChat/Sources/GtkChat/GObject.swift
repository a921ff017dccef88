import CGtk
import CGtkShims

/// A GTK widget pointer as another type of its class hierarchy: what `GTK_BOX (widget)` does in C, without
/// the runtime check. GTK types with a public struct import as typed pointers, final ones as `OpaquePointer`.
func gtkCast<Target>(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<Target> {
  UnsafeMutablePointer(OpaquePointer(widget))
}

/// Connects a handler taking only the emitting instance and `owner`, for signals such as "clicked",
/// "activate", "destroy" and "changed". The handler runs on the main thread, where GTK emits signals.
@MainActor
func connect<Owner: AnyObject>(
  _ instance: UnsafeMutableRawPointer, _ signal: String, to owner: Owner,
  _ handler: @convention(c) (gpointer?, gpointer?) -> Void
) {
  // `owner` lives as long as the window (for the program's life); GTK holds it unretained.
  _ = gtk_chat_connect_simple(instance, signal, handler, Unmanaged.passUnretained(owner).toOpaque())
}

/// The object whose unretained pointer a handler received as user data (see `connect`).
func owner<Owner: AnyObject>(_ data: gpointer?, as type: Owner.Type) -> Owner {
  Unmanaged<Owner>.fromOpaque(data!).takeUnretainedValue()
}

/// A label, left-aligned and wrapping.
@MainActor
func makeLabel(_ text: String = "", cssClass: String? = nil) -> UnsafeMutablePointer<GtkWidget> {
  let label = gtk_label_new(text)!
  gtk_label_set_xalign(OpaquePointer(label), 0)
  gtk_label_set_wrap(OpaquePointer(label), 1)
  if let cssClass { gtk_widget_add_css_class(label, cssClass) }
  return label
}

/// A list view over `model` (a `GListModel` of `GtkStringObject`s) showing each string in a wrapping label,
/// in a scrolled window. The rows are bound by a `GtkBuilderListItemFactory`'s expression, so binding a row
/// costs no call into Swift.
@MainActor
func makeStringListView(_ model: OpaquePointer, selectable: Bool) -> (
  scroller: UnsafeMutablePointer<GtkWidget>, list: UnsafeMutablePointer<GtkWidget>
) {
  let template = """
    <?xml version="1.0" encoding="UTF-8"?>
    <interface>
      <template class="GtkListItem">
        <property name="child">
          <object class="GtkLabel">
            <property name="xalign">0</property>
            <property name="wrap">True</property>
            <property name="wrap-mode">word-char</property>
            <property name="selectable">False</property>
            <property name="margin-top">4</property>
            <property name="margin-bottom">4</property>
            <property name="margin-start">8</property>
            <property name="margin-end">8</property>
            <binding name="label">
              <lookup name="string" type="GtkStringObject">
                <lookup name="item">GtkListItem</lookup>
              </lookup>
            </binding>
          </object>
        </property>
      </template>
    </interface>
    """
  let bytes = template.withCString { g_bytes_new($0, gsize(strlen($0))) }
  let factory = gtk_builder_list_item_factory_new_from_bytes(nil, bytes)
  g_bytes_unref(bytes)
  // The selection model takes the list model's reference it is given; keep the caller's own.
  g_object_ref(UnsafeMutableRawPointer(model))
  let listModel = gtk_chat_list_model(UnsafeMutableRawPointer(model))
  let selection = selectable ? gtk_single_selection_new(listModel) : gtk_no_selection_new(listModel)
  let list = gtk_list_view_new(selection, factory)!
  let scroller = gtk_scrolled_window_new()!
  gtk_scrolled_window_set_policy(OpaquePointer(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
  gtk_scrolled_window_set_child(OpaquePointer(scroller), list)
  gtk_widget_set_vexpand(scroller, 1)
  return (scroller, list)
}
