import ChatHTTP
import ConversationStore
import Foundation
import Testing

/// The sources the agent's answer cites, as a reply stream brings them: `source` events, a data frame's
/// `sources`, and a `finish` message's `sources`.
@Suite("Reply frames: cited sources into source parts")
struct ReplyStreamSourcesTests {
  static let returnsJSON =
    #"{"id": "src-1", "document_id": "doc-9", "title": "Returns policy", "internal_url": "https://admin.example.com/articles/9/edit", "external_url": "https://help.example.com/articles/9-returns"}"#
  static let returns = KnowledgeSource(
    id: "src-1", documentID: "doc-9", title: "Returns policy",
    url: URL(string: "https://help.example.com/articles/9-returns"),
    internalURL: URL(string: "https://admin.example.com/articles/9/edit"))
  static let labels = KnowledgeSource(title: "Shipping labels")

  /// The source parts among `events`, in order.
  static func sourceParts(_ events: [ReplyEvent]) -> [MessagePart] {
    events.compactMap { if case .part(let part) = $0 { part } else { nil } }
  }

  @Test("typed events: each source arrives as a source part after the text, with every field the server sent")
  func typedSources() {
    // Given an answer that cites a passage with both links, then a document by its title alone
    let stream = """
      event: text-delta
      data: {"delta": "Return it within 30 days."}

      event: source
      data: \(Self.returnsJSON)

      event: source
      data: {"title": "Shipping labels"}

      event: finish
      data: {}


      """

    // When it is mapped
    let (events, error) = mapReply(stream, chunk: 11)

    // Then the text comes first, then the two sources in order, named by ID or by place; the finish adds none
    #expect(error == nil)
    #expect(events.count == 6)
    #expect(events[2] == .delta("Return it within 30 days."))
    #expect(
      Self.sourceParts(events) == [
        MessagePart(id: "src-1", .source(Self.returns)), MessagePart(id: "source-2", .source(Self.labels)),
      ])
    guard case .finished(let reply, _) = events.last else {
      Issue.record("no finish in \(events)")
      return
    }
    #expect(reply.parts.isEmpty && reply.sources.isEmpty, "the parts that streamed stand")
  }

  @Test("data frames: a frame's sources follow its content, in the order listed, before DONE")
  func dataFrameSources() {
    let stream = """
      data: {"conversation_id": "conv-1", "message_id": "m-8", "content": "See "}

      data: {"message_id": "m-8", "content": "these.", "sources": [\(Self.returnsJSON), {"title": "Shipping labels"}]}

      data: {"message_id": "m-8", "status": "DONE"}


      """

    let (events, error) = mapReply(stream)

    #expect(error == nil)
    let kinds = events.map { event -> String in
      switch event {
      case .delta(let text): text
      case .part(let part): part.id.rawValue
      case .finished: "finished"
      default: "-"
      }
    }
    #expect(kinds == ["-", "-", "See ", "these.", "src-1", "source-2", "finished"])
    #expect(Self.sourceParts(events).map(\.content) == [.source(Self.returns), .source(Self.labels)])
  }

  @Test("a finish that lists sources is the server's copy: text, the calls that streamed, then its sources")
  func finishMessageSources() {
    // Given an answer that called a tool, streamed one source, and finishes with both sources in its message
    let stream = """
      event: text-delta
      data: {"delta": "Checking. "}

      event: tool-call
      data: {"tool_call_id": "t-1", "tool_name": "lookupOrder", "input": {}, "execution": "server"}

      event: source
      data: \(Self.returnsJSON)

      event: finish
      data: {"message": {"id": "m-8", "role": "assistant", "text": "Checking. Return it.", "created_at": "2026-12-01T03:00:02Z", "sources": [\(Self.returnsJSON), {"title": "Shipping labels"}]}}


      """

    // When it is mapped
    let (events, error) = mapReply(stream)

    // Then the finished answer holds the parts a history page will give, and each source once
    #expect(error == nil)
    guard case .finished(let reply, _) = events.last else {
      Issue.record("no finish in \(events)")
      return
    }
    #expect(
      reply.parts == [
        MessagePart(id: "text-0", .text("Checking. Return it.")), MessagePart(id: "t-1", .toolCall("t-1")),
        MessagePart(id: "src-1", .source(Self.returns)), MessagePart(id: "source-2", .source(Self.labels)),
      ])
    #expect(reply.sources == [Self.returns, Self.labels])
  }

  @Test(
    "a source that cannot be read ends the reply with INVALID_EVENT; what came before is kept, nothing of it",
    arguments: [
      "event: source\ndata: {\"id\": \"s-2\"}",
      "event: source\ndata: {\"title\": null}",
      "event: source\ndata: {\"title\": \"  \"}",
      "event: source\ndata: {\"title\": 5}",
      "event: source\ndata: {\"title\": \"Labels\", \"document_id\": 9}",
      "event: source\ndata: {\"title\": \"Labels\", \"external_url\": \"javascript:alert(1)\"}",
      "event: source\ndata: {\"title\": \"Labels\", \"internal_url\": \"file:///etc/passwd\"}",
      "event: source\ndata: {\"title\": \"Labels\", \"external_url\": \"/articles/9\"}",
      "event: source\ndata: {\"title\": \"Labels\", \"external_url\": \"\"}",
      "event: source\ndata: [{\"title\": \"Labels\"}]",
      "data: {\"content\": \"lost\", \"sources\": [{\"title\": \"Labels\"}, {\"id\": \"s-2\"}]}",
      "data: {\"content\": \"lost\", \"sources\": {\"title\": \"Labels\"}}",
      "event: finish\ndata: {\"message\": {\"id\": \"m-8\", \"role\": \"assistant\", \"text\": \"x\", \"created_at\": \"2026-12-01T00:00:00Z\", \"sources\": [{\"external_url\": \"https://a.example\"}]}}",
    ])
  func malformed(frame: String) {
    // Given a reply that streamed text and a source
    let before = "event: text-delta\ndata: {\"delta\": \"so far\"}\n\nevent: source\ndata: \(Self.returnsJSON)\n\n"

    // When a frame with a source it cannot read follows
    let (events, error) = mapReply(before + frame + "\n\n")

    // Then the reply ends with INVALID_EVENT, the text and the source before it kept, nothing of the frame
    #expect(error?.code == .invalidEvent)
    #expect(events.contains(.delta("so far")))
    #expect(Self.sourceParts(events) == [MessagePart(id: "src-1", .source(Self.returns))])
    #expect(!events.contains(.delta("lost")), "a frame with a bad source is refused whole")
    #expect(!events.contains { if case .finished = $0 { true } else { false } })
  }

  @Test(
    "more sources than a reply's parts allow is INVALID_EVENT for the frame past the bound",
    arguments: [
      "event: source\ndata: {\"title\": \"A\"}\n\nevent: source\ndata: {\"title\": \"B\"}\n\nevent: source\ndata: {\"title\": \"C\"}",
      "data: {\"sources\": [{\"title\": \"A\"}, {\"title\": \"B\"}]}\n\ndata: {\"sources\": [{\"title\": \"C\"}]}",
      "event: source\ndata: {\"title\": \"A\"}\n\nevent: source\ndata: {\"title\": \"B\"}\n\nevent: finish\ndata: {\"message\": {\"id\": \"m-8\", \"role\": \"assistant\", \"text\": \"x\", \"created_at\": \"2026-12-01T00:00:00Z\", \"sources\": [{\"title\": \"A\"}, {\"title\": \"B\"}, {\"title\": \"C\"}]}}",
    ])
  func bounded(frames: String) {
    // Given a policy whose replies have at most 3 parts: the text and 2 sources
    var policy = ChatPolicy()
    policy.maximumPartsPerReply = 3

    // When a reply cites a third source
    let (events, error) = mapReply(
      frames + "\n\n", mapper: ReplyStreamMapper(sending: sent, at: received, policy: policy))

    // Then the frame that brings it ends the reply, and the two before stand
    #expect(error?.code == .invalidEvent)
    #expect(
      Self.sourceParts(events).map(\.content) == [
        .source(KnowledgeSource(title: "A")), .source(KnowledgeSource(title: "B")),
      ])
  }

  @Test("a resumed reply names a source without an ID by its frame's ID, so it never takes a name from before")
  func resumedNamesByFrameID() {
    // Given a reply resumed after frame m-8.4, whose first connection may have brought a `source-1`
    let mapper = ReplyStreamMapper(resuming: "m-8", in: "conv-1", at: received)

    // When sources without IDs come, one frame bringing two
    let (events, error) = mapReply(
      """
      id: m-8.5
      event: source
      data: {"title": "A"}

      id: m-8.6
      data: {"sources": [{"title": "B"}, {"title": "C"}]}

      id: m-8.7
      event: finish
      data: {}


      """, mapper: mapper)

    // Then each is named by its frame, and the second of one frame gets a suffix
    #expect(error == nil)
    #expect(Self.sourceParts(events).map(\.id) == ["source-m-8.5", "source-m-8.6", "source-m-8.6~2"])
  }

  @Test("a resumed reply's finish without text keeps its sources in sources: where they go among the parts is unknown")
  func resumedFinishWithoutText() {
    let mapper = ReplyStreamMapper(resuming: "m-8", in: "conv-1", at: received)

    let (events, error) = mapReply(
      "event: finish\ndata: {\"message\": {\"id\": \"m-8\", \"role\": \"assistant\", \"text\": \"\", \"created_at\": \"2026-12-01T00:00:00Z\", \"sources\": [\(Self.returnsJSON)]}}\n\n",
      mapper: mapper)

    #expect(error == nil)
    guard case .finished(let reply, _) = events.last else {
      Issue.record("no finish in \(events)")
      return
    }
    #expect(reply.text.isEmpty && reply.parts.isEmpty, "the store keeps the text and parts that streamed")
    #expect(reply.sources == [Self.returns])
  }
}
