/// One operation of an RFC 6902 JSON Patch, such as an AG-UI `STATE_DELTA` event carries.
///
/// Each kind of operation holds exactly the members it needs, so an `add` without a value cannot be
/// built. Decoding reads the standard form and ignores members the operation does not define, as the RFC
/// requires; an unknown `op`, or a missing `path`, `from` or `value` that the op needs, is a decoding error.
///
/// ```swift
/// let json = #"[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"}]"#
/// let patch = try JSONDecoder().decode([JSONPatchOperation].self, from: Data(json.utf8))
/// let same = patch[0] == .add(at: try JSONPointer(parsing: "/a"), value: 1)  // true
/// ```
public struct JSONPatchOperation: Hashable, Sendable {
  /// What the operation does, with the members that kind of operation carries.
  public enum Op: Hashable, Sendable {
    /// Puts `value` at `path`: sets an object member (replacing one already there), or inserts into an
    /// array before the index (the index may equal the count, and `-` appends). The parent must exist.
    case add(value: JSONValue)
    /// Removes the value at `path`, which must exist; later array elements shift down.
    case remove
    /// Replaces the value at `path`, which must exist.
    case replace(value: JSONValue)
    /// Removes the value at `from` and adds it at `path`; `from` must exist and must not be a proper
    /// prefix of `path`.
    case move(from: JSONPointer)
    /// Adds a copy of the value at `from`, which must exist, at `path`.
    case copy(from: JSONPointer)
    /// Succeeds when the value at `path` equals `value` as JSON: numbers numerically, objects whatever
    /// their key order, arrays in order.
    case test(value: JSONValue)
  }

  /// What the operation does.
  public var op: Op
  /// The target location.
  public var path: JSONPointer

  /// An operation of the given kind on `path`.
  ///
  /// ```swift
  /// let move = JSONPatchOperation(
  ///   .move(from: try JSONPointer(parsing: "/draft")), path: try JSONPointer(parsing: "/sent/-"))
  /// ```
  public init(_ op: Op, path: JSONPointer) {
    self.op = op
    self.path = path
  }

  /// The `from` member: the source of a move or copy, nil for other kinds.
  public var from: JSONPointer? {
    switch op {
    case .move(let from), .copy(let from): return from
    case .add, .remove, .replace, .test: return nil
    }
  }

  /// The `value` member of an add, replace or test, nil for other kinds.
  public var value: JSONValue? {
    switch op {
    case .add(let value), .replace(let value), .test(let value): return value
    case .remove, .move, .copy: return nil
    }
  }

  /// The `op` member as written in JSON: `"add"`, `"remove"` and so on.
  var name: String {
    switch op {
    case .add: return "add"
    case .remove: return "remove"
    case .replace: return "replace"
    case .move: return "move"
    case .copy: return "copy"
    case .test: return "test"
    }
  }

  /// `{"op": "add", "path": path, "value": value}`.
  public static func add(at path: JSONPointer, value: JSONValue) -> Self { Self(.add(value: value), path: path) }
  /// `{"op": "remove", "path": path}`.
  public static func remove(at path: JSONPointer) -> Self { Self(.remove, path: path) }
  /// `{"op": "replace", "path": path, "value": value}`.
  public static func replace(at path: JSONPointer, value: JSONValue) -> Self {
    Self(.replace(value: value), path: path)
  }
  /// `{"op": "move", "from": from, "path": path}`.
  public static func move(from: JSONPointer, to path: JSONPointer) -> Self { Self(.move(from: from), path: path) }
  /// `{"op": "copy", "from": from, "path": path}`.
  public static func copy(from: JSONPointer, to path: JSONPointer) -> Self { Self(.copy(from: from), path: path) }
  /// `{"op": "test", "path": path, "value": value}`.
  public static func test(at path: JSONPointer, value: JSONValue) -> Self { Self(.test(value: value), path: path) }
}

extension JSONPatchOperation: Codable {
  private enum CodingKeys: String, CodingKey {
    case op, path, from, value
  }

