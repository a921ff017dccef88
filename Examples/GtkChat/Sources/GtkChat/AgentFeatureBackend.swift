import ConversationStore
import ConversationTesting
import Foundation
import Synchronization

/// The `ScriptedBackend` with what its reply notation cannot say: reasoning, cited sources, a failed tool
/// and a call that waits for the user's approval, plus the run that continues an answer once approved.
///
/// The scripted backend streams every plain piece as a text delta; a piece written `⟦…⟧` (see `Marker`) is
/// turned here into the event it names instead, so one script still says the whole reply, in order, on the
/// backend's clock. Everything else is the scripted backend's, passed through.
final class AgentFeatureBackend: ChatBackend {
  static let agent = AgentInfo(id: "agent", name: "Agent")

  /// The backend whose scripts are played.
  let scripted: ScriptedBackend
  /// How long the continuing run waits before each of its words.
  private let wordInterval: Double
  /// Conversations created so far: each new one gets its own ID (the scripted backend names them all
  /// `conv-scripted`, and the list would show two conversations as one).
  private let created = Mutex(0)

  init(_ scripted: ScriptedBackend, wordInterval: Double) {
    self.scripted = scripted
    self.wordInterval = wordInterval
  }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    var payload = payload
    if payload.conversationID == nil {
      let number = created.withLock { created in
        created += 1
        return created
      }
      payload.conversationID = ConversationID("conversation-\(number)")
    }
    return Self.translating(scripted.send(payload))
  }

  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    Self.translating(scripted.regenerate(in: conversation, replyTo: prompt, answer: answer))
  }

  /// The run after the user answered an approval: an approved call runs and succeeds, a denied one does not
  /// run; then a sentence saying which, word by word. Its finish sends no copy of the text, as the agent
  /// protocols do.
  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let wordInterval = wordInterval
    return AsyncThrowingStream { stream in
      let task = Task {
        do {
          stream.yield(.started(agent: Self.agent))
          var text = ""
          for request in continuation.inputAnswers {
            guard case .toolApproval(let call) = request.kind else { continue }
            if request.answer == .approved {
              stream.yield(.toolResult(call, .succeeded(["done": true])))
              text += " Done: the tool ran."
            } else {
              text += " All right, I did not run it."
            }
          }
          for word in text.split(separator: " ") {
            try await Task.sleep(for: .seconds(wordInterval))
            stream.yield(.delta(" " + word))
          }
          stream.yield(
            .finished(
              Message(
                clientID: "continued", serverID: continuation.answer, role: .assistant, text: "", createdAt: .now)))
          stream.finish()
        } catch {
          stream.finish(throwing: error)
        }
      }
      stream.onTermination = { _ in task.cancel() }
    }
  }

  /// The scripted stream with each marker piece replaced by its event, and the finished message's text
  /// left empty, so the answer keeps the text that streamed (the scripted copy has the markers in it).
  private static func translating(_ events: AsyncThrowingStream<ReplyEvent, any Error>)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    AsyncThrowingStream { stream in
      let task = Task {
        do {
          for try await event in events {
            switch event {
            case .delta(let piece):
              for translated in Marker(piece)?.events ?? [.delta(piece)] { stream.yield(translated) }
            case .finished(var message, let userMessageID):
              message.text = ""
              stream.yield(.finished(message, userMessageID: userMessageID))
            default:
              stream.yield(event)
            }
          }
          stream.finish()
        } catch {
          stream.finish(throwing: error)
        }
      }
      stream.onTermination = { _ in task.cancel() }
    }
  }

  // Everything else is the scripted backend's.

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    try await scripted.history(of: conversation, before: cursor, limit: limit)
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await scripted.messages(in: conversation, after: after)
  }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    scripted.realtime(conversation: conversation)
  }

  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    try await scripted.conversations(after: cursor, limit: limit)
  }

  func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    try await scripted.updateConversation(conversation, change)
  }

  func deleteConversation(_ conversation: ConversationID) async throws {
    try await scripted.deleteConversation(conversation)
  }

  func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    try await scripted.rate(message, in: conversation, as: rating)
  }
}

/// A piece of a script that stands for an event the reply notation has no word for:
///
/// | piece | event |
/// |---|---|
/// | `⟦think TEXT⟧` | a reasoning part, whole |
/// | `⟦source TITLE @ URL⟧` | a cited source, whole |
/// | `⟦fail NAME MESSAGE⟧` | the call `NAME` (started with `<tool NAME>`) failed |
/// | `⟦approve NAME QUESTION⟧` | the agent calls `NAME` and asks the user to approve it; the run ends after it |
struct Marker {
  var events: [ReplyEvent]

  init?(_ piece: String) {
    guard piece.hasPrefix("⟦"), piece.hasSuffix("⟧") else { return nil }
    let words = piece.dropFirst().dropLast().split(separator: " ", maxSplits: 1).map(String.init)
    guard words.count == 2 else { return nil }
    let argument = words[1]
    switch words[0] {
    case "think":
      events = [.part(MessagePart(id: "reasoning", .reasoning(ReasoningPart(text: argument))))]
    case "source":
      let fields = argument.components(separatedBy: " @ ")
      guard fields.count == 2, let url = URL(string: fields[1]) else { return nil }
      let source = KnowledgeSource(id: fields[1], title: fields[0], url: url, origin: .external)
      events = [.part(MessagePart(id: PartID("source-\(fields[1])"), .source(source)))]
    case "fail":
      let (name, message) = Self.split(argument)
      events = [.toolResult(ToolCallID(name), .failed(ChatError(.providerError, message)))]
    case "approve":
      let (name, question) = Self.split(argument)
      let call = ToolCall(id: ToolCallID(name), name: name, execution: .server)
      events = [
        .toolCall(call),
        .inputRequested(
          InputRequest(id: InputRequestID("approve-\(name)"), kind: .toolApproval(call.id), message: question)),
      ]
    default:
      return nil
    }
  }

  private static func split(_ text: String) -> (String, String) {
    let words = text.split(separator: " ", maxSplits: 1).map(String.init)
    return (words[0], words.count > 1 ? words[1] : "")
  }
}
