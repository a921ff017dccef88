import ConversationState
import ConversationTesting
import Foundation
import Testing

/// `Message` stores its two rarely set wide fields (agent, usage) out of line and its other fields widest
/// first; these stories check it still behaves, compares, hashes, encodes and prints as a plain value.
@Suite("Message layout")
struct MessageLayoutTests {
  static let agent = AgentInfo(id: "bot-1", name: "Ada", avatarURL: URL(string: "https://example.com/a.png"))
  static let usage = Usage(credits: 0.5, inputTokens: 120, outputTokens: 48)

  static func reply(agent: AgentInfo? = nil, usage: Usage? = nil) -> Message {
    Message(
      clientID: "r1", serverID: "s1", role: .assistant, text: "Hello", createdAt: .story(1), reply: .completed,
      agent: agent, finishReason: "stop", usage: usage)
  }

  @Test("a message a conversation holds by the hundred thousand stays within 144 bytes inline")
  func inlineSize() {
    // The agent (48 bytes), usage (25) and edit time (9) no longer count against every message.
    #expect(MemoryLayout<Message>.stride <= 144)
  }

  @Test("editing the agent of a copy leaves the original's agent alone")
  func copiesAreIndependent() {
    // Given a reply with an agent, and a copy of it a snapshot holds
    var message = Self.reply(agent: Self.agent, usage: Self.usage)
    let held = message
    // When the live copy's agent is renamed and its usage cleared
    message.agent?.name = "Grace"
    message.usage = nil
    // Then the held copy still shows what it showed
    #expect(held.agent?.name == "Ada" && held.usage == Self.usage)
    #expect(message.agent?.name == "Grace" && message.agent?.id == "bot-1" && message.usage == nil)
    #expect(message != held)
  }

  @Test("agent, usage and edit time are set and cleared one at a time; clearing all equals never having them")
  func rareFieldsAreIndependent() {
    // Given a reply with none of the three
    let plain = Self.reply()
    var message = plain
    // When each is set in turn, the others stay as they were
    message.editedAt = .story(9)
    message.agent = Self.agent
    #expect(message.editedAt == .story(9) && message.agent == Self.agent && message.usage == nil)
    message.usage = Self.usage
    message.editedAt = nil
    #expect(message.editedAt == nil && message.agent == Self.agent && message.usage == Self.usage)
    // Then clearing the last two leaves a message equal to (and hashing as) one that never had them
    message.agent = nil
    message.usage = nil
    #expect(message == plain && message.hashValue == plain.hashValue)
  }

  @Test(
    "two messages built apart with equal fields are equal and hash alike",
    arguments: [(nil, nil), (agent, nil), (nil, usage), (agent, usage)] as [(AgentInfo?, Usage?)])
  func equalValuesAreEqual(agent: AgentInfo?, usage: Usage?) {
    let first = Self.reply(agent: agent, usage: usage)
    let second = Self.reply(agent: agent, usage: usage)
    #expect(first == second)
    #expect(first.hashValue == second.hashValue)
    #expect(Set([first, second]).count == 1)
    // And a message differing only there is not equal
    var other = second
    other.usage = Usage(credits: 9)
    #expect(other != first)
  }

  @Test("a message encodes the fields it has, and leaves out those that are nil")
  func encodesAsBefore() throws {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    let bare = try JSONSerialization.jsonObject(with: encoder.encode(Self.reply())) as? [String: Any]
    #expect(
      Set(bare?.keys ?? [:].keys) == [
        "clientID", "serverID", "role", "text", "createdAt", "delivery", "reply", "attachments", "rating",
        "sources", "toolCalls", "finishReason", "isPlaceholderText",
      ])
    // And a full one round-trips
    let full = Self.reply(agent: Self.agent, usage: Self.usage)
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    #expect(try decoder.decode(Message.self, from: encoder.encode(full)) == full)
  }

  @Test("a state diff names the agent field, not how it is stored")
  func diffReadsFieldNames() {
    let lines = StateDiff.lines(expected: Self.reply(agent: Self.agent), actual: Self.reply())
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("agent: ") == true)
    #expect(
      Mirror(reflecting: Self.reply()).children.map(\.label) == [
        "clientID", "serverID", "role", "author", "text", "createdAt", "editedAt", "delivery", "reply",
        "attachments", "rating", "agent", "sources", "toolCalls", "finishReason", "usage", "isPlaceholderText", "parts",
        "providerMetadata",
      ])
  }
}
