import ConversationState
import ConversationTesting
import Foundation
import Testing

// README-PARTS-BEGIN
/// One line per part of an answer, as a transcript view might show them.
func transcriptLines(of message: Message) -> [String] {
  message.parts.map { part in
    switch part.content {
    case .text(let text): return text
    case .reasoning(let reasoning): return "(thinking) \(reasoning.text)"  // never show encryptedValue
    case .toolCall(let id):
      let call = message.toolCalls.first { $0.id == id }
      return "[\(call?.name ?? "tool")]"
    case .source(let source): return "see: \(source.title) \(source.url?.absoluteString ?? "")"
    case .file(let file): return "file: \(file.name ?? file.mediaType)"
    case .data(let data): return "\(data.kind): \(data.value)"
    }
  }
}
// README-PARTS-END

@Suite("README: replies in parts")
struct ReadmePartsTests {
  @Test("the README's transcript renders every kind of part, reasoning without its encrypted value")
  func rendersEveryKind() {
    var message = Message.server("", id: "s1", at: 1)
    message.toolCalls = [ToolCall(id: "c1", name: "lookupOrder", execution: .server)]
    message.parts = [
      MessagePart(id: "r", .reasoning(ReasoningPart(text: "Check it.", encryptedValue: "secret"))),
      MessagePart(id: "t", .text("Shipped.")),
      MessagePart(id: "c1", .toolCall("c1")),
      MessagePart(id: "s", .source(KnowledgeSource(title: "Shipping", url: URL(string: "https://kb.example/1")))),
      MessagePart(id: "f", .file(FilePart(url: URL(string: "https://x.example/l.pdf")!, mediaType: "application/pdf"))),
      MessagePart(id: "d", .data(DataPart(kind: "eta", value: "tomorrow"))),
    ]

    let lines = transcriptLines(of: message)

    #expect(
      lines == [
        "(thinking) Check it.", "Shipped.", "[lookupOrder]", "see: Shipping https://kb.example/1",
        "file: application/pdf", "eta: \(JSONValue.string("tomorrow"))",
      ])
    #expect(!lines.joined().contains("secret"))
  }

  @Test("the article shows the transcript example verbatim")
  func readmeShowsIt() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-PARTS", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/AgentReplies.md"))
  }
}
