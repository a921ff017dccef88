import ConversationState
import Foundation

/// The byte layout of a stored message (`Message.encode(into:)`), versioned once: a journal's message
/// records and the archive's rows hold the same bytes, and each file format says which layout its versions
/// store (`ConversationRecord.messageLayout(format:)`, `MessageArchive.messageLayout(format:)`). A change to
/// the layout bumps this number and both formats, together (a test holds them to it).
enum MessageLayout {
  /// 1: the first layout; 2: a message's parts (rare-field bit 32); 3: a reply's outcome (`ReplyState`, tags
  /// 4–9 where 2 had `interrupted`); 4: provider metadata (rare-field bit 64). An older reader refuses a
  /// newer layout's rare bits as malformed, never misreads them.
  static let version = 4
}

/// Messages in the store's binary layout (`MessageLayout`).
///
/// A history is most of what is stored and what a relaunch reads, so the common fields are written directly
/// (no keys, no text parsing); the rare, nested ones (attachments, tool calls, sources, agent, errors) are
/// JSON inside the record, present only when set. This is what makes loading a long history several times
/// faster than decoding it with `JSONDecoder`.
extension Message {
  func encode(into writer: inout ByteWriter) {
    writer.string(clientID.rawValue)
    writer.optionalString(serverID?.rawValue)
    writer.string(role.rawValue)
    writer.optionalString(author?.rawValue)
    writer.string(text)
    writer.double(createdAt.timeIntervalSinceReferenceDate)
    writer.bool(editedAt != nil)
    if let editedAt { writer.double(editedAt.timeIntervalSinceReferenceDate) }
    switch delivery {
    case .pending: writer.byte(0)
    case .sending: writer.byte(1)
    case .queued: writer.byte(2)
    case .sent: writer.byte(3)
    case .failed(let error):
      writer.byte(4)
      writer.blob(JSONBlob.encode(error))
    }
    switch reply {
    case nil: writer.byte(0)
    case .streaming: writer.byte(1)
    case .completed: writer.byte(2)
    // 3 was `interrupted(ChatError)` before format 4; it is read as `ReplyState(endedBy:)` makes it.
    case .failed(let error):
      writer.byte(4)
      writer.blob(JSONBlob.encode(error))
    case .rejected(let error):
      writer.byte(5)
      writer.blob(JSONBlob.encode(error))
    case .cancelled: writer.byte(6)
    case .truncated: writer.byte(7)
    case .awaitingToolResults(let ids):
      writer.byte(8)
      writer.blob(JSONBlob.encode(ids))
    case .awaitingInput(let requests):
      writer.byte(9)
      writer.blob(JSONBlob.encode(requests))
    }
    writer.string(rating.rawValue)
    writer.optionalString(finishReason?.rawValue)
    writer.bool(isPlaceholderText)
    // The rare fields, each announced by a bit so a plain message spends one byte on all of them.
    let rare: UInt8 =
      (attachments.isEmpty ? 0 : 1) | (agent == nil ? 0 : 2) | (sources.isEmpty ? 0 : 4)
      | (toolCalls.isEmpty ? 0 : 8) | (usage == nil ? 0 : 16) | (parts.isEmpty ? 0 : 32)
      | (providerMetadata == nil ? 0 : 64)
    writer.byte(rare)
    if !attachments.isEmpty { writer.blob(JSONBlob.encode(attachments)) }
    if let agent { writer.blob(JSONBlob.encode(agent)) }
    if !sources.isEmpty { writer.blob(JSONBlob.encode(sources)) }
    if !toolCalls.isEmpty { writer.blob(JSONBlob.encode(toolCalls)) }
    if let usage { writer.blob(JSONBlob.encode(usage)) }
    if !parts.isEmpty { writer.blob(JSONBlob.encode(parts)) }
    if let providerMetadata { writer.blob(JSONBlob.encode(providerMetadata)) }
  }

