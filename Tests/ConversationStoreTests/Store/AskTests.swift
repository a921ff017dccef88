import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// `ask`, the awaited send, as a host coming from an SDK whose `send` returns the answer or throws writes it.
@Suite("Asking and awaiting the answer", .hangGuard)
struct AskTests {
  /// A store on a backend the test answers, and the backend's calls.
  static func store() -> (ChatStore, ControlledBackend, AsyncStream<ControlledBackend.Call>.Iterator) {
    let backend = ControlledBackend()
    return (ChatStore(backend: backend), backend, backend.calls.makeAsyncIterator())
  }

  /// The server takes the user's message as `s1` and starts its answer.
  static func accepts(_ payload: SendPayload, _ reply: ControlledBackend.ReplyStream) {
    reply.yield(
      .accepted(
        Message(
          clientID: payload.clientID, serverID: "s1", role: .user, text: payload.text,
          createdAt: Date(timeIntervalSince1970: 1)),
        conversationID: "c1"))
    reply.yield(.started(agent: AgentInfo(id: "bot", name: "Fin")))
  }

  @Test("the answer to the question comes back once it is committed")
  func answered() async throws {
    // Given a store on a server
    let (chat, _, iterator) = Self.store()
    var calls = iterator
    defer { chat.close() }

    // When the host asks, and the server streams the answer and finishes it
    async let asked = chat.ask("Where is my order?")
    guard case .send(let payload, let reply) = await calls.next() else {
      throw HarnessError(description: "expected a send")
    }
    Self.accepts(payload, reply)
    reply.yield(.delta("It ships "))
    reply.yield(.delta("tomorrow."))
    reply.yield(
      .finished(
        Message(
          clientID: "a1", serverID: "s2", role: .assistant, text: "It ships tomorrow.",
          createdAt: Date(timeIntervalSince1970: 2))))
    reply.finish()

    // Then `ask` returns that answer, which is what the state shows
    let answer = try await asked
    #expect(answer.text == "It ships tomorrow." && answer.reply == .completed)
    #expect(chat.state.messages.last?.serverID == answer.serverID)
  }

  @Test(
    "a message that fails, or an answer that fails or is stopped, throws its typed error; the message stays",
    arguments: ["send fails", "answer fails", "answer stopped"])
  func failures(_ story: String) async throws {
    // Given a store on a server
    let (chat, _, iterator) = Self.store()
    var calls = iterator
    defer { chat.close() }

    // When the host asks and the send or the answer goes wrong
    async let asked = chat.ask("Where is my order?")
    guard case .send(let payload, let reply) = await calls.next() else {
      throw HarnessError(description: "expected a send")
    }
    switch story {
    case "send fails": reply.finish(throwing: ChatError(.network, "offline"))
    case "answer fails":
      Self.accepts(payload, reply)
      reply.finish(throwing: ChatError(.providerError, "the model is down"))
    default:
      Self.accepts(payload, reply)
      reply.yield(.delta("Let me"))
      _ = await chat.state(where: { $0.streamingReply?.text.string == "Let me" })
      chat.send(.stopReply)
    }

    // Then `ask` throws what the state shows, and the question is still there
    let expected: ChatError.Code =
      switch story {
      case "send fails": .network
      case "answer fails": .providerError
      default: .cancelled
      }
    do {
      _ = try await asked
      Issue.record("\(story): an answer came back")
    } catch let error as ChatError {
      #expect(error.code == expected, "\(story): \(error)")
    }
    #expect(chat.state.messages.contains { $0.text == "Where is my order?" })
  }

  @Test("a message the store refuses throws the refusal at once, and nothing is sent")
  func refused() async {
    let (chat, backend, _) = Self.store()
    defer { chat.close() }
    do {
      _ = try await chat.ask("   ")
      Issue.record("an empty message was asked")
    } catch {
      #expect(error.code == .invalidAction || error.code == .emptyMessage, "\(error)")
    }
    #expect(chat.state.messages.isEmpty)
    #expect(backend.sentTypingSignals.isEmpty)
  }

  @Test("cancelling the wait throws CANCELLED and leaves the message to be answered; closing the store ends it")
  func cancelledWait() async throws {
    // Given a question asked, sent, and not answered yet
    let (chat, _, iterator) = Self.store()
    var calls = iterator
    let waiting = Task { try await chat.ask("Hello?") }
    guard case .send(let payload, let reply) = await calls.next() else {
      throw HarnessError(description: "expected a send")
    }
    Self.accepts(payload, reply)

    // When the host stops waiting
    waiting.cancel()

    // Then the wait throws CANCELLED, and the message is still sent and waits for its answer
    do {
      _ = try await waiting.value
      Issue.record("the cancelled wait returned an answer")
    } catch let error as ChatError {
      #expect(error.code == .cancelled)
    }
    #expect(chat.state.messages.first?.serverID == "s1")

    // And a second question, which waits in the follow-up queue behind the answer streaming, ends with
    // CANCELLED when the store closes
    async let second = chat.ask("Anyone?")
    _ = await chat.state(where: { $0.followUps.turns.map(\.text) == ["Anyone?"] })
    chat.close()
    do {
      _ = try await second
      Issue.record("a closed store answered")
    } catch let error as ChatError {
      #expect(error.code == .cancelled)
    }
  }
}
