import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents

/// What both OpenAI stream mappers build alike: the store events of a reply's parts and calls, the user's
/// message accepted with the first event, and the finished answer. The mappers only read their API's
/// frames into these steps.
struct OpenAIReplyBuilder: Sendable {
  struct Call: Sendable {
    var id: String
    var name: String
    var arguments = ""
    var isComplete = false
  }

  let key: String
  let conversationID: ConversationID
  let userMessage: Message?
  let receivedAt: Date
  private(set) var begun = false
  private(set) var replyID: String?
  /// The parts open now, by the API's key for them (`text`, an item and content index).
  private var open: [String: PartID] = [:]
  private var openOrder: [String] = []
  private var partIDs = UniquePartIDs()
  /// The answer's text, for the transcript (Chat Completions sends it back as the assistant's content).
  var text: String { String(decoding: textBytes, as: UTF8.self) }
  /// `text` as UTF-8, appended to per delta (no `String` grows per delta).
  private var textBytes: [UInt8] = []
  /// The `text` part, while it is the only part open: its deltas need no lookup (`streamOnlyOpenText`).
  private var soleText: PartID?
  private(set) var calls: [Call] = []
  var usage: Usage?

  init(key: String, conversationID: ConversationID, userMessage: Message?, receivedAt: Date) {
    self.key = key
    self.conversationID = conversationID
    self.userMessage = userMessage
    self.receivedAt = receivedAt
  }

  /// The reply began (its first event): the user's message is accepted, the answer started.
  mutating func begin(replyID: String?, into events: inout [ReplyEvent]) {
    guard !begun else { return }
    begun = true
    self.replyID = replyID
    if let userMessage {
      var accepted = userMessage
      accepted.serverID = ServerMessageID(rawValue: userMessage.clientID.rawValue)
      events.append(.accepted(accepted, conversationID: conversationID))
    }
    events.append(.started(agent: nil, replyID: replyID.map { ServerMessageID(rawValue: $0) }))
  }

  /// More text for the part `key` (opened on its first delta).
  mutating func stream(_ delta: String, in key: String, as kind: StreamedPartKind, into events: inout [ReplyEvent]) {
    guard !delta.isEmpty else { return }
    let part: PartID
    if let known = open[key] {
      part = known
    } else {
      part = partIDs.next(key)
      open[key] = part
      openOrder.append(key)
      events.append(.partStarted(part, kind))
      updateSoleText()
    }
    if kind == .text { textBytes.append(contentsOf: delta.utf8) }
    events.appendDelta(delta, to: part)
  }

  /// `stream(delta, in: "text", as: .text, into:)` when the `text` part is the only one open (nothing to end
  /// before it, nothing to look up); false, having done nothing, otherwise. `bytes` are `delta`'s UTF-8 when
  /// the caller has them.
  mutating func streamOnlyOpenText(_ delta: String, bytes: UnsafeBufferPointer<UInt8>?, into events: inout [ReplyEvent])
    -> Bool
  {
    guard let part = soleText else { return false }
    if let bytes { textBytes.append(contentsOf: bytes) } else { textBytes.append(contentsOf: delta.utf8) }
    events.appendDelta(delta, to: part)
    return true
  }

  private mutating func updateSoleText() {
    soleText = openOrder.count == 1 && openOrder[0] == "text" ? open["text"] : nil
  }

  /// Whether the part `key` is open.
  func isOpen(_ key: String) -> Bool { open[key] != nil }

  /// Ends the part `key` (a part never opened ends nothing).
  mutating func end(_ key: String, encryptedValue: String? = nil, into events: inout [ReplyEvent]) {
    guard let part = open.removeValue(forKey: key) else { return }
    openOrder.removeAll { $0 == key }
    updateSoleText()
    events.append(.partEnded(part, encryptedValue: encryptedValue))
  }

  /// Ends every open part whose key starts with `prefix` (all with an empty one), oldest first.
  mutating func endAll(prefix: String = "", into events: inout [ReplyEvent]) {
    for key in openOrder where key.hasPrefix(prefix) { end(key, into: &events) }
  }

  /// Ends the newest open part whose key starts with `prefix`, with `encryptedValue`; false when none is open.
  mutating func endLast(prefix: String, encryptedValue: String, into events: inout [ReplyEvent]) -> Bool {
    guard let key = openOrder.last(where: { $0.hasPrefix(prefix) }) else { return false }
    end(key, encryptedValue: encryptedValue, into: &events)
    return true
  }

