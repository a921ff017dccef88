import CGtk
import CGtkShims
import ConversationStore

/// What the self-test asks of the window, on the main thread.
extension ChatWindow {
  /// Checks that the message list shows the store's messages, row for row; returns the row count.
  func checkRowsMatchStore() throws -> Int {
    let state = chat.state
    guard messageRows.count == state.rows.count, state.streamingReply == nil else {
      throw SelfTest.Failure(
        description: "the message list has \(messageRows.count) rows, the store \(state.rows.count) messages")
    }
    for position in 0..<state.rows.count {
      let row = state.rows[position]
      guard let shown = messageRows.text(at: position).flatMap(RowString.decode), shown.0 == row.id,
        shown.1 == Self.text(of: row)
      else {
        throw SelfTest.Failure(
          description: "row \(position) shows \"\(messageRows.text(at: position) ?? "nothing")\", "
            + "the store has \"\(Self.text(of: row))\"")
      }
    }
    return messageRows.count
  }

  /// Checks that the last answer's row was inserted once and then only replaced in place: every
  /// `items-changed` after its insertion removes as many rows as it adds (nothing moves), the ones at its
  /// position are `(p, 1, 1)`, and none reloads the list. Returns the number of in-place updates of the row.
  func checkReplyUpdatedInPlace() throws -> Int {
    guard let answer = Self.lastAnswer(in: chat.state), let position = chat.state.rowIndex(of: answer.clientID) else {
      throw SelfTest.Failure(description: "no finished answer in the store")
    }
    let log = meter.itemsChanged
    if let reload = log.first(where: \.isFullReload) {
      throw SelfTest.Failure(description: "the message list was reloaded: \(reload)")
    }
    let insertions = log.indices.filter { log[$0].position == position && log[$0].removed == 0 && log[$0].added == 1 }
    guard insertions.count == 1, let inserted = insertions.first else {
      throw SelfTest.Failure(
        description: "the reply's row \(position) was inserted \(insertions.count) times, once expected: \(log)")
    }
    var inPlace = 0
    for change in log[(inserted + 1)...] {
      guard change.removed == change.added, change.position != position || change.removed == 1 else {
        throw SelfTest.Failure(
          description: "after the reply's row \(position) was inserted, the list changed by \(change); "
            + "only in-place replacements (p, 1, 1) expected")
      }
      if change.position == position { inPlace += 1 }
    }
    guard inPlace > 0 else { throw SelfTest.Failure(description: "the reply's row was never updated in place") }
    return inPlace
  }
}

extension RenderMeter {
  /// The numbers the self-test reports for the long reply.
  struct Measurement: Sendable {
    var framesPerSecond: Double
    var longestCallbackMilliseconds: Double
    var longestFrameGapMilliseconds: Double
    var seconds: Double
    var callbacks: Int
    var inPlaceUpdates: Int
    var replyBytes: Int
  }
}

extension ChatWindow {
  /// The class of the renderer GTK draws the window with (`GskCairoRenderer`, `GskGLRenderer`, …).
  var rendererName: String {
    guard let native = gtk_widget_get_native(window), let renderer = gtk_native_get_renderer(native) else { return "" }
    return String(cString: gtk_chat_type_name(UnsafeMutableRawPointer(renderer)))
  }

  /// What the meter counted since its last reset, with the length of the last answer.
  var measurement: RenderMeter.Measurement {
    let seconds = meter.since.duration(to: .now).milliseconds / 1_000
    return RenderMeter.Measurement(
      framesPerSecond: Double(meter.frames) / seconds,
      longestCallbackMilliseconds: meter.longestCallback.milliseconds,
      longestFrameGapMilliseconds: meter.longestFrameGap.milliseconds, seconds: seconds,
      callbacks: meter.callbacks, inPlaceUpdates: meter.itemsChanged.count { $0.removed == 1 && $0.added == 1 },
      replyBytes: chat.state.messages.last?.text.utf8.count ?? 0)
  }
}
