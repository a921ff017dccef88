import CGtk
import ConversationStore

/// The self-test's checks of the agent features, on the main thread: each reads what the widgets show and
/// compares it with what the store holds, and fails when the store lacks the feature (so a check cannot
/// pass on an empty row).
extension ChatWindow {
  /// The row widgets showing `message`, which must be on screen.
  func shownRow(of message: ClientMessageID) throws -> MessageRow {
    guard let row = rowFactory.row(showing: message) else {
      let bound = rowFactory.rows.values.map {
        "\($0.messageID.map(\.rawValue) ?? "-")/\(gtk_widget_get_mapped($0.box))"
      }
      throw SelfTest.Failure(
        description:
          "no row on screen shows message \(message); rows: \(bound); store: \(chat.state.rows.map(\.id.rawValue))")
    }
    return row
  }

  /// Whether the last answer's row is on screen (the list follows new rows; with rows of estimated
  /// heights it can take a few frames to reach the end).
  var isLastAnswerOnScreen: Bool {
    Self.lastAnswer(in: chat.state).flatMap { rowFactory.row(showing: $0.clientID) } != nil
  }

  /// The last answer, and its row.
  func lastAnswerRow() throws -> (Message, MessageRow) {
    guard let answer = Self.lastAnswer(in: chat.state) else {
      throw SelfTest.Failure(description: "no finished answer in the store")
    }
    return (answer, try shownRow(of: answer.clientID))
  }

  /// The answer's reasoning is shown collapsed under "Thought for …"; opened, it shows the store's text.
  func checkReasoningCollapsed() throws -> String {
    let (answer, row) = try lastAnswerRow()
    guard let expected = RowContent(.message(answer), in: chat.state).reasoning else {
      throw SelfTest.Failure(description: "the answer has no reasoning in the store")
    }
    guard isShown(row.reasoning), gtk_expander_get_expanded(OpaquePointer(row.reasoning)) == 0 else {
      throw SelfTest.Failure(description: "the reasoning is not shown collapsed")
    }
    let label = String(cString: gtk_expander_get_label(OpaquePointer(row.reasoning)))
    guard label == expected.label, label.hasPrefix("💭 Thought for") else {
      throw SelfTest.Failure(description: "the reasoning's row reads \"\(label)\", expected \"\(expected.label)\"")
    }
    guard labelText(row.reasoningText) == expected.text else {
      throw SelfTest.Failure(description: "the reasoning reads \"\(labelText(row.reasoningText))\"")
    }
    return label
  }

  /// Opens the last answer's reasoning, as a click on its expander does.
  func openReasoning() throws {
    gtk_expander_set_expanded(OpaquePointer(try lastAnswerRow().1.reasoning), 1)
  }

  /// The opened reasoning's text is on screen.
  func checkReasoningOpen() throws {
    let row = try lastAnswerRow().1
    guard gtk_expander_get_expanded(OpaquePointer(row.reasoning)) != 0, gtk_widget_get_mapped(row.reasoningText) != 0
    else { throw SelfTest.Failure(description: "the opened reasoning's text is not on screen") }
  }

  /// Each tool call of `message` shows its name and outcome; `expected` are the outcomes the store must have.
  func checkToolLines(of message: ClientMessageID, expected: [String]) throws -> [String] {
    guard let stored = chat.state.messages[clientID: message] else {
      throw SelfTest.Failure(description: "message \(message) is not in the store")
    }
    let lines = stored.toolCalls.map(RowContent.line)
    guard lines == expected else {
      throw SelfTest.Failure(description: "the store's calls are \(lines), expected \(expected)")
    }
    let row = try shownRow(of: message)
    guard isShown(row.tools), labelText(row.tools) == lines.joined(separator: "\n") else {
      throw SelfTest.Failure(description: "the tool calls read \"\(labelText(row.tools))\", the store has \(lines)")
    }
    return lines
  }

  /// The answer's sources are links, titled and pointing where the store's sources do.
  func checkSources() throws -> [String] {
    let (answer, row) = try lastAnswerRow()
    guard !answer.sources.isEmpty else { throw SelfTest.Failure(description: "the answer cites no source") }
    var links: [(String, String)] = []
    var child = gtk_widget_get_first_child(row.sources)
    while let link = child {
      let uri = gtk_link_button_get_uri(OpaquePointer(link)).map { String(cString: $0) } ?? ""
      links.append((String(cString: gtk_button_get_label(gtkCast(link))), uri))
      child = gtk_widget_get_next_sibling(link)
    }
    let expected = answer.sources.map { ($0.title, $0.url?.absoluteString ?? "") }
    guard isShown(row.sources), links.map(\.0) == expected.map(\.0), links.map(\.1) == expected.map(\.1) else {
      throw SelfTest.Failure(
        description: "the links are \(links)\(isShown(row.sources) ? "" : ", hidden"), the store's sources \(expected)")
    }
    return links.map(\.0)
  }

