import Foundation

extension ConversationState {
  /// Everything a streamed delta leaves alone, grouped by lifetime (`ConversationState+Lifetimes.swift`);
  /// each field is documented on `ConversationState`.
  @usableFromInline
  struct Cold: Equatable, Sendable, Codable {
    /// First, so that `==` compares it first: the message list is what two versions differ in most. Stored,
    /// in records of its own.
    @usableFromInline var messages = MessageList()
    /// Stored, in a record of its own so that a keystroke does not rewrite the rest.
    @usableFromInline var draft = ""
    @usableFromInline var stored: Stored
    @usableFromInline var session: Session
    @usableFromInline var run = Run()

    init(conversationID: ConversationID?, epoch: IdentityEpoch, identity: UserIdentity?) {
      stored = Stored(conversationID: conversationID)
      session = Session(epoch: epoch, identity: identity)
    }

    private enum CodingKeys: String, CodingKey {
      case messages, draft
    }

    /// One flat object, a key per field, whatever group a field is in: the fixtures' JSON and a diff's paths
    /// name fields, not groups.
    @usableFromInline init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      messages = try container.decode(MessageList.self, forKey: .messages)
      draft = try container.decode(String.self, forKey: .draft)
      stored = try Stored(from: decoder)
      session = try Session(from: decoder)
      run = try Run(from: decoder)
    }

    @usableFromInline func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(messages, forKey: .messages)
      try container.encode(draft, forKey: .draft)
      try stored.encode(to: encoder)
      try session.encode(to: encoder)
      try run.encode(to: encoder)
    }

    /// Every field by name, whatever its group.
    var fields: [Mirror.Child] {
      [("messages", messages), ("draft", draft)] + Array(Mirror(reflecting: stored).children)
        + Array(Mirror(reflecting: session).children) + Array(Mirror(reflecting: run).children)
    }
  }
}

extension ConversationState: Equatable {
  /// Field by field, except that parts two versions share (every part a delta left alone) compare by
  /// identity. The reply first: it is what differs between two frames of a streamed reply.
  @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
    StreamingReply.areEqual(lhs.streamingReply, rhs.streamingReply) && lhs.agentActivity == rhs.agentActivity
      && lhs.cold == rhs.cold
  }
}

extension ConversationState: Codable {
  /// The hot fields' keys; the cold ones are `Cold`'s, in the same JSON object, so the encoding is one
  /// flat object with a key per field, as before the fields were split.
  private enum HotKeys: String, CodingKey {
    case streamingReply, agentActivity
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HotKeys.self)
    streamingReply = try container.decodeIfPresent(StreamingReply.self, forKey: .streamingReply)
    agentActivity = try container.decode(AgentActivity.self, forKey: .agentActivity)
    cold = CopyOnWrite(try Cold(from: decoder))
  }

  public func encode(to encoder: any Encoder) throws {
    try cold.value.encode(to: encoder)
    var container = encoder.container(keyedBy: HotKeys.self)
    try container.encodeIfPresent(streamingReply, forKey: .streamingReply)
    try container.encode(agentActivity, forKey: .agentActivity)
  }
}

extension ConversationState: CustomReflectable {
  /// The fields by name, as if they were stored here (a state diff walks them).
  public var customMirror: Mirror {
    let hotFields: [Mirror.Child] = [("streamingReply", streamingReply as Any), ("agentActivity", agentActivity)]
    return Mirror(self, children: hotFields + cold.value.fields, displayStyle: .struct)
  }
}