  /// Decodes the standard JSON form, such as `{"op": "add", "path": "/a", "value": 1}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let name = try container.decode(String.self, forKey: .op)
    let path = try container.decode(JSONPointer.self, forKey: .path)
    // `decode`, not `decodeIfPresent`, for `value`: `"value": null` is the JSON null, not a missing member.
    switch name {
    case "add": self.init(.add(value: try container.decode(JSONValue.self, forKey: .value)), path: path)
    case "remove": self.init(.remove, path: path)
    case "replace": self.init(.replace(value: try container.decode(JSONValue.self, forKey: .value)), path: path)
    case "move": self.init(.move(from: try container.decode(JSONPointer.self, forKey: .from)), path: path)
    case "copy": self.init(.copy(from: try container.decode(JSONPointer.self, forKey: .from)), path: path)
    case "test": self.init(.test(value: try container.decode(JSONValue.self, forKey: .value)), path: path)
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .op, in: container,
        debugDescription: "unknown op \"\(name)\": expected add, remove, replace, move, copy or test")
    }
  }

  /// Encodes the standard JSON form, with only the members this kind of operation has.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .op)
    try container.encode(path, forKey: .path)
    try container.encodeIfPresent(from, forKey: .from)
    try container.encodeIfPresent(value, forKey: .value)
  }
}

/// Why a JSON Pointer could not be parsed or a JSON Patch could not be applied.
///
/// `operation` is the index of the failing operation in the patch. `path` is the pointer being followed
/// when it failed: the operation's `from` when the source of a move or copy is the problem, otherwise
/// its `path`.
///
/// ```swift
/// let state: JSONValue = ["tags": ["a"]]
/// do {
///   _ = try state.applying([.remove(at: try JSONPointer(parsing: "/tags/1"))])
/// } catch {
///   print(error)  // .indexOutOfRange(operation: 0, path: /tags/1, count: 1)
/// }
/// ```
public enum JSONPatchError: Error, Hashable, Sendable {
  /// The string is not a JSON Pointer. Thrown while parsing, before any operation exists, so it has no
  /// operation index.
  case invalidPointer(String, problem: JSONPointer.SyntaxProblem)
  /// An object on the way to, or at the end of, `path` has no member of that name.
  case pathNotFound(operation: Int, path: JSONPointer)
  /// `path` goes on through a string, number, boolean or null, which has no members.
  case notAContainer(operation: Int, path: JSONPointer)
  /// A token of `path` meets an array but is not an index: a leading zero, a sign, an exponent, a name.
  case invalidArrayIndex(operation: Int, path: JSONPointer, token: String)
  /// An index of `path` is past the end of an array of `count` elements, or is `-` where an element
  /// that exists is needed (everywhere but the last token of an add).
  case indexOutOfRange(operation: Int, path: JSONPointer, count: Int)
  /// A test found `actual` at `path` where it expected `expected`.
  case testFailed(operation: Int, path: JSONPointer, expected: JSONValue, actual: JSONValue)
  /// A move from a value into its own descendant, which would leave nowhere for the value to be.
  case moveIntoOwnChild(operation: Int, from: JSONPointer, path: JSONPointer)
  /// A remove of the whole document: a document cannot be absent.
  case removesWholeDocument(operation: Int)
  /// The value of an add, replace or test holds a NaN or infinity, which JSON cannot carry and which
  /// would make the state unequal to itself.
  case nonFiniteNumber(operation: Int, path: JSONPointer)

  /// The index of the failing operation; nil for a pointer that failed to parse.
  public var operationIndex: Int? {
    switch self {
    case .invalidPointer: return nil
    case .pathNotFound(let operation, _), .notAContainer(let operation, _), .invalidArrayIndex(let operation, _, _),
      .indexOutOfRange(let operation, _, _), .testFailed(let operation, _, _, _),
      .moveIntoOwnChild(let operation, _, _),
      .removesWholeDocument(let operation), .nonFiniteNumber(let operation, _):
      return operation
    }
  }

  init(_ failure: PointerFailure, operation: Int, path: JSONPointer) {
    switch failure {
    case .memberNotFound: self = .pathNotFound(operation: operation, path: path)
    case .notAContainer: self = .notAContainer(operation: operation, path: path)
    case .invalidArrayIndex(let token): self = .invalidArrayIndex(operation: operation, path: path, token: token)
    case .indexOutOfRange(let count): self = .indexOutOfRange(operation: operation, path: path, count: count)
    }
  }
}

