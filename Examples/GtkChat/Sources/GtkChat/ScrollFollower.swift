import CGtk

/// Keeps the newest row of a `GtkListView` in view for a few frames after the list changed.
///
/// The list view's own "list.scroll-to-item" action, not its adjustment: GTK 4.8's list view places rows
/// from an anchor row and measures rows as it binds them, so its height grows over the frames after a change
/// (a row that wraps, gains a part, an expander opened), and an adjustment set to its end ends up short of
/// the real end. Scrolling to the last item each frame while the list settles lands on it.
@MainActor
final class ScrollFollower {
  /// Frames to follow after a change: enough for a new row to be bound, measured and laid out.
  static let frames = 12

  private let list: UnsafeMutablePointer<GtkWidget>
  private let count: @MainActor () -> Int
  private var framesLeft = 0

  /// Follows `list`, which shows `count()` rows.
  init(_ list: UnsafeMutablePointer<GtkWidget>, count: @escaping @MainActor () -> Int) {
    self.list = list
    self.count = count
    _ = gtk_widget_add_tick_callback(
      list,
      { _, _, data in
        // Tick callbacks run on the main thread, in the frame clock's update phase; the follower lives as
        // long as the window.
        MainActor.assumeIsolated { owner(data, as: ScrollFollower.self).tick() }
        return 1  // G_SOURCE_CONTINUE
      }, Unmanaged.passUnretained(self).toOpaque(), nil)
  }

  /// The list changed (or a row's height did): follow its end for the next frames.
  func follow() {
    framesLeft = Self.frames
    scrollToEnd()
  }

  private func tick() {
    guard framesLeft > 0 else { return }
    framesLeft -= 1
    scrollToEnd()
  }

  private func scrollToEnd() {
    let rows = count()
    guard rows > 0 else { return }
    _ = gtk_widget_activate_action_variant(list, "list.scroll-to-item", g_variant_new_uint32(guint32(rows - 1)))
  }
}
