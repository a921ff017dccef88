import Foundation

extension Message {
  enum CodingKeys: String, CodingKey {
    case clientID, serverID, role, author, text, createdAt, editedAt, delivery, reply, attachments, rating, agent
    case sources, toolCalls, finishReason, usage, isPlaceholderText, parts, providerMetadata
  }

  /// Decodes a message, defaulting what a server (or a fixture) may leave out: delivery `sent`, rating
  /// `none`, no attachments, sources, tool calls or parts, and real (not stand-in) text.
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
      isPlaceholderText: try container.decodeIfPresent(Bool.self, forKey: .isPlaceholderText) ?? false,
      parts: try container.decodeIfPresent([MessagePart].self, forKey: .parts) ?? [],
      providerMetadata: try container.decodeIfPresent(JSONValue.self, forKey: .providerMetadata))
  }

  /// Encodes every field under its name, leaving out those that are `nil` (as the synthesized encoding did).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(clientID, forKey: .clientID)
    try container.encodeIfPresent(serverID, forKey: .serverID)
    try container.encode(role, forKey: .role)
    try container.encodeIfPresent(author, forKey: .author)
    try container.encode(text, forKey: .text)
    try container.encode(createdAt, forKey: .createdAt)
    try container.encodeIfPresent(editedAt, forKey: .editedAt)
    try container.encode(delivery, forKey: .delivery)
    try container.encodeIfPresent(reply, forKey: .reply)
    try container.encode(attachments, forKey: .attachments)
    try container.encode(rating, forKey: .rating)
    try container.encodeIfPresent(agent, forKey: .agent)
    try container.encode(sources, forKey: .sources)
    try container.encode(toolCalls, forKey: .toolCalls)
    try container.encodeIfPresent(finishReason, forKey: .finishReason)
    try container.encodeIfPresent(usage, forKey: .usage)
    try container.encode(isPlaceholderText, forKey: .isPlaceholderText)
    if !parts.isEmpty { try container.encode(parts, forKey: .parts) }
    try container.encodeIfPresent(providerMetadata, forKey: .providerMetadata)
  }
}

extension Message: CustomReflectable {
  /// The fields by name in reading order, as if none were stored out of line (a state diff walks them).
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        ("clientID", clientID), ("serverID", serverID as Any), ("role", role), ("author", author as Any),
        ("text", text), ("createdAt", createdAt), ("editedAt", editedAt as Any), ("delivery", delivery),
        ("reply", reply as Any), ("attachments", attachments), ("rating", rating), ("agent", agent as Any),
        ("sources", sources), ("toolCalls", toolCalls), ("finishReason", finishReason as Any),
        ("usage", usage as Any), ("isPlaceholderText", isPlaceholderText), ("parts", parts),
        ("providerMetadata", providerMetadata as Any),
      ], displayStyle: .struct)
  }
}
