package import ConversationState
package import Foundation

/// The fields of one JSON object a protocol decodes, read with the rules every protocol here shares: a
/// required field must be there with its type, an optional one may be absent or `null`, and a wrong type is
/// never coerced. Each protocol says what a broken rule is (`malformed`): AG-UI's violation, the AI SDK's
/// and OpenAI's `INVALID_EVENT`.
package struct JSONFields<Failure: Error> {
  package let object: [String: JSONValue]
  /// The object's name in messages (`TEXT_MESSAGE_START`, `text-delta`).
  package let type: String
  package let malformed: (String) -> Failure

  package init(object: [String: JSONValue], type: String, malformed: @escaping (String) -> Failure) {
    self.object = object
    self.type = type
    self.malformed = malformed
  }

  /// The same rules for a nested object.
  package func nested(_ object: [String: JSONValue], type: String) -> JSONFields {
    JSONFields(object: object, type: type, malformed: malformed)
  }

  package func required(_ key: String) throws(Failure) -> JSONValue {
    guard let value = object[key] else { throw malformed("\(type) has no \"\(key)\".") }
    return value
  }

  package func string(_ key: String) throws(Failure) -> String {
    guard case .string(let text) = try required(key) else { throw wrongType(key, "a string") }
    return text
  }

  package func optionalString(_ key: String) throws(Failure) -> String? {
    switch object[key] {
    case nil, .null?: return nil
    case .string(let text)?: return text
    default: throw wrongType(key, "a string")
    }
  }

  package func bool(_ key: String) throws(Failure) -> Bool {
    guard case .bool(let flag) = try required(key) else { throw wrongType(key, "true or false") }
    return flag
  }

  package func optionalBool(_ key: String) throws(Failure) -> Bool? {
    switch object[key] {
    case nil, .null?: return nil
    case .bool(let flag)?: return flag
    default: throw wrongType(key, "true or false")
    }
  }

  package func optionalInt(_ key: String) throws(Failure) -> Int? {
    switch object[key] {
    case nil, .null?: return nil
    case .number(let number)?:
      guard let whole = Int(exactly: number) else { throw wrongType(key, "a whole number") }
      return whole
    default: throw wrongType(key, "a whole number")
    }
  }

  package func array(_ key: String) throws(Failure) -> [JSONValue] {
    guard case .array(let items) = try required(key) else { throw wrongType(key, "an array") }
    return items
  }

  package func optionalArray(_ key: String) throws(Failure) -> [JSONValue]? {
    switch object[key] {
    case nil, .null?: return nil
    case .array(let items)?: return items
    default: throw wrongType(key, "an array")
    }
  }

  package func optionalObject(_ key: String) throws(Failure) -> [String: JSONValue]? {
    switch object[key] {
    case nil, .null?: return nil
    case .object(let fields)?: return fields
    default: throw wrongType(key, "an object")
    }
  }

  /// A field that may hold any JSON, absent or `null` reading as nil.
  package func optionalValue(_ key: String) -> JSONValue? {
    object[key].flatMap { $0 == .null ? nil : $0 }
  }

  package func wrongType(_ key: String, _ expected: String) -> Failure {
    malformed("\(type).\(key) is not \(expected).")
  }
}

extension JSONValue {
  /// The member `key` of an object; nil for anything else.
  package func field(_ key: String) -> JSONValue? {
    guard case .object(let fields) = self else { return nil }
    return fields[key]
  }

  /// The text of a string; nil for anything else.
  package var stringValue: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }
}

extension JSONValue {
  /// The value as a request body: compact, keys sorted (the same value is the same bytes), slashes as they
  /// are.
  package func encoded() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // A JSONValue's numbers are checked finite by the store before they reach a request.
    return (try? encoder.encode(self)) ?? Data("{}".utf8)
  }

  /// The value as the text a protocol carries for a tool's arguments or result: a string as it is, anything
  /// else as its JSON (`encoded()`).
  package var wireText: String {
    if case .string(let text) = self { return text }
    return String(decoding: encoded(), as: UTF8.self)
  }
}

extension JSONFields<ChatError> {
  /// The fields of one event of a protocol whose broken rules are `INVALID_EVENT` (the AI SDK, OpenAI).
  package init(invalidEvent object: [String: JSONValue], type: String) {
    self.init(object: object, type: type) { ChatError(.invalidEvent, $0) }
  }

  /// The JSON object one event's data holds; anything else is `INVALID_EVENT` naming `what` it should be.
  package static func object(parsing data: String, what: String) throws(ChatError) -> [String: JSONValue] {
    guard case .object(let object) = JSONByteScanner.value(of: data) else {
      throw ChatError(.invalidEvent, "\(what) is not a JSON object: \(data.prefix(120))")
    }
    return object
  }
}

/// Part IDs unique within one message: a key used before (a later step's `text-1`) gets `key~n`.
package struct UniquePartIDs: Sendable {
  private var used: Set<String> = []

  package init() {}

  /// Marks `id` taken (a tool call's part, a part the message already has).
  package mutating func reserve(_ id: String) { used.insert(id) }

  /// An ID for `key` not taken yet, now taken.
  package mutating func next(_ key: String) -> PartID {
    var candidate = key
    var n = 1
    while used.contains(candidate) {
      n += 1
      candidate = "\(key)~\(n)"
    }
    used.insert(candidate)
    return PartID(rawValue: candidate)
  }
}