extension JSONPatchError: CustomStringConvertible {
  /// One line saying which operation failed, where, and why; values are not printed, as they may be large.
  public var description: String {
    switch self {
    case .invalidPointer(let text, .missingLeadingSlash):
      return "\"\(text)\" is not a JSON Pointer: it must be empty or start with \"/\""
    case .invalidPointer(let text, .invalidEscape(let offset)):
      return "\"\(text)\" is not a JSON Pointer: the \"~\" at UTF-8 offset \(offset) is not followed by 0 or 1"
    case .pathNotFound(let operation, let path):
      return "operation \(operation): nothing at \"\(path)\""
    case .notAContainer(let operation, let path):
      return "operation \(operation): \"\(path)\" goes through a value that is not an object or array"
    case .invalidArrayIndex(let operation, let path, let token):
      return "operation \(operation): \"\(token)\" in \"\(path)\" is not an array index"
    case .indexOutOfRange(let operation, let path, let count):
      return "operation \(operation): \"\(path)\" is out of range of an array of \(count) elements"
    case .testFailed(let operation, let path, _, _):
      return "operation \(operation): the test of \"\(path)\" found a different value"
    case .moveIntoOwnChild(let operation, let from, let path):
      return "operation \(operation): cannot move \"\(from)\" into its own descendant \"\(path)\""
    case .removesWholeDocument(let operation):
      return "operation \(operation): cannot remove the whole document"
    case .nonFiniteNumber(let operation, let path):
      return "operation \(operation): the value for \"\(path)\" holds a NaN or infinite number"
    }
  }
}

extension JSONValue {
  /// The value with an RFC 6902 JSON Patch applied; the receiver is unchanged.
  ///
  /// Operations run in order, each on the result of the one before. All or nothing: when one fails, the
  /// error says which and nothing of the patch is kept. Never traps, whatever the patch and document.
  ///
  /// Complexity: an operation walks its pointers and changes containers in place, so it costs the depth
  /// of its pointers plus the work at the target (inserting into an array of n elements is O(n)). A
  /// container still shared with the original is copied, shallowly, the first time the patch changes it,
  /// and never again: k operations on a large array copy it once, not k times.
  ///
  /// ```swift
  /// let state: JSONValue = ["count": 1, "tags": ["a"]]
  /// let next = try state.applying([
  ///   .replace(at: try JSONPointer(parsing: "/count"), value: 2),
  ///   .add(at: try JSONPointer(parsing: "/tags/-"), value: "b"),
  /// ])
  /// // next == ["count": 2, "tags": ["a", "b"]]
  /// ```
  public func applying(_ patch: [JSONPatchOperation]) throws(JSONPatchError) -> JSONValue {
    var result = self
    try result.apply(patch)
    return result
  }

  /// Applies an RFC 6902 JSON Patch in place, all or nothing: when an operation fails, the value is left
  /// as it was and the error says which operation failed and why.
  ///
  /// ```swift
  /// var state: JSONValue = ["count": 1]
  /// try state.apply([.test(at: try JSONPointer(parsing: "/count"), value: 1.0)])  // 1 equals 1.0
  /// ```
  public mutating func apply(_ patch: [JSONPatchOperation]) throws(JSONPatchError) {
    // The work happens on a copy so a failure part-way leaves `self` untouched; containers are shared
    // until first written, so the copy costs only the containers the patch changes.
    var result = self
    for (index, operation) in patch.enumerated() {
      try result.perform(operation, index: index)
    }
    self = result
  }

