import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// An answer's cited sources end to end: the reference server answers a question about returns citing
/// three sources (its README), streams them after the text, and keeps them with the stored answer.
@Suite("HTTPChatBackend against the reference server: cited sources", .hangGuard)
struct ReferenceServerSourcesTests {
  /// What the reference server cites for returns (`RETURN_SOURCES`): two passages of one document, one with
  /// both links, then an article known by its title alone.
  static let cited = [
    KnowledgeSource(
      id: "src-1", documentID: "doc-9", title: "Returns policy",
      url: URL(string: "https://help.example.com/articles/9-returns-policy"),
      internalURL: URL(string: "https://admin.example.com/articles/9/edit")),
    KnowledgeSource(
      id: "src-2", documentID: "doc-9", title: "Returns policy: refunds",
      url: URL(string: "https://help.example.com/articles/9-returns-policy#refunds")),
    KnowledgeSource(title: "Printing a return label"),
  ]

  @Test(
    "a streamed answer brings its sources as source parts after its text; a history page reads back the same",
    arguments: ["typed", "frames"])
  func streamedThenReadBack(style: String) async throws {
    // Given the reference server answering in one frame style
    let server = try await ReferenceServer.start(["--style", style])
    let backend = try server.backend()

    // When the user asks about returns
    let payload = SendPayload(conversationID: nil, clientID: "c-1", text: "How do returns work?", attachments: [])
    let (events, error) = await collect(backend.send(payload))

    // Then the three sources arrive as source parts, in order, after the last of the text and before the finish
    #expect(error == nil)
    let sources = events.compactMap { event -> KnowledgeSource? in
      guard case .part(let part) = event, case .source(let source) = part.content else { return nil }
      return source
    }
    #expect(sources == Self.cited)
    let lastDelta = try #require(events.lastIndex { if case .delta = $0 { true } else { false } })
    let firstPart = try #require(events.firstIndex { if case .part = $0 { true } else { false } })
    #expect(lastDelta < firstPart)
    guard case .accepted(_, let conversation) = events.first, case .finished(let streamed, _) = events.last else {
      Issue.record("unexpected events \(events)")
      return
    }

    // And the same answer read back from a history page cites the same sources, as parts after its text
    let page = try await backend.history(of: conversation, before: nil, limit: 10)
    let stored = try #require(page.messages.last)
    #expect(stored.serverID == streamed.serverID && stored.text == text(of: events))
    #expect(stored.sources == Self.cited)
    #expect(stored.parts.map(\.content) == [.text(stored.text)] + Self.cited.map(MessagePart.Content.source))
    if style == "typed" {
      #expect(streamed.parts == stored.parts, "the finish message is the server's copy, as history gives it")
    }
  }

  @Test("a store commits the answer with its sources, and a store that opens the conversation later reads the same")
  func storeKeepsThem() async throws {
    // Given a store that asks about a refund
    let server = try await ReferenceServer.start()
    let store = ChatStore(backend: try server.backend())
    defer { store.close() }
    store.sendMessage("Can I get a refund?")
    let answered = await store.state(within: 30) { state in
      state.messages.count == 2 && state.messages.last?.reply == .completed && state.streamingReply == nil
    }
    let answer = try #require(answered?.messages.last)
    let conversation = try #require(answered?.conversationID)

    // When another store opens the conversation from its history
    let later = ChatStore(ConversationState(conversationID: conversation), backend: try server.backend())
    defer { later.close() }
    later.send(.loadHistory(pageSize: 10))
    let loaded = try #require(await later.state(within: 30) { $0.history.hasLoadedFirstPage })

    // Then both hold the answer's text, then its three sources, as parts, and the sources once each
    #expect(answer.sources == Self.cited)
    #expect(answer.parts.map(\.id) == ["text-0", "src-1", "src-2", "source-3"])
    let reread = try #require(loaded.messages.last)
    #expect(reread.sources == answer.sources && reread.parts == answer.parts && reread.text == answer.text)
  }

  @Test("a stored message citing a javascript: link is refused: its realtime frame is rejected, its page leaves it out")
  func badLinkRefused() async throws {
    // Given a listener on the realtime stream
    let server = try await ReferenceServer.start()
    let conversation = try await server.conversation(messages: 2)
    let backend = try server.backend()
    let inbox = Inbox()
    let reading = inbox.listen(to: backend)
    defer { reading.cancel() }
    #expect(await waitFor { inbox.opened.withLock { $0 } == 1 })

    // When the server stores an answer citing a source whose link is javascript:, then a plain message
    _ = try await server.control(
      "agent_message",
      [
        "conversation_id": conversation.rawValue, "text": "See this",
        "sources": [["title": "Returns", "external_url": "javascript:alert(1)"]],
      ])
    try await server.agentMessage("after the bad one", in: conversation)

    // Then the bad one is reported and skipped, the plain one arrives on the same connection
    #expect(await waitFor { inbox.texts.withLock { $0 } == ["after the bad one"] })
    #expect(inbox.rejected.withLock { $0.map(\.code) } == [.invalidEvent])
    // And a history page holding it leaves it out, with INVALID_EVENT saying why, and keeps the others
    let page = try await backend.history(of: conversation, before: nil, limit: 10)
    #expect(page.messages.count == 3)
    #expect(!page.messages.contains { $0.text == "See this" })
    #expect(page.messages.last?.text == "after the bad one")
    #expect(page.unreadable.count == 1)
    #expect(page.unreadable.first?.code == .invalidEvent)
    #expect(page.unreadable.first?.message.contains("external_url") == true)
  }
}
