import ConversationStore

/// The right pane: the open conversation's messages, newest at the bottom, then what is happening now
/// (the streamed reply, typing, a ticket, the feedback question).
enum ConversationPane {
  static func header(_ screen: DemoScreen) -> StyledLine {
    var line = StyledLine(screen.focus == .conversation ? "▸" : " ", .bold)
    guard let state = screen.conversation else {
      line.append("No conversation open", .bold)
      return line
    }
    let listed = state.conversationID.flatMap { screen.list.conversations[$0]?.title }
    let title =
      userTitle(of: state, in: screen.list) ?? state.title ?? listed
      ?? (state.conversationID == nil ? "New conversation" : "Conversation")
    line.append(title.isEmpty ? "Conversation" : title, .bold)
    line.append(" · \(words(for: state.status))", state.status.acceptsMessages ? .dim : .yellow)
    return line
  }

  /// The title the user gave the conversation in their list (`/rename`), which wins over the one it came
  /// with.
  static func userTitle(of state: ConversationState, in list: ConversationListState) -> String? {
    guard let id = state.conversationID else { return nil }
    // A row being deleted is out of the list until its deletion is done or undone; its title is kept there.
    let row = list.conversations[id] ?? list.deleting.first { $0.row.id == id }?.row
    guard let row, row.isTitleSetByUser else { return nil }
    return row.title
  }

  static func words(for status: ConversationStatus) -> String {
    switch status {
    case .ongoing: return "ongoing"
    case .takenOver: return "a human agent has it"
    case .ended: return "ended"
    case .notFound: return "not found"
    case .unavailable: return "chat unavailable"
    }
  }

  /// Exactly `height` lines of exactly `width` columns, the first column a margin (the header's focus
  /// marker sits in it) so text does not touch the separator.
  static func lines(_ screen: DemoScreen, width: Int, height: Int, replyLayout: ReplyLayoutCache? = nil)
    -> [StyledLine]
  {
    content(screen, width: width - 1, height: height, replyLayout: replyLayout).map { line in
      var margined = StyledLine(" ")
      margined.append(line)
      return margined.fitted(to: width)
    }
  }

  private static func content(_ screen: DemoScreen, width: Int, height: Int, replyLayout: ReplyLayoutCache?)
    -> [StyledLine]
  {
    var lines: [StyledLine] = []
    if let state = screen.conversation {
      // Pinned above the messages, so it shows however far the history is scrolled.
      if state.history.isLoadingHistory { lines.append(StyledLine("loading older messages…", .dim)) }
      lines += window(
        state, screen: screen, width: width, height: height - lines.count, replyLayout: replyLayout)
    } else {
      lines.append(StyledLine("Type a message to start a conversation, or /open N.", .dim))
    }
    return (lines + Array(repeating: StyledLine(), count: max(0, height - lines.count))).prefix(height)
      .map { $0.fitted(to: width) }
  }

  /// The last `height` lines of the conversation; or, when the selected message would be above them, the
  /// lines from that message down.
  private static func window(
    _ state: ConversationState, screen: DemoScreen, width: Int, height: Int, replyLayout: ReplyLayoutCache?
  ) -> [StyledLine] {
    guard height > 0 else { return [] }
    let live = ConversationActivity.lines(
      state, now: screen.now, width: width, replyLayout: replyLayout, showsReasoning: screen.showsReasoning)
    if state.messages.isEmpty && live.isEmpty {
      return [StyledLine("Say hello: type a message and press Enter.", .dim)]
    }
    let selected = screen.selectedMessage.flatMap { state.messages.contains($0) ? $0 : nil }
    let offered = MessageLines.suggestionsLine(state.shownSuggestions).map { [StyledLine($0, .dim)] } ?? []
    var blocks: [[StyledLine]] = [offered + live]  // newest first
    var count = offered.count + live.count
    var selectedBlock: (linesBelow: Int, count: Int)?
    var index = state.messages.endIndex
    // Newest first, and only as far back as the pane (and the selection) needs: a long history costs
    // nothing per frame.
    while index > state.messages.startIndex && (count < height || (selected != nil && selectedBlock == nil)) {
      index -= 1
      let message = state.messages[index]
      let isSelected = message.clientID == selected
      let block = MessageLines.lines(
        message, width: width, isSelected: isSelected, showsReasoning: screen.showsReasoning,
        place: state.branches.place(of: message.clientID))
      if isSelected { selectedBlock = (count, block.count) }
      blocks.append(block)
      count += block.count
    }
    let all = Array(blocks.reversed().joined())
    var end = all.count
    if let selectedBlock {
      let start = all.count - selectedBlock.linesBelow - selectedBlock.count
      if start < all.count - height { end = min(all.count, start + height) }
    }
    return Array(all[max(0, end - height)..<end])
  }
}
