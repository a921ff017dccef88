import ConversationState
import Foundation

/// The protocol's JSON: `snake_case` keys (spelled out in each type's `CodingKeys`: a key strategy would
/// also rename the keys inside tool inputs and results), ISO 8601 times in UTC with fractional seconds (whole seconds are
/// read too). One encoder and decoder configuration, so every endpoint reads and writes the same way.
enum WireJSON {
  static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = parseDate(text) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 time: \(text)")
      }
      return date
    }
    return decoder
  }

  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(formatDate(date))
    }
    return encoder
  }

  static func parseDate(_ text: String) -> Date? {
    (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
      ?? (try? Date(text, strategy: .iso8601))
  }

  /// RFC 3339 in UTC with milliseconds and its `Z`: without the zone a server reads the time as its own
  /// local time (the outbox's `enqueued_at` and `created_at` went out so until the list's `pinned_at` showed it).
  static func formatDate(_ date: Date) -> String {
    Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
  }

  /// Decodes `T` from a frame's or body's JSON, or says what was wrong as the protocol's error.
  static func decode<T: Decodable>(_ type: T.Type, from data: Data, what: String) throws(ChatError) -> T {
    do {
      return try decoder().decode(type, from: data)
    } catch {
      throw ChatError(.invalidEvent, "The server sent \(what) this client cannot read: \(Self.describe(error)).")
    }
  }

  static func encode<T: Encodable>(_ value: T) -> Data {
    // Encoding our own plain structs cannot fail: no non-finite numbers are written (JSONValue numbers are
    // checked by the store before they get here) and every key is a String.
    (try? encoder().encode(value)) ?? Data("{}".utf8)
  }

  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context): return context.debugDescription
    case DecodingError.keyNotFound(let key, _): return "no \"\(key.stringValue)\""
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
    default: return "\(error)"
    }
  }
}

/// A message as the protocol writes it.
struct WireMessage: Codable, Sendable {
  var id: String
  var clientId: String?
  var role: String
  var text: String
  var createdAt: Date
  var author: String?
  var agent: WireAgent?
  var finishReason: String?
  var usage: WireUsage?
  var sources: [WireSource]?

  /// The store's message: the user's own keep their client ID; others get `srv-<id>` (stable, unique). Its
  /// sources are its parts after its text (`Message.cite`); more than `maximumSources`, or one that cannot
  /// be read, is `INVALID_EVENT`.
  func message(maximumSources: Int) throws(ChatError) -> Message {
    var message = try uncited()
    message.cite(try sources?.sources(maximum: maximumSources) ?? [])
    return message
  }

  /// The message without its sources (a caller that places them itself reads them with `sources(maximum:)`).
  func uncited() throws(ChatError) -> Message {
    guard let role = Self.roles[role] else {
      throw ChatError(.invalidEvent, "The server sent a message with the unknown role \"\(role)\".")
    }
    return Message(
      clientID: ClientMessageID(clientId ?? "srv-\(id)"), serverID: ServerMessageID(id), role: role,
      author: author.map(ParticipantID.init(rawValue:)), text: text, createdAt: createdAt, delivery: .sent,
      reply: role == .assistant || role == .humanAgent ? .completed : nil, agent: agent?.info,
      finishReason: finishReason.map(FinishReason.init(rawValue:)), usage: usage?.usage)
  }

  static let roles: [String: Role] = [
    "user": .user, "assistant": .assistant, "human_agent": .humanAgent, "system": .system,
  ]

  private enum CodingKeys: String, CodingKey {
    case id
    case clientId = "client_id"
    case role
    case text
    case createdAt = "created_at"
    case author
    case agent
    case finishReason = "finish_reason"
    case usage
    case sources
  }
}

struct WireAgent: Codable, Sendable {
  var id: String
  var name: String
  var info: AgentInfo { AgentInfo(id: ParticipantID(id), name: name) }
}

struct WireUsage: Codable, Sendable {
  var inputTokens: Int?
  var outputTokens: Int?
  var reasoningTokens: Int?
  var credits: Double?
  var usage: Usage {
    Usage(
      credits: credits ?? 0, inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0,
      reasoningTokens: reasoningTokens)
  }

  private enum CodingKeys: String, CodingKey {
    case inputTokens = "input_tokens"
    case outputTokens = "output_tokens"
    case reasoningTokens = "reasoning_tokens"
    case credits
  }
}

/// `{"error": {"code", "message"}}`, the body of every failure, and the `error` of frames.
struct WireErrorBody: Codable, Sendable {
  var error: WireError
}

struct WireError: Codable, Sendable {
  var code: String?
  var message: String?
  /// Where the conversation stands, when the server says so with the error (`taken_over`, `ended`, …).
  var conversationStatus: String?

  enum CodingKeys: String, CodingKey {
    case code, message
    case conversationStatus = "conversation_status"
  }

  /// The store's error for this one, `code` and `message` standing in for what the server left out. A
  /// status this client does not know is not guessed at: the error then names none.
  func chatError(
    defaultCode: ChatError.Code, defaultMessage: String, status: Int? = nil, retryAfter: Double? = nil
  ) -> ChatError {
    var error = ChatError(
      code.map(ChatError.Code.init(rawValue:)) ?? defaultCode, message ?? defaultMessage, status: status,
      retryAfter: retryAfter)
    error.conversationStatus = conversationStatus.flatMap(ConversationStatus.init(wire:))
    return error
  }
}

extension ConversationStatus {
  /// The status as the protocol spells it (`taken_over`), or nil for one this client does not know.
  init?(wire: String) {
    switch wire {
    case "ongoing": self = .ongoing
    case "taken_over": self = .takenOver
    case "ended": self = .ended
    case "not_found": self = .notFound
    case "unavailable": self = .unavailable
    default: return nil
    }
  }
}
