public import Foundation

/// The assistant reply being streamed, kept apart from the committed messages so a text delta costs
/// O(delta) and never touches the message list (see `StreamedText`).
///
/// It is shown after the messages. `finish` turns it into the server's message; an error or a stream
/// that ends without finishing commits it as an `interrupted` message with its partial text.
public struct StreamingReply: Equatable, Sendable, Codable {
  /// The request whose stream this is: a send, or a regeneration.
  public var requestID: RequestID
  /// The client ID the reply will have if it is committed without a server message (interrupted).
  public var clientID: ClientMessageID
  /// The text received so far; each delta appends in O(delta).
  public var text: StreamedText
  /// The tools the agent has called so far in this reply, in call order.
  public var toolCalls: [ToolCall]
  /// The agent writing the reply, when the server said which.
  public var agent: AgentInfo?
  /// When the reply started, on the local device clock, moved to just after the newest committed message so
  /// it never sorts before the question; an interrupted reply keeps it as its `createdAt`.
  public var startedAt: Date
  /// When this reply regenerates an earlier answer: that answer's client ID. It and everything after it
  /// are replaced only once this reply finishes.
  public var replacing: ClientMessageID?
  /// The server's ID of the message this reply will become, when the server named it at the start; realtime
  /// events about the reply find it by this ID.
  public var serverID: ServerMessageID?
  /// For a reply streaming over the realtime connection, the request of the connection that carries it.
  /// Losing that connection interrupts the reply, so while this is set that connection is the live one.
  public var connection: RequestID?
  /// How many UTF-8 bytes of `text` are shown, for paced and instant presentation; nil: all of it.
  public var presentedUTF8Count: Int?

  /// A reply that has just started: no text and no tool calls yet.
  public init(
    requestID: RequestID, clientID: ClientMessageID, text: StreamedText = StreamedText(), toolCalls: [ToolCall] = [],
    agent: AgentInfo? = nil, startedAt: Date, replacing: ClientMessageID? = nil, serverID: ServerMessageID? = nil
  ) {
    self.serverID = serverID
    self.requestID = requestID
    self.clientID = clientID
    self.text = text
    self.toolCalls = toolCalls
    self.agent = agent
    self.startedAt = startedAt
    self.replacing = replacing
  }

  /// Client-executed tool calls so far, which `ChatPolicy.clientToolCallLimit` bounds.
  public var clientToolCallCount: Int { toolCalls.count { $0.execution == .client } }

  /// The text to show now: all of it while streaming as it arrives, the released part when paced, nothing
  /// until finished when instant (`ChatPolicy.replyPresentation`). Never splits a character.
  public var presentedText: String {
    guard let presented = presentedUTF8Count else { return text.string }
    return text.substring(fromUTF8: 0, toUTF8: presented)
  }
}