  init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
    let clientID = ClientMessageID(rawValue: try reader.string())
    let serverID = try reader.optionalString().map(ServerMessageID.init(rawValue:))
    guard let role = Role(rawValue: try reader.string()) else { throw ByteReader.Malformed() }
    let author = try reader.optionalString().map(ParticipantID.init(rawValue:))
    let text = try reader.string()
    let createdAt = Date(timeIntervalSinceReferenceDate: try reader.double())
    let editedAt = try reader.bool() ? Date(timeIntervalSinceReferenceDate: try reader.double()) : nil
    let delivery: Delivery
    switch try reader.byte() {
    case 0: delivery = .pending
    case 1: delivery = .sending
    case 2: delivery = .queued
    case 3: delivery = .sent
    case 4: delivery = .failed(try JSONBlob.decode(ChatError.self, try reader.blob()))
    default: throw ByteReader.Malformed()
    }
    let reply: ReplyState?
    switch try reader.byte() {
    case 0: reply = nil
    case 1: reply = .streaming
    case 2: reply = .completed
    case 3: reply = ReplyState(endedBy: try JSONBlob.decode(ChatError.self, try reader.blob()))
    case 4: reply = .failed(try JSONBlob.decode(ChatError.self, try reader.blob()))
    case 5: reply = .rejected(try JSONBlob.decode(ChatError.self, try reader.blob()))
    case 6: reply = .cancelled
    case 7: reply = .truncated
    case 8: reply = .awaitingToolResults(try JSONBlob.decode([ToolCallID].self, try reader.blob()))
    case 9: reply = .awaitingInput(try JSONBlob.decode([InputRequest].self, try reader.blob()))
    default: throw ByteReader.Malformed()
    }
    guard let rating = Rating(rawValue: try reader.string()) else { throw ByteReader.Malformed() }
    let finishReason = try reader.optionalString().map(FinishReason.init(rawValue:))
    let isPlaceholderText = try reader.bool()
    let rare = try reader.byte()
    guard rare < 128 else { throw ByteReader.Malformed() }
    self.init(
      clientID: clientID, serverID: serverID, role: role, author: author, text: text, createdAt: createdAt,
      editedAt: editedAt, delivery: delivery, reply: reply,
      attachments: rare & 1 == 0 ? [] : try JSONBlob.decode([MessageAttachment].self, try reader.blob()),
      rating: rating,
      agent: rare & 2 == 0 ? nil : try JSONBlob.decode(AgentInfo.self, try reader.blob()),
      sources: rare & 4 == 0 ? [] : try JSONBlob.decode([KnowledgeSource].self, try reader.blob()),
      toolCalls: rare & 8 == 0 ? [] : try JSONBlob.decode([ToolCall].self, try reader.blob()),
      finishReason: finishReason,
      usage: rare & 16 == 0 ? nil : try JSONBlob.decode(Usage.self, try reader.blob()),
      isPlaceholderText: isPlaceholderText,
      parts: rare & 32 == 0 ? [] : try JSONBlob.decode([MessagePart].self, try reader.blob()),
      // `JSONValue?.none`, not `nil`: JSONValue is itself nil-literal expressible, so a bare `nil` here would be
      // JSON's null.
      providerMetadata: rare & 64 == 0 ? JSONValue?.none : try JSONBlob.decode(JSONValue.self, try reader.blob()))
  }
}

/// JSON for the small, rare, nested values inside binary records.
enum JSONBlob {
  static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
    // The values stored are the library's own Codable types, which always encode; an empty blob would fail
    // to decode and be reported, never silently accepted.
    (try? [UInt8](JSONEncoder().encode(value))) ?? []
  }

  static func decode<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8]) throws(ByteReader.Malformed) -> Value {
    do { return try JSONDecoder().decode(type, from: Data(bytes)) } catch { throw ByteReader.Malformed() }
  }
}
