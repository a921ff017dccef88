import CGtk
import ConversationStore
import Foundation

/// `gtk-chat --self-test`: drives the window like a user and checks the binding.
///
/// 1. Sends a message and waits until the streamed reply has finished and is on screen; then checks that the
///    list shows as many rows as the store has messages, with the same texts, and that the reply's row was
///    inserted once and afterwards only replaced in place (`items-changed(p, 1, 1)`), with no full reload.
/// 2. Drives each agent feature through the window and checks it in the widgets against the store
///    (`SelfTest+Features.swift`): the banner offline with a message waiting, then back; Pin putting the
///    conversation first, marked; an approval approved and its call succeeding; an answer's reasoning
///    collapsed, its tool calls' outcomes and its sources as links; Retry making a sibling, ‹ and › switching
///    between the two; an approval denied. The screenshot, when asked for, is taken while that last approval
///    waits for its answer.
/// 3. Streams a long reply (about 1 MB in 10,000 pieces): it must be shown while it streams, updated in place
///    with no full reload. The frames the window drew per second and the longest binding callback are
///    measured and printed, never checked: they are speeds, and a loaded machine would fail them (a 16.24 ms
///    callback did, against a 16 ms limit).
struct SelfTest: Sendable {
  /// Failed checks end the test with this, and a non-zero exit status.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  let window: ChatWindow
  let screenshotPath: String?
  /// The long reply: `chunks` pieces of `wordsPerChunk` 10-byte words, one piece every `chunkInterval` seconds.
  var chunks = 10_000
  var wordsPerChunk = 10
  var chunkInterval = 0.001

  /// Runs the checks; returns the JSON line to print, or throws the first failed check.
  func run() async throws -> String {
    try await waitUntil("the window is shown", timeout: 10) { gtk_widget_get_mapped(window.window) != 0 }
    try await Task.sleep(for: .milliseconds(300))

    // 1. A short reply, word by word.
    await GLibMainLoop.run { window.meter.reset() }
    await GLibMainLoop.run { window.send("Hello from the self-test") }
    try await waitForSettledReply(timeout: 15)
    let rows = try await GLibMainLoop.run { try window.checkRowsMatchStore() }
    let updates = try await GLibMainLoop.run { try window.checkReplyUpdatedInPlace() }

    // 2. The agent features, one after the other; the screenshot while the last approval waits.
    let other = await GLibMainLoop.run { window.client.newConversation() }
    let features: Findings = [
      "offline": try await checkOffline(), "pins": try await checkPinnedList(other: other),
      "approve": try await checkApproval(of: "cancelOrder", approve: true),
      "researched_answer": try await checkResearchedAnswer(), "siblings": try await checkSiblings(),
      "deny": try await checkApproval(of: "refundOrder", approve: false, beforeAnswering: saveScreenshotIfAsked),
    ]

    // 3. A long reply, measured; first a second of nothing, for the frame rate the window has at rest.
    await GLibMainLoop.run { window.meter.reset() }
    try await Task.sleep(for: .seconds(1))
    let idle = await GLibMainLoop.run { window.measurement }
    await GLibMainLoop.run {
      window.meter.reset()
      window.sendForLongAnswer(
        "Stream a long answer", chunks: chunks, wordsPerChunk: wordsPerChunk, chunkInterval: chunkInterval)
    }
    try await waitForSettledReply(timeout: 60)
    let measured = await GLibMainLoop.run { window.measurement }
    let longRows = try await GLibMainLoop.run { try window.checkRowsMatchStore() }
    let fullReloads = await GLibMainLoop.run { window.meter.itemsChanged.count(where: \.isFullReload) }

    let result: [String: any Sendable] = [
      "rows": longRows, "rows_after_short_reply": rows, "in_place_updates": updates,
      "full_reloads": fullReloads, "fps": measured.framesPerSecond.rounded(toPlaces: 1),
      "max_callback_ms": measured.longestCallbackMilliseconds.rounded(toPlaces: 2),
      "max_frame_gap_ms": measured.longestFrameGapMilliseconds.rounded(toPlaces: 1),
      "long_reply_bytes": measured.replyBytes, "long_reply_seconds": measured.seconds.rounded(toPlaces: 2),
      "long_reply_callbacks": measured.callbacks, "long_reply_in_place_updates": measured.inPlaceUpdates,
      "screenshot": screenshotPath ?? "", "idle_fps": idle.framesPerSecond.rounded(toPlaces: 1),
      "renderer": await GLibMainLoop.run { window.rendererName }, "features": features,
    ]
    let json = String(
      decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes]),
      as: UTF8.self)
    guard fullReloads == 0 else { throw Failure(description: "\(json)\nthe long reply caused a full reload") }
    guard measured.inPlaceUpdates >= 2 else {
      throw Failure(description: "\(json)\nthe long reply was not shown while it streamed, in place")
    }
    return json
  }

  /// Saves the screenshot, when asked for one, once the window has drawn what it shows.
  @Sendable private func saveScreenshotIfAsked() async throws {
    guard let screenshotPath else { return }
    try await Task.sleep(for: .milliseconds(300))
    let saved = await GLibMainLoop.run {
      saveScreenshot(of: window.window, paintable: window.contentPaintable, to: screenshotPath)
    }
    guard saved, FileManager.default.fileExists(atPath: screenshotPath) else {
      throw Failure(description: "could not save the screenshot to \(screenshotPath)")
    }
  }

  /// Waits until the store has no reply streaming, none in flight, and the window shows its latest state.
  func waitForSettledReply(timeout: Double) async throws {
    try await waitUntil("the reply finishes and is shown", timeout: timeout) {
      let state = window.chat.state
      return state.streamingReply == nil && state.agentActivity == .idle && state.messages.last?.role == .assistant
        && window.isUpToDate && window.isLastAnswerOnScreen
    }
  }

  func waitUntil(
    _ what: String, timeout: Double, _ condition: @escaping @Sendable @MainActor () -> Bool
  ) async throws {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while await !GLibMainLoop.run(condition) {
      guard ContinuousClock.now < deadline else { throw Failure(description: "timed out after \(timeout) s: \(what)") }
      try await Task.sleep(for: .milliseconds(20))
    }
    // The list view binds and lays out the rows it was told of on its next frame: two frames later, the
    // widgets show what was rendered.
    let frame = await GLibMainLoop.run { window.meter.frames }
    while await GLibMainLoop.run({ window.meter.frames }) < frame + 2 {
      guard ContinuousClock.now < deadline else { throw Failure(description: "no frame drawn after: \(what)") }
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}

extension Double {
  fileprivate func rounded(toPlaces places: Int) -> Double {
    let scale = pow(10, Double(places))
    return (self * scale).rounded() / scale
  }
}
