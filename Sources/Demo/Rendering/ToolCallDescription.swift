import ConversationStore

/// A tool call in words, from its name and arguments: `lookupOrder {"id": 1042}` reads "lookup order 1042".
/// The one wording of a call and its outcome, for the full-screen view (a live reply's and a committed
/// answer's calls) and the transcript alike.
enum ToolCallDescription {
  /// The calls of a committed answer to show, in order: all but one whose approval the answer still asks
  /// for, which its open request shows with the commands that answer it.
  static func shown(_ message: Message) -> [ToolCall] {
    guard case .awaitingInput(let requests) = message.reply else { return message.toolCalls }
    let asked = Set(
      requests.compactMap { request -> ToolCallID? in
        guard request.answer == nil, case .toolApproval(let id) = request.kind else { return nil }
        return id
      })
    return message.toolCalls.filter { !asked.contains($0.id) }
  }

  /// The call with its outcome: a mark, the words, and why it failed or stopped when it did
  /// (`✓ lookup order 1042`, `✗ lookup order 1042: not found`, `? delete files a.txt: waiting for your
  /// approval`), and the style it is shown in.
  static func status(_ call: ToolCall) -> (text: String, style: TextStyle) {
    let words = words(name: call.name, input: call.input)
    switch call.outcome {
    case .inputStreaming: return ("⚙ \(call.name)(…", .yellow)
    case .running: return ("⚙ \(words)…", .yellow)
    case .succeeded: return ("✓ \(words)", .dim)
    case .failed(let error): return ("✗ \(words): \(MessageLines.reason(error))", .red)
    case .awaitingApproval: return ("? \(words): waiting for your approval", .yellow)
    case .denied: return ("⊘ \(words): denied", .dim)
    }
  }

  static func words(name: String, input: JSONValue?) -> String {
    let arguments = input.map(values(of:)) ?? []
    return ([words(of: name)] + arguments).filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// camelCase and snake_case split into lowercase words.
  private static func words(of name: String) -> String {
    var result = ""
    for character in name {
      if character == "_" || character == "-" {
        result.append(" ")
      } else if character.isUppercase {
        if !result.isEmpty && result.last != " " { result.append(" ") }
        result += character.lowercased()
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// The argument values, by key order so the words do not change between frames.
  private static func values(of value: JSONValue) -> [String] {
    switch value {
    case .null: return []
    case .bool(let flag): return [String(flag)]
    case .number(let number):
      if number == number.rounded(), abs(number) < 1e15 { return [String(Int(number))] }
      return [String(number)]
    case .string(let text): return [text]
    case .array(let items): return items.flatMap(values(of:))
    case .object(let fields): return fields.keys.sorted().flatMap { values(of: fields[$0]!) }
    }
  }
}
