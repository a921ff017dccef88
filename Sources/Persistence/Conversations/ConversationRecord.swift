import ConversationState
import Foundation

/// One entry of a conversation file. The file is a journal of these: replaying them in order rebuilds the
/// conversation, and a rewrite (compaction) writes the fewest that rebuild the same state.
enum ConversationRecord {
  /// The fields besides messages, reply and draft (last one wins).
  case meta(ConversationMeta)
  /// A message as it now is, committed or outgoing (last one per client ID wins).
  case message(Message)
  /// A message that is gone (discarded, or replaced by a regenerated answer).
  case removed(ClientMessageID)
  /// The streamed reply: its header, and its text from UTF-8 offset `from` on (0 starts the text over).
  case reply(ReplyHeader, from: Int, text: String)
  /// No reply is streaming any more.
  case replyEnded
  /// The draft as it now is (format version 2 on).
  case draft(String)
  /// The branches not on screen as they now are (format version 6 on; before, in the meta record).
  case branches(ConversationBranches)

  /// The newest format version; files of older versions are read and rewritten in this one. 2 moved the
  /// draft into its own record; 3 added message parts and the streaming reply's parts (in its header); 4
  /// stores a reply's outcome, the reply's input requests and the agent's shared state (in the meta record);
  /// 5 adds a message's provider metadata; 6 moves the branches out of the meta record into their own. The
  /// message layout each stores is `messageLayout(format:)`.
  static let formatVersion: UInt32 = 6

  /// The message layout (`MessageLayout`) journal format `format` stores.
  static func messageLayout(format: UInt32) -> Int {
    switch format {
    case ...2: 1
    case 3: 2
    case 4: 3
    default: 4
    }
  }
  static let fileKind = "CONV"

  func encode(version: UInt32 = formatVersion) -> [UInt8] {
    var writer = ByteWriter()
    switch self {
    case .meta(var meta):
      writer.byte(1)
      if version >= 2 { meta.draft = nil }
      writer.bytes.append(contentsOf: JSONBlob.encode(meta))
    case .message(let message):
      writer.byte(2)
      message.encode(into: &writer)
    case .removed(let clientID):
      writer.byte(3)
      writer.string(clientID.rawValue)
    case .reply(let header, let from, let text):
      writer.byte(4)
      writer.blob(JSONBlob.encode(header))
      writer.uint64(UInt64(from))
      writer.string(text)
    case .replyEnded:
      writer.byte(5)
    case .draft(let draft):
      precondition(version >= 2, "format version 1 keeps the draft in the meta record")
      writer.byte(6)
      writer.string(draft)
    case .branches(let branches):
      precondition(version >= 6, "format versions before 6 keep the branches in the meta record")
      writer.byte(7)
      writer.bytes.append(contentsOf: JSONBlob.encode(branches))
    }
    return writer.bytes
  }

  init(decoding payload: UnsafeRawBufferPointer, version: UInt32) throws(ByteReader.Malformed) {
    var reader = ByteReader(payload)
    switch try reader.byte() {
    case 1:
      self = .meta(try JSONBlob.decode(ConversationMeta.self, Array(try reader.rawBytes(payload.count - 1))))
    case 2: self = .message(try Message(from: &reader))
    case 3: self = .removed(ClientMessageID(rawValue: try reader.string()))
    case 4:
      let header = try JSONBlob.decode(ReplyHeader.self, try reader.blob())
      let from = try reader.uint64()
      guard from <= UInt64(Int.max) else { throw ByteReader.Malformed() }
      self = .reply(header, from: Int(from), text: try reader.string())
    case 5: self = .replyEnded
    case 6 where version >= 2: self = .draft(try reader.string())
    case 7 where version >= 6:
      self = .branches(try JSONBlob.decode(ConversationBranches.self, Array(try reader.rawBytes(payload.count - 1))))
    default: throw ByteReader.Malformed()
    }
    guard reader.isAtEnd else { throw ByteReader.Malformed() }
  }
}
