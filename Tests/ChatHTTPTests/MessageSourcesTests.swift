import ChatHTTP
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

/// A `Message` object's `sources` (history and catch-up pages, realtime messages, a `finish`): read into
/// the message's parts after its text, through the realtime mapper, which reads messages as the pages do.
@Suite("Message objects: cited sources into source parts")
struct MessageSourcesTests {
  static let now = Date(timeIntervalSince1970: 1_764_558_000)

  /// The message a realtime event of `type` carries, with `sources` (JSON) as its sources.
  static func message(
    _ type: String = "message.created", sources: String, policy: ChatPolicy = ChatPolicy()
  ) throws(ChatError) -> Message? {
    let data = """
      {"conversation_id": "conv-1", "message": {"id": "m-8", "role": "assistant", "text": "Return it within 30 days.",
       "created_at": "2026-12-01T03:00:00Z", "sources": \(sources)}}
      """
    let update = try RealtimeEventMapper.map(
      ServerSentEvent(type: type, data: data, lastEventID: "9"), receivedAt: now, policy: policy)
    switch update {
    case .event(_, .messageCreated(let message)), .event(_, .messageEdited(let message)),
      .event(_, .replyFinished(_, let message)):
      return message
    default: return nil
    }
  }

  @Test(
    "a message's sources become its parts after its text, in order, with every field sent",
    arguments: ["message.created", "message.edited", "reply.finished"])
  func sourcesBecomeParts(type: String) throws {
    // Given a message citing a passage with both links, and a document by its title alone
    let sources = """
      [{"id": "src-1", "document_id": "doc-9", "title": "Returns policy",
        "internal_url": "https://admin.example.com/articles/9/edit", "external_url": "https://help.example.com/9"},
       {"title": "Shipping labels", "id": null, "external_url": null}]
      """

    // When it arrives
    let message = try #require(try Self.message(type, sources: sources))

    // Then its text is the first part, each source a part after it, and each is in `sources`
    let returns = KnowledgeSource(
      id: "src-1", documentID: "doc-9", title: "Returns policy", url: URL(string: "https://help.example.com/9"),
      internalURL: URL(string: "https://admin.example.com/articles/9/edit"))
    let labels = KnowledgeSource(title: "Shipping labels")
    #expect(
      message.parts == [
        MessagePart(id: "text-0", .text("Return it within 30 days.")), MessagePart(id: "src-1", .source(returns)),
        MessagePart(id: "source-2", .source(labels)),
      ])
    #expect(message.sources == [returns, labels])
    #expect(message.text == "Return it within 30 days.")
  }

  @Test("a message citing nothing has no parts, as before", arguments: ["[]", "null"])
  func noSources(sources: String) throws {
    let message = try #require(try Self.message(sources: sources))

    #expect(message.parts.isEmpty && message.sources.isEmpty)
  }

  @Test("part names stay unique: a repeated ID, or one that is the text's name, gets a suffix")
  func uniqueNames() throws {
    let message = try #require(
      try Self.message(
        sources: #"[{"id": "s", "title": "A"}, {"id": "s", "title": "B"}, {"id": "text-0", "title": "C"}]"#))

    #expect(message.parts.map(\.id) == ["text-0", "s", "s~2", "text-0~2"])
  }

  @Test(
    "a message with a source that cannot be read is INVALID_EVENT, never passed on with the source left out",
    arguments: [
      #"[{"id": "src-1"}]"#,
      #"[{"title": ""}]"#,
      #"[{"title": "A", "external_url": "javascript:alert(1)"}]"#,
      #"[{"title": "A", "internal_url": "ftp://files.example.com/a"}]"#,
      #"[{"title": "A", "external_url": "https://"}]"#,
      #"[{"title": "A", "external_url": 7}]"#,
      #"[{"title": "A"}, "B"]"#,
      #"{"title": "A"}"#,
    ])
  func malformed(sources: String) {
    #expect(throws: ChatError.self) { try Self.message(sources: sources) }
    do {
      _ = try Self.message(sources: sources)
    } catch {
      #expect(error.code == .invalidEvent)
    }
  }

  @Test("a message may cite one source fewer than a reply has parts: with its text, it fills them")
  func bounded() throws {
    var policy = ChatPolicy()
    policy.maximumPartsPerReply = 3
    let two = #"[{"title": "A"}, {"title": "B"}]"#
    let three = #"[{"title": "A"}, {"title": "B"}, {"title": "C"}]"#

    #expect(try Self.message(sources: two, policy: policy)?.parts.count == 3)
    #expect(throws: ChatError.self) { try Self.message(sources: three, policy: policy) }
  }
}