  /// A whole part that came in one piece (reasoning that is only an encrypted value).
  mutating func part(_ key: String, _ content: MessagePart.Content, into events: inout [ReplyEvent]) {
    events.append(.part(MessagePart(id: partIDs.next(key), content)))
  }

  /// An app-run call began; its arguments stream next.
  mutating func startCall(id: String, name: String, into events: inout [ReplyEvent]) {
    calls.append(Call(id: id, name: name))
    partIDs.reserve(id)
    events.append(.toolInputStarted(ToolCallID(rawValue: id), name: name, execution: .client))
  }

  func hasCall(_ id: String) -> Bool { calls.contains { $0.id == id } }

  mutating func appendArguments(_ delta: String, toCall id: String, into events: inout [ReplyEvent]) {
    guard let index = calls.firstIndex(where: { $0.id == id }), !delta.isEmpty else { return }
    calls[index].arguments += delta
    events.append(.toolInputDelta(ToolCallID(rawValue: id), delta))
  }

  /// The call is complete (`arguments`: the final text, when the API restates it): arguments that are
  /// not a JSON object fail the call before it runs, and the model is told why on the next request.
  mutating func completeCall(_ id: String, arguments: String? = nil, into events: inout [ReplyEvent]) {
    guard let index = calls.firstIndex(where: { $0.id == id }), !calls[index].isComplete else { return }
    if let arguments { calls[index].arguments = arguments }
    calls[index].isComplete = true
    let call = calls[index]
    let raw = call.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
    let parsed = raw.isEmpty ? JSONValue.object([:]) : try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8))
    let callID = ToolCallID(rawValue: id)
    guard let parsed, case .object = parsed else {
      events.append(
        .toolCall(ToolCall(id: callID, name: call.name, input: .string(call.arguments), execution: .client)))
      events.append(
        .toolResult(
          callID, .failed(ChatError(.toolFailed, "The model's arguments for \(call.name) are not a JSON object."))))
      return
    }
    events.append(.toolCall(ToolCall(id: callID, name: call.name, input: parsed, execution: .client)))
  }

  mutating func completeAllCalls(into events: inout [ReplyEvent]) {
    for call in calls where !call.isComplete { completeCall(call.id, into: &events) }
  }

  /// The answer is complete.
  func finished(_ reason: FinishReason?) -> ReplyEvent {
    .finished(
      Message(
        clientID: ClientMessageID(rawValue: "openai-\(replyID ?? key)"),
        serverID: replyID.map { ServerMessageID(rawValue: $0) }, role: .assistant, text: "", createdAt: receivedAt,
        finishReason: reason, usage: usage))
  }

  /// What a transport failure of the body means: a connection that drops (`NETWORK`) once the reply began
  /// cuts it off (`INCOMPLETE_STREAM`, the reply `truncated`); any other failure is itself.
  func failure(ofTransport error: ChatError, ended: Bool) -> ChatError {
    guard error.code == .network, begun, !ended else { return error }
    return ChatError(.incompleteStream, "The connection dropped before the reply finished: \(error.message)")
  }

  /// The error a stream's own error object stands for (`{"error": {"message", "code"}}`, a Responses
  /// `error` or `response.failed`): `PROVIDER_ERROR` with the server's message and code.
  static func providerError(_ value: JSONValue?) -> ChatError {
    let message = value?.field("message")?.stringValue ?? "The model's reply failed."
    guard let code = value?.field("code")?.stringValue ?? value?.field("type")?.stringValue else {
      return ChatError(.providerError, message)
    }
    return ChatError(.providerError, "\(message) (\(code))")
  }

}

/// What either API's mapper is: a `ReplyMapping` with nothing besides the reply.
protocol OpenAIStreamMapper: ReplyMapping where SideEvent == Never {}

extension OpenAIStreamMapper {
  /// OpenAI's streams carry nothing besides the reply.
  public var hasSideEvents: Bool { false }
  /// None: OpenAI's streams carry nothing besides the reply.
  public mutating func takeSideEvents() -> [Never] { [] }
}

/// One frame's JSON object, or `INVALID_EVENT`.
func frameObject(_ data: String, _ api: String) throws(ChatError) -> [String: JSONValue] {
  try FrameFields.object(parsing: data, what: "A \(api) stream frame")
}

typealias FrameFields = JSONFields<ChatError>
