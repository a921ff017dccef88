extension ChatError {
  enum CodingKeys: String, CodingKey {
    case code, message, status, retryable, retryAfter, conversationStatus
  }

  /// Decodes an error; `retryable` may be left out, and then comes from `isRetryable(code:status:)`, the
  /// same table every error made in code goes through.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      try container.decode(Code.self, forKey: .code),
      try container.decodeIfPresent(String.self, forKey: .message) ?? "",
      status: try container.decodeIfPresent(Int.self, forKey: .status),
      retryAfter: try container.decodeIfPresent(Double.self, forKey: .retryAfter))
    if let retryable = try container.decodeIfPresent(Bool.self, forKey: .retryable) { self.retryable = retryable }
    conversationStatus = try container.decodeIfPresent(ConversationStatus.self, forKey: .conversationStatus)
  }
}
