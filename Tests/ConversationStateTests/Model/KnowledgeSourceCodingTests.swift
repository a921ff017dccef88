import ConversationState
import Foundation
import Testing

/// `KnowledgeSource` gained a document ID and an internal link; what was stored before must read back the
/// same, and what is stored now must look as before unless it has them.
@Suite("Knowledge source coding")
struct KnowledgeSourceCodingTests {
  static let returns = KnowledgeSource(
    id: "src-1", documentID: "doc-9", title: "Returns policy", url: URL(string: "https://help.example.com/returns"),
    internalURL: URL(string: "https://admin.example.com/articles/9/edit"), origin: .knowledgeBase)

  @Test(
    "a source stored before document IDs and internal links reads back with neither",
    arguments: [
      (
        #"{"id": "kb-7", "title": "Shipping", "url": "https://kb.example/7", "origin": "knowledgeBase"}"#,
        KnowledgeSource(id: "kb-7", title: "Shipping", url: URL(string: "https://kb.example/7"), origin: .knowledgeBase)
      ),
      (#"{"title": "Shipping"}"#, KnowledgeSource(title: "Shipping")),
    ])
  func oldShapeDecodes(json: String, expected: KnowledgeSource) throws {
    // Given a source as the release before wrote it
    // When this release reads it
    let decoded = try JSONDecoder().decode(KnowledgeSource.self, from: Data(json.utf8))

    // Then it is the same source, with no document and no internal link
    #expect(decoded == expected)
    #expect(decoded.documentID == nil && decoded.internalURL == nil)
  }

  @Test("an answer stored before, citing a source in its sources and its parts, reads back the same")
  func oldMessageDecodes() throws {
    // Given an answer as the release before encoded it (the source in `sources` and as a part)
    let source = #"{"id": "kb-7", "title": "Shipping", "url": "https://kb.example/7"}"#
    let json = """
      {"clientID": "r1", "serverID": "s1", "role": "assistant", "text": "It ships Monday.", "createdAt": 0,
       "delivery": {"sent": {}}, "reply": {"completed": {}}, "attachments": [], "rating": "none",
       "sources": [\(source)], "toolCalls": [], "isPlaceholderText": false,
       "parts": [{"id": "t", "content": {"text": {"_0": "It ships Monday."}}},
                 {"id": "s", "content": {"source": {"_0": \(source)}}}]}
      """

    // When this release reads it
    let message = try JSONDecoder().decode(Message.self, from: Data(json.utf8))

    // Then the source is the one it cited, in both places
    let cited = KnowledgeSource(id: "kb-7", title: "Shipping", url: URL(string: "https://kb.example/7"))
    #expect(message.sources == [cited])
    #expect(message.parts.last == MessagePart(id: "s", .source(cited)))
  }

  @Test("a source without a document or an internal link is written as before: their keys are left out")
  func absentFieldsAreNotWritten() throws {
    let plain = KnowledgeSource(id: "kb-7", title: "Shipping", url: URL(string: "https://kb.example/7"))

    let keys = try JSONSerialization.jsonObject(with: JSONEncoder().encode(plain)) as? [String: Any]

    #expect(Set(keys?.keys.map { $0 } ?? []) == ["id", "title", "url"])
  }

  @Test("a source with every field writes them all and reads back equal")
  func everyFieldRoundTrips() throws {
    let data = try JSONEncoder().encode(Self.returns)

    let keys = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    #expect(Set(keys?.keys.map { $0 } ?? []) == ["id", "documentID", "title", "url", "internalURL", "origin"])
    #expect(try JSONDecoder().decode(KnowledgeSource.self, from: data) == Self.returns)
  }
}
