import ConversationState

/// How the demo names a reply's outcome, in the pane and in transcripts: a completed reply says nothing.
enum ReplyOutcomeWords {
  /// The words and their style, or nil for a reply that needs none.
  static func words(_ reply: ReplyState?) -> (String, TextStyle)? {
    switch reply {
    case nil, .streaming, .completed: return nil
    case .cancelled: return ("stopped", .yellow)
    case .failed(let error): return ("failed: \(MessageLines.reason(error))", .red)
    case .truncated: return ("cut off: the reply ended early", .yellow)
    case .rejected(let error): return ("rejected: \(MessageLines.reason(error))", .red)
    case .awaitingToolResults(let ids): return ("waiting for \(ids.count == 1 ? "a tool" : "\(ids.count) tools")", .dim)
    case .awaitingInput(let requests):
      let open = requests.count { $0.answer == nil }
      return (open == 0 ? "answered, going on…" : "waiting for you", .yellow)
    }
  }

  /// One word for a transcript line.
  static func tag(_ reply: ReplyState?) -> String? {
    switch reply {
    case nil, .streaming, .completed: return nil
    case .cancelled: return "stopped"
    case .failed: return "failed"
    case .truncated: return "cut off"
    case .rejected: return "rejected"
    case .awaitingToolResults: return "awaiting tools"
    case .awaitingInput(let requests):
      return requests.allSatisfy { $0.answer != nil } ? "answered" : "awaiting you"
    }
  }
}
