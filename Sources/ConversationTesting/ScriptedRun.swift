import ConversationState
import ConversationStore
import Foundation

/// One play of a `ReplyScript` by `ScriptedBackend`: the events its steps become, as the agent protocols'
/// mappers emit them, and the reasoning part it has open.
///
/// What it names, it numbers by the play (`number`, the `N` of the reply's `s-N-a`), so two replies of one
/// conversation never share a part or request ID: a reasoning part is `s-N-reasoning-K`, a source part
/// `s-N-source-K` (K counting from 1 in the reply), an approval `approve-NAME-N`. A tool call's ID is its
/// name, so a later reply (a continuation) can settle a call an earlier one made.
struct ScriptedRun {
  /// The play's number among the backend's replies.
  let number: Int
  /// The reasoning part streaming now, ended by the next step that is neither reasoning nor a wait.
  private var openReasoning: PartID?
  private var reasoningParts = 0
  private var sources = 0

  init(number: Int) { self.number = number }

  /// The events `step` adds, in order: first the end of an open reasoning part the step closes, then the
  /// step's own for the steps that map to events alone. The steps the backend plays itself (text, waits,
  /// `<ask …>`, endings) add only that end.
  mutating func events(for step: ReplyScript.Step) -> [ReplyEvent] {
    var events: [ReplyEvent] = []
    switch step {
    case .reasoning, .wait: break
    default:
      if let open = openReasoning {
        events.append(.partEnded(open))
        openReasoning = nil
      }
    }
    switch step {
    case .reasoning(let text):
      if let open = openReasoning {
        events.append(.partDelta(open, text))
      } else {
        reasoningParts += 1
        let part = PartID("s-\(number)-reasoning-\(reasoningParts)")
        openReasoning = part
        events += [.partStarted(part, .reasoning), .partDelta(part, text)]
      }
    case .source(let url, let title):
      sources += 1
      let source = KnowledgeSource(
        id: url.absoluteString, title: title ?? url.absoluteString, url: url, origin: .external)
      events.append(.part(MessagePart(id: PartID("s-\(number)-source-\(sources)"), .source(source))))
    case .toolCall(let name, let execution):
      events.append(.toolCall(ToolCall(id: ToolCallID(name), name: name, execution: execution)))
    case .toolResult(let name, let json):
      events.append(.toolResult(ToolCallID(name), .succeeded(json)))
    case .toolFailed(let name, let message):
      events.append(.toolResult(ToolCallID(name), .failed(ChatError(.toolFailed, message))))
    case .approval(let name, let question):
      events.append(
        .inputRequested(
          InputRequest(
            id: InputRequestID("approve-\(name)-\(number)"), kind: .toolApproval(ToolCallID(name)), message: question)))
    case .delta, .wait, .ask, .viaRealtime, .finish, .end, .drop, .fail:
      break
    }
    return events
  }
}
