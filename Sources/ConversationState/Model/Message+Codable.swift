import Foundation

extension Message {
  enum CodingKeys: String, CodingKey {
    case clientID, serverID, role, author, text, createdAt, editedAt, delivery, reply, attachments, rating, agent
    case sources, toolCalls, finishReason, usage, isPlaceholderText
  }

  /// Decodes a message, defaulting what a server (or a fixture) may leave out: delivery `sent`, rating
  /// `none`, no attachments, sources or tool calls, and real (not stand-in) text.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      clientID: try container.decode(ClientMessageID.self, forKey: .clientID),
      serverID: try container.decodeIfPresent(ServerMessageID.self, forKey: .serverID),
      role: try container.decode(Role.self, forKey: .role),
      author: try container.decodeIfPresent(ParticipantID.self, forKey: .author),
      text: try container.decodeIfPresent(String.self, forKey: .text) ?? "",
      createdAt: try container.decode(Date.self, forKey: .createdAt),
      editedAt: try container.decodeIfPresent(Date.self, forKey: .editedAt),
      delivery: try container.decodeIfPresent(Delivery.self, forKey: .delivery) ?? .sent,
      reply: try container.decodeIfPresent(ReplyState.self, forKey: .reply),
      attachments: try container.decodeIfPresent([MessageAttachment].self, forKey: .attachments) ?? [],
      rating: try container.decodeIfPresent(Rating.self, forKey: .rating) ?? .none,
      agent: try container.decodeIfPresent(AgentInfo.self, forKey: .agent),
      sources: try container.decodeIfPresent([KnowledgeSource].self, forKey: .sources) ?? [],
      toolCalls: try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? [],
      finishReason: try container.decodeIfPresent(FinishReason.self, forKey: .finishReason),
      usage: try container.decodeIfPresent(Usage.self, forKey: .usage),
      isPlaceholderText: try container.decodeIfPresent(Bool.self, forKey: .isPlaceholderText) ?? false)
  }
}
