import CGtk
import CGtkShims

/// What the self-test measures of the window: how long each binding callback held the main loop, how often
/// the window drew a frame, and every `items-changed` the message list model emitted.
@MainActor
final class RenderMeter {
  /// One `items-changed(position, removed, added)` emission, with the model's size before it.
  struct ItemsChanged: Equatable, Sendable {
    var position: Int
    var removed: Int
    var added: Int
    var countBefore: Int
    /// Everything removed at once from a non-empty list: a full reload. Replacing the only row of a one-row
    /// list is not one: it is the in-place update `(0, 1, 1)`, which the view handles as any other (the user's
    /// first message confirmed before the reply's row arrives; the self-test failed on it about once in 15).
    var isFullReload: Bool { removed > 0 && removed == countBefore && !(removed == 1 && added == 1) }
  }

  /// Emissions since the last `reset()`.
  private(set) var itemsChanged: [ItemsChanged] = []
  /// Frames drawn since the last `reset()`.
  private(set) var frames = 0
  /// Binding callbacks run since the last `reset()`.
  private(set) var callbacks = 0
  /// The longest binding callback since the last `reset()`.
  private(set) var longestCallback = Duration.zero
  /// The longest time between two frames since the last `reset()`.
  private(set) var longestFrameGap = Duration.zero
  /// When the last `reset()` happened.
  private(set) var since = ContinuousClock.now
  private var lastFrame: ContinuousClock.Instant?

  /// Starts counting afresh.
  func reset() {
    (itemsChanged, frames, callbacks, longestCallback, longestFrameGap) = ([], 0, 0, .zero, .zero)
    since = .now
    lastFrame = nil
  }

  /// Runs a binding callback, timing it on the monotonic clock.
  func timeCallback(_ callback: @MainActor () -> Void) {
    let start = ContinuousClock.now
    callback()
    longestCallback = max(longestCallback, start.duration(to: .now))
    callbacks += 1
  }

  /// Records every `items-changed` of `model` (a `GListModel`).
  func observe(_ model: OpaquePointer) {
    let listModel = gtk_chat_list_model(UnsafeMutableRawPointer(model))
    _ = gtk_chat_connect_items_changed(
      listModel,
      { model, position, removed, added, data in
        let count = Int(g_list_model_get_n_items(model))
        let change = ItemsChanged(
          position: Int(position), removed: Int(removed), added: Int(added),
          countBefore: count - Int(added) + Int(removed))
        // GTK emits signals on the main thread; the meter lives as long as the window.
        MainActor.assumeIsolated { owner(data, as: RenderMeter.self).itemsChanged.append(change) }
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Counts the frames `widget`'s frame clock draws. A tick callback keeps the clock running, so the count
  /// is how many frames the main loop found time for (the clock aims at the display's rate, 60 under Xvfb).
  func countFrames(of widget: UnsafeMutablePointer<GtkWidget>) {
    _ = gtk_widget_add_tick_callback(
      widget,
      { _, _, data in
        MainActor.assumeIsolated { owner(data, as: RenderMeter.self).frameDrawn() }
        return 1  // G_SOURCE_CONTINUE
      }, Unmanaged.passUnretained(self).toOpaque(), nil)
  }

  private func frameDrawn() {
    let now = ContinuousClock.now
    if let lastFrame { longestFrameGap = max(longestFrameGap, lastFrame.duration(to: now)) }
    lastFrame = now
    frames += 1
  }
}

extension Duration {
  /// The duration in milliseconds.
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }
}