  private mutating func perform(_ operation: JSONPatchOperation, index: Int) throws(JSONPatchError) {
    let path = operation.path
    if let value = operation.value, !value.hasOnlyFiniteNumbers {
      throw .nonFiniteNumber(operation: index, path: path)
    }
    switch operation.op {
    case .add(let value):
      try add(value, at: path, operation: index)
    case .remove:
      _ = try remove(at: path, operation: index)
    case .replace(let value):
      guard let last = path.tokens.last else {
        self = value
        return
      }
      try modifyParent(of: path, operation: index) { (parent) throws(PointerFailure) in
        try parent.replaceChild(at: last, with: value)
      }
    case .move(let from):
      guard !from.isProperPrefix(of: path) else {
        throw .moveIntoOwnChild(operation: index, from: from, path: path)
      }
      // Remove-then-add would be the same, except at the root, which cannot be removed.
      guard from != path else {
        _ = try read(from, operation: index)
        return
      }
      let moved = try remove(at: from, operation: index)
      try add(moved, at: path, operation: index)
    case .copy(let from):
      try add(try read(from, operation: index), at: path, operation: index)
    case .test(let expected):
      let actual = try read(path, operation: index)
      // The synthesized `==` is JSON equality: numbers are Doubles (1 == 1.0), dictionaries ignore key
      // order, arrays compare in order, and non-finite values were refused above.
      guard actual == expected else {
        throw .testFailed(operation: index, path: path, expected: expected, actual: actual)
      }
    }
  }

  private mutating func add(_ value: JSONValue, at path: JSONPointer, operation: Int) throws(JSONPatchError) {
    guard let last = path.tokens.last else {
      self = value
      return
    }
    try modifyParent(of: path, operation: operation) { (parent) throws(PointerFailure) in
      try parent.insert(value, at: last)
    }
  }

  private mutating func remove(at path: JSONPointer, operation: Int) throws(JSONPatchError) -> JSONValue {
    guard let last = path.tokens.last else { throw .removesWholeDocument(operation: operation) }
    return try modifyParent(of: path, operation: operation) { (parent) throws(PointerFailure) in
      try parent.removeChild(at: last)
    }
  }

  private func read(_ path: JSONPointer, operation: Int) throws(JSONPatchError) -> JSONValue {
    do throws(PointerFailure) {
      return try value(at: path.tokens)
    } catch {
      throw JSONPatchError(error, operation: operation, path: path)
    }
  }

  private mutating func modifyParent<Result>(
    of path: JSONPointer, operation: Int, _ body: (inout JSONValue) throws(PointerFailure) -> Result
  ) throws(JSONPatchError) -> Result {
    do throws(PointerFailure) {
      return try modifyValue(at: path.tokens.dropLast(), body)
    } catch {
      throw JSONPatchError(error, operation: operation, path: path)
    }
  }

  // Each container edit below binds the payload, then sets `self` to null before changing it: that drops
  // the enum's reference, so the payload is uniquely owned and changes in place instead of being copied.

  private mutating func insert(_ value: JSONValue, at token: String) throws(PointerFailure) {
    switch self {
    case .object(var fields):
      self = .null
      fields[token] = value
      self = .object(fields)
    case .array(var elements):
      let index: Int
      switch ArrayPosition(token: token) {
      case .end: index = elements.count
      case .index(let position) where position <= elements.count: index = position
      case .index: throw .indexOutOfRange(count: elements.count)
      case nil: throw .invalidArrayIndex(token)
      }
      self = .null
      elements.insert(value, at: index)
      self = .array(elements)
    case .null, .bool, .number, .string:
      throw .notAContainer
    }
  }

  private mutating func removeChild(at token: String) throws(PointerFailure) -> JSONValue {
    switch self {
    case .object(var fields):
      guard let position = fields.index(forKey: token) else { throw .memberNotFound }
      self = .null
      let removed = fields.remove(at: position).value
      self = .object(fields)
      return removed
    case .array(var elements):
      let index = try Self.existingIndex(token, in: elements)
      self = .null
      let removed = elements.remove(at: index)
      self = .array(elements)
      return removed
    case .null, .bool, .number, .string:
      throw .notAContainer
    }
  }

  private mutating func replaceChild(at token: String, with value: JSONValue) throws(PointerFailure) {
    switch self {
    case .object(var fields):
      guard let position = fields.index(forKey: token) else { throw .memberNotFound }
      self = .null
      fields.values[position] = value
      self = .object(fields)
    case .array(var elements):
      let index = try Self.existingIndex(token, in: elements)
      self = .null
      elements[index] = value
      self = .array(elements)
    case .null, .bool, .number, .string:
      throw .notAContainer
    }
  }
}