  /// The last answer waits for an approval, and its row shows the question with Approve and Deny.
  func checkApprovalShown() throws -> String {
    let (answer, row) = try lastAnswerRow()
    guard let request = RowContent.openApproval(in: answer.reply) else {
      throw SelfTest.Failure(description: "the answer waits for no approval in the store")
    }
    guard isShown(row.approval), row.requestID == request.id, isPressable(row.approveButton),
      isPressable(row.denyButton), labelText(row.approvalQuestion) == request.message
    else { throw SelfTest.Failure(description: "the approval \(request.id) is not shown with its buttons") }
    return labelText(row.approvalQuestion)
  }

  /// The approval is answered: the buttons are gone.
  func checkApprovalGone(_ message: ClientMessageID) throws {
    guard !isShown(try shownRow(of: message).approval) else {
      throw SelfTest.Failure(description: "the answered approval still shows its buttons")
    }
  }

  /// The last answer has siblings: its picker reads "‹ i/n ›" as the store places it, arrows enabled.
  func checkSiblingPicker() throws -> String {
    let (answer, row) = try lastAnswerRow()
    guard let place = chat.state.branches.place(of: answer.clientID) else {
      throw SelfTest.Failure(description: "the last answer has no siblings in the store")
    }
    let shown = labelText(row.siblingPlace)
    guard isShown(row.siblings), shown == "\(place.index + 1)/\(place.count)", isPressable(row.previousButton),
      isPressable(row.nextButton)
    else { throw SelfTest.Failure(description: "the sibling picker reads \"\(shown)\", the store \(place)") }
    return "‹ \(shown) ›"
  }

  /// The banner reads the store's connection and what waits; `offline` and `waiting` are what it must say.
  func checkBanner(offline: Bool, waiting: Int) throws -> String {
    let state = chat.state
    let shown = labelText(banner)
    guard state.connection.isOffline == offline, Self.waitingCount(state) == waiting else {
      throw SelfTest.Failure(
        description: "the store is \(state.connection) with \(Self.waitingCount(state)) waiting; "
          + "expected offline \(offline), \(waiting) waiting")
    }
    let says = waiting > 0 ? "\(waiting) waiting to send" : "nothing waiting"
    guard shown == Self.bannerText(state), shown.contains(says), shown.contains("offline") == offline else {
      throw SelfTest.Failure(description: "the banner reads \"\(shown)\"")
    }
    return shown
  }

  /// The list shows the store's rows in its order (`shown`), the conversation on screen first with the pin
  /// mark and its title, and the others after it unmarked.
  func checkListPinnedFirst() throws -> [String] {
    let state = client.list.state
    let rows = state.shown
    let texts = (0..<conversationRows.count).map { conversationRows.text(at: $0) ?? "" }
    guard rows.count >= 2, texts == rows.map(Self.text(of:)) else {
      throw SelfTest.Failure(description: "the list shows \(texts), the store \(rows.map(Self.text(of:)))")
    }
    guard let first = rows.first, first.id == chat.state.conversationID, first.isPinned, !first.title.isEmpty,
      texts[0].hasPrefix("📌 " + first.title), texts.dropFirst().allSatisfy({ !$0.hasPrefix("📌") })
    else { throw SelfTest.Failure(description: "the conversation on screen is not first and pinned: \(texts)") }
    return texts.map { String($0.prefix { $0 != "\n" }) }
  }

  /// Presses `button` as a click does, once it is on screen and enabled.
  func press(_ button: UnsafeMutablePointer<GtkWidget>, _ name: String) throws {
    guard isPressable(button) else { throw SelfTest.Failure(description: "\(name) is not on screen and enabled") }
    _ = gtk_widget_activate(button)
  }

  private func isShown(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool { gtk_widget_is_visible(widget) != 0 }

  private func isPressable(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
    gtk_widget_get_mapped(widget) != 0 && gtk_widget_is_sensitive(widget) != 0
  }

  private func labelText(_ label: UnsafeMutablePointer<GtkWidget>) -> String {
    String(cString: gtk_label_get_text(OpaquePointer(label)))
  }
}
