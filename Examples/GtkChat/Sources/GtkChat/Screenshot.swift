import CGtk
import CGtkShims

/// Renders the content of `window` as it is on screen into a PNG at `path`, with the window's own renderer:
/// a snapshot of its child's paintable over the window's background colour, rendered to a texture and saved.
/// Returns false when GTK could not.
///
/// The child, not the window: a `GtkWidgetPaintable` of a toplevel draws nothing (a native widget is drawn
/// by its surface, not by a parent's snapshot).
@MainActor
func saveScreenshot(of window: UnsafeMutablePointer<GtkWidget>, paintable: OpaquePointer, to path: String) -> Bool {
  guard let content = gtk_window_get_child(gtkCast(window)), let native = gtk_widget_get_native(window),
    let renderer = gtk_native_get_renderer(native)
  else { return false }
  let width = gtk_widget_get_width(content)
  let height = gtk_widget_get_height(content)
  guard width > 0, height > 0 else { return false }
  var bounds = graphene_rect_t()
  graphene_rect_init(&bounds, 0, 0, Float(width), Float(height))
  // Adwaita's window background; the content itself is transparent.
  var background = GdkRGBA(red: 0.98, green: 0.98, blue: 0.98, alpha: 1)
  let snapshot = gtk_snapshot_new()
  gtk_snapshot_append_color(snapshot, &background, &bounds)
  gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
  guard let node = gtk_snapshot_free_to_node(snapshot) else { return false }
  defer { gsk_render_node_unref(node) }
  guard let texture = gsk_renderer_render_texture(renderer, node, &bounds) else { return false }
  defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
  return gdk_texture_save_to_png(texture, path) != 0
}
