/// A JSON Pointer (RFC 6901): the path from the root of a JSON document to one value inside it.
///
/// The pointer holds its reference tokens already unescaped, so `"/a~1b"` is the single token `"a/b"`.
/// Whether a token such as `"0"` names an object member or an array element is decided only when the
/// pointer meets a document, as the RFC says.
///
/// ```swift
/// let pointer = try JSONPointer(parsing: "/agents/0/a~1b")
/// let tokens = pointer.tokens  // ["agents", "0", "a/b"]
/// let text = pointer.description  // "/agents/0/a~1b"
/// ```
public struct JSONPointer: Hashable, Sendable {
  /// The unescaped reference tokens, outermost first; empty for the whole document.
  public let tokens: [String]

  /// The pointer to the whole document, written `""`.
  public static let root = JSONPointer(tokens: [])

  /// A pointer made of tokens that are already unescaped; every list of strings is a valid pointer.
  ///
  /// ```swift
  /// let text = JSONPointer(tokens: ["a/b", "~"]).description  // "/a~1b/~0"
  /// ```
  public init(tokens: [String]) {
    self.tokens = tokens
  }

  /// Parses the string form of a pointer: `""` for the whole document, otherwise `/`-separated tokens in
  /// which `~1` stands for `/` and `~0` for `~`.
  ///
  /// Throws ``JSONPatchError/invalidPointer(_:problem:)`` when a non-empty pointer does not start with `/`
  /// or holds a `~` that is not followed by `0` or `1`. Runs in time linear in the length of `text`.
  ///
  /// ```swift
  /// let tokens = try JSONPointer(parsing: "/~01").tokens  // ["~1"]: `~0` is undone last, so it cannot make a `~1`
  /// // nil: parsing throws .invalidPointer("foo", problem: .missingLeadingSlash)
  /// let relative = try? JSONPointer(parsing: "foo")
  /// ```
  public init(parsing text: String) throws(JSONPatchError) {
    let bytes = text.utf8
    guard let first = bytes.first else {
      self = .root
      return
    }
    guard first == UInt8(ascii: "/") else {
      throw .invalidPointer(text, problem: .missingLeadingSlash)
    }
    var tokens: [String] = []
    for raw in bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
      guard raw.contains(UInt8(ascii: "~")) else {
        tokens.append(String(decoding: raw, as: UTF8.self))
        continue
      }
      var unescaped: [UInt8] = []
      unescaped.reserveCapacity(raw.count)
      var position = raw.startIndex
      while position < raw.endIndex {
        let byte = raw[position]
        guard byte == UInt8(ascii: "~") else {
          unescaped.append(byte)
          position = raw.index(after: position)
          continue
        }
        let next = raw.index(after: position)
        switch next < raw.endIndex ? raw[next] : nil {
        case UInt8(ascii: "0"): unescaped.append(UInt8(ascii: "~"))
        case UInt8(ascii: "1"): unescaped.append(UInt8(ascii: "/"))
        default:
          throw .invalidPointer(
            text, problem: .invalidEscape(utf8Offset: bytes.distance(from: bytes.startIndex, to: position)))
        }
        position = raw.index(after: next)
      }
      // Only ASCII bytes were replaced, by ASCII bytes, so the bytes are still the valid UTF-8 they came as.
      tokens.append(String(decoding: unescaped, as: UTF8.self))
    }
    self.tokens = tokens
  }

  /// Why a string is not a JSON Pointer.
  public enum SyntaxProblem: Hashable, Sendable {
    /// A non-empty pointer must start with `/`.
    case missingLeadingSlash
    /// The `~` at this UTF-8 offset is not followed by `0` or `1`.
    case invalidEscape(utf8Offset: Int)
  }

  /// Whether this pointer names a value strictly inside the one `other` names: what RFC 6902 forbids a
  /// `move` to do, since a value cannot become its own descendant.
  func isProperPrefix(of other: JSONPointer) -> Bool {
    tokens.count < other.tokens.count && other.tokens.starts(with: tokens)
  }
}

extension JSONPointer: CustomStringConvertible {
  /// The pointer in its string form, escaped so that ``init(parsing:)`` reads it back to the same tokens.
  public var description: String {
    var text = ""
    for token in tokens {
      text.append("/")
      // `~` first: escaping `/` first would turn its `~1` into `~01`.
      text.append(token.replacing("~", with: "~0").replacing("/", with: "~1"))
    }
    return text
  }
}

