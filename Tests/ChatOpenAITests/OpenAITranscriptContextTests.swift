import ChatHTTP
import ChatOpenAI
import ConversationState
import ConversationStore
import Foundation
import Testing

/// What the model is sent of a stored conversation: each answer step by step, its calls answered, and a
/// Responses answer as the output items the server sent.
@Suite("OpenAI requests built from the conversation")
struct OpenAITranscriptContextTests {
  static let at = Date(timeIntervalSince1970: 1_000)

  static func user(_ id: String, _ text: String) -> Message {
    Message(
      clientID: ClientMessageID(rawValue: id), serverID: ServerMessageID(rawValue: id), role: .user, text: text,
      createdAt: at)
  }

  /// An answer that called a tool, got its result, then wrote text after it.
  static var answerAfterTool: Message {
    let call = ToolCall(
      id: "call-1", name: "lookup", input: ["order": "1042"], execution: .client, outcome: .succeeded("shipped"))
    return Message(
      clientID: "a1", serverID: "a1", role: .assistant, text: "It shipped.", createdAt: at, reply: .completed,
      toolCalls: [call],
      parts: [MessagePart(id: "p-call", .toolCall("call-1")), MessagePart(id: "p-text", .text("It shipped."))])
  }

  @Test("Chat Completions: the call, its result, then the text written after it")
  func chatCompletionsSteps() {
    let transcript = OpenAITranscript(
      context: AgentContext(messages: [Self.user("u1", "Where is 1042?"), Self.answerAfterTool]), api: .chatCompletions)
    let roles = transcript.items.map { $0.field("role")?.stringValue }
    #expect(roles == ["user", "assistant", "tool", "assistant"])
    #expect(transcript.items.last?.field("content") == "It shipped.")
  }

  @Test("a Responses answer goes back as the output items it keeps, its call's output after them")
  func responsesKeepsItems() {
    var answer = Self.answerAfterTool
    answer.providerMetadata = [
      "openai.responses": [
        "output": [
          ["type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA==", "summary": []],
          ["type": "function_call", "id": "fc_1", "call_id": "call-1", "name": "lookup", "arguments": "{}"],
        ]
      ]
    ]
    let transcript = OpenAITranscript(
      context: AgentContext(messages: [Self.user("u1", "hi"), answer]), api: .responses)
    let types = transcript.items.map { $0.field("type")?.stringValue }
    #expect(types == ["message", "reasoning", "function_call", "function_call_output"])
    #expect(transcript.items[1].field("id") == "rs_1", "the reasoning item keeps the server's ID")
    #expect(transcript.unreadable.isEmpty)
  }

  @Test("a corrupt provider payload is a typed error for that message, and the rest is sent")
  func corruptPayload() {
    var answer = Self.answerAfterTool
    answer.providerMetadata = ["openai.responses": ["output": "not a list"]]
    let transcript = OpenAITranscript(
      context: AgentContext(messages: [Self.user("u1", "hi"), answer, Self.user("u2", "and?")]), api: .responses)
    #expect(transcript.unreadable.count == 1)
    #expect(transcript.unreadable.first?.message.contains("a1") == true)
    let types = transcript.items.map { $0.field("type")?.stringValue }
    #expect(types == ["message", "function_call", "function_call_output", "message", "message"])
  }

  @Test("a call the conversation went on without is answered saying so: the API refuses one left open")
  func abandonedCall() {
    var answer = Self.answerAfterTool
    answer.toolCalls[0].outcome = .running
    let transcript = OpenAITranscript(
      context: AgentContext(messages: [Self.user("u1", "hi"), answer, Self.user("u2", "never mind")]),
      api: .chatCompletions)
    let tool = transcript.items.first { $0.field("role") == "tool" }
    #expect(tool?.field("tool_call_id") == "call-1")
    #expect(tool?.field("content")?.stringValue?.contains("went on without") == true)
  }
}