extension JSONPointer: Codable {
  /// Decodes the string form; a malformed pointer is a `DecodingError.dataCorrupted` whose underlying
  /// error is the ``JSONPatchError``.
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    do {
      try self.init(parsing: text)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "\"\(text)\" is not a JSON Pointer: \(error)",
          underlyingError: error))
    }
  }

  /// Encodes the string form.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// What a reference token means when it meets an array.
enum ArrayPosition: Equatable {
  /// An element index. Digits too many for `Int` clamp to `Int.max`, which is past the end of any array
  /// that fits in memory, so they fail as out of range rather than trapping on overflow.
  case index(Int)
  /// `-`: the position after the last element.
  case end

  /// Nil when the token is not an RFC 6901 array index: only ASCII digits, no leading zero, or `-`.
  init?(token: String) {
    if token == "-" {
      self = .end
      return
    }
    let digits = token.utf8
    guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
    var value = 0
    for digit in digits {
      guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
      let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowAdd) = shifted.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
      value = overflowShift || overflowAdd ? .max : sum
    }
    self = .index(value)
  }
}

/// Why a pointer could not be followed through a document; the patch adds the operation and pointer.
enum PointerFailure: Error, Equatable {
  case memberNotFound
  case notAContainer
  case invalidArrayIndex(String)
  case indexOutOfRange(count: Int)
}

extension JSONValue {
  /// The value at `tokens`, read without copying any container.
  func value(at tokens: some Sequence<String>) throws(PointerFailure) -> JSONValue {
    var current = self
    for token in tokens {
      current = try current.child(at: token)
    }
    return current
  }

  /// Runs `body` on the value at `tokens` in place, however deep.
  ///
  /// Each container on the way is moved out of its parent (its slot holds `null` meanwhile) and put back
  /// after, so every container is uniquely referenced when `body` changes it: no copy of a large array
  /// per operation. The walk is a loop, not recursion, so a pointer of any length cannot exhaust the
  /// stack. The document is whole again when this returns or throws.
  mutating func modifyValue<Result>(
    at tokens: some Sequence<String>, _ body: (inout JSONValue) throws(PointerFailure) -> Result
  ) throws(PointerFailure) -> Result {
    var parents: [(container: JSONValue, slot: Slot)] = []
    var current = self
    self = .null
    var outcome: Swift.Result<Result, PointerFailure>
    do throws(PointerFailure) {
      for token in tokens {
        let (child, slot) = try current.takeChild(at: token)
        parents.append((current, slot))
        current = child
      }
      outcome = .success(try body(&current))
    } catch {
      outcome = .failure(error)
    }
    while var parent = parents.popLast() {
      parent.container.putBack(current, at: parent.slot)
      current = parent.container
    }
    self = current
    return try outcome.get()
  }

  /// Where a child taken out of its container goes back.
  enum Slot {
    case member([String: JSONValue].Index)
    case element(Int)
  }

  private func child(at token: String) throws(PointerFailure) -> JSONValue {
    switch self {
    case .object(let fields):
      guard let child = fields[token] else { throw .memberNotFound }
      return child
    case .array(let elements):
      return elements[try Self.existingIndex(token, in: elements)]
    case .null, .bool, .number, .string:
      throw .notAContainer
    }
  }

  private mutating func takeChild(at token: String) throws(PointerFailure) -> (JSONValue, Slot) {
    var child = JSONValue.null
    switch self {
    case .object(var fields):
      guard let position = fields.index(forKey: token) else { throw .memberNotFound }
      // Dropping the enum's reference first leaves `fields` the only owner, so the swap is in place.
      self = .null
      swap(&child, &fields.values[position])
      self = .object(fields)
      return (child, .member(position))
    case .array(var elements):
      let index = try Self.existingIndex(token, in: elements)
      self = .null
      swap(&child, &elements[index])
      self = .array(elements)
      return (child, .element(index))
    case .null, .bool, .number, .string:
      throw .notAContainer
    }
  }

  private mutating func putBack(_ child: JSONValue, at slot: Slot) {
    // `takeChild` made the slot from this very container, so the kinds always agree.
    switch slot {
    case .member(let position):
      guard case .object(var fields) = self else { return }
      self = .null
      fields.values[position] = child
      self = .object(fields)
    case .element(let index):
      guard case .array(var elements) = self else { return }
      self = .null
      elements[index] = child
      self = .array(elements)
    }
  }

  /// The index `token` names in `elements`, which must already exist (so `-` never does).
  static func existingIndex(_ token: String, in elements: [JSONValue]) throws(PointerFailure) -> Int {
    switch ArrayPosition(token: token) {
    case .index(let index) where index < elements.count: return index
    case .index, .end: throw .indexOutOfRange(count: elements.count)
    case nil: throw .invalidArrayIndex(token)
    }
  }
}
