import ConversationState
import Foundation
import Testing

private func pointer(_ text: String) throws(JSONPatchError) -> JSONPointer { try JSONPointer(parsing: text) }

/// A patch that must fail, named briefly so the test list does not print a 100,000-segment pointer.
struct FailingPatchCase: Sendable, CustomTestStringConvertible {
  let name: String
  let document: JSONValue
  let patch: [JSONPatchOperation]
  let error: JSONPatchError

  var testDescription: String { name }
}

/// A value a test operation compares with the stored one, and whether JSON calls them equal.
struct EqualityCase: Sendable, CustomTestStringConvertible {
  let stored: JSONValue
  let tested: JSONValue
  let equal: Bool

  var testDescription: String { "\(stored) \(equal ? "==" : "!=") \(tested)" }
}

/// The shared agent state of a conversation, as an AG-UI `STATE_SNAPSHOT` would set it.
private let agentState: JSONValue = [
  "plan": ["steps": ["search flights", "compare prices"], "status": "running"],
  "a/b": "slash", "m~n": "tilde", "seats": [1, 2, 3],
]

@Suite("JSON Patch")
struct JSONPatchTests {
  @Test("a state delta edits the shared agent state in place of a new snapshot")
  func stateDelta() throws {
    // Given the agent's state
    var state = agentState
    // When a STATE_DELTA arrives
    let delta = #"""
      [{"op": "replace", "path": "/plan/status", "value": "done"},
       {"op": "add", "path": "/plan/steps/-", "value": "book"},
       {"op": "copy", "from": "/plan/steps/2", "path": "/booked"},
       {"op": "test", "path": "/seats", "value": [1.0, 2, 3]}]
      """#
    try state.apply(JSONDecoder().decode([JSONPatchOperation].self, from: Data(delta.utf8)))
    // Then exactly those members changed
    let expected: JSONValue = [
      "plan": ["steps": ["search flights", "compare prices", "book"], "status": "done"], "booked": "book",
      "a/b": "slash", "m~n": "tilde", "seats": [1, 2, 3],
    ]
    #expect(state == expected)
  }

  @Test(
    "a failing third operation leaves the first two unapplied",
    arguments: [
      ("a test that fails", JSONPatchOperation.test(at: try pointer("/plan/status"), value: "done")),
      ("a remove of a missing member", .remove(at: try pointer("/plan/owner"))),
      ("an add past the end", .add(at: try pointer("/seats/9"), value: 9)),
      ("a move into its own child", .move(from: try pointer("/plan"), to: try pointer("/plan/steps/0"))),
      ("a NaN value", .replace(at: try pointer("/seats/0"), value: .number(.nan))),
    ])
  func atomicity(_ failure: String, third: JSONPatchOperation) throws {
    // Given the agent's state
    var state = agentState
    // When a patch's first two operations would succeed and its third fails
    let patch: [JSONPatchOperation] = [
      .replace(at: try pointer("/plan/status"), value: "paused"),
      .remove(at: try pointer("/seats/0")),
      third,
    ]
    // Then the error names the third operation, and neither copy nor original kept anything
    #expect(throws: JSONPatchError.self, "\(failure)") { _ = try agentState.applying(patch) }
    do {
      try state.apply(patch)
      Issue.record("\(failure) was applied")
    } catch {
      #expect(error.operationIndex == 2, "\(failure): \(error)")
    }
    #expect(state == agentState)
  }

  @Test(
    "pointers unescape ~1 then ~0, and print back the same",
    arguments: [
      ("", [String]()), ("/", [""]), ("//", ["", ""]), ("/a~1b", ["a/b"]), ("/m~0n", ["m~n"]),
      ("/~01", ["~1"]), ("/~10", ["/0"]), ("/~0~1~0", ["~/~"]), ("/plan/steps/0", ["plan", "steps", "0"]),
      ("/ü/😀", ["ü", "😀"]),
    ])
  func escaping(_ text: String, tokens: [String]) throws {
    let parsed = try JSONPointer(parsing: text)
    #expect(parsed.tokens == tokens)
    #expect(parsed.description == text)
    #expect(JSONPointer(tokens: tokens) == parsed)
  }

  @Test(
    "a malformed pointer is a typed error that says where",
    arguments: [
      ("a", JSONPointer.SyntaxProblem.missingLeadingSlash), ("~0", .missingLeadingSlash),
      ("/~", .invalidEscape(utf8Offset: 1)), ("/a~2", .invalidEscape(utf8Offset: 2)),
      ("/ü~", .invalidEscape(utf8Offset: 3)), ("/ok/~x", .invalidEscape(utf8Offset: 4)),
    ])
  func malformedPointer(_ text: String, problem: JSONPointer.SyntaxProblem) {
    #expect(throws: JSONPatchError.invalidPointer(text, problem: problem)) { try JSONPointer(parsing: text) }
  }

  @Test("an escaped member is reached through its pointer")
  func escapedMembers() throws {
    // Given members whose names hold "/" and "~"
    let state = agentState
    // When they are replaced through escaped pointers
    let patched = try state.applying([
      .replace(at: try pointer("/a~1b"), value: "s"), .replace(at: try pointer("/m~0n"), value: "t"),
    ])
    // Then those members changed, and no member was made from the unescaped halves
    #expect(patched["a/b"] == "s" && patched["m~n"] == "t")
    #expect(patched["a"] == nil && patched["m"] == nil)
  }

  @Test("\"-\" appends for add, even levels down, and names nothing for any other op")
  func endOfArray() throws {
    // Given seats and nested plan steps
    let state = agentState
    // When the end is added to
    let appended = try state.applying([
      .add(at: try pointer("/seats/-"), value: 4), .add(at: try pointer("/plan/steps/-"), value: ["nested"]),
    ])
    // Then the values land last, unflattened
    #expect(appended["seats"] == [1, 2, 3, 4])
    #expect(appended["plan"]?["steps"] == ["search flights", "compare prices", ["nested"]])
    // And "-" is out of range where an element must exist
    let elsewhere: [JSONPatchOperation] = [
      .remove(at: try pointer("/seats/-")), .replace(at: try pointer("/seats/-"), value: 0),
      .test(at: try pointer("/seats/-"), value: 3), .copy(from: try pointer("/seats/-"), to: try pointer("/x")),
      .add(at: try pointer("/seats/-/0"), value: 0),
    ]
    for operation in elsewhere {
      #expect(throws: JSONPatchError.indexOutOfRange(operation: 0, path: operation.from ?? operation.path, count: 3)) {
        try state.applying([operation])
      }
    }
  }

  @Test("deep paths are edited, moved and tested 200 levels down")
  func deepPaths() throws {
    // Given a document nested 200 objects deep, built by a patch one level at a time
    var state: JSONValue = [:]
    var tokens: [String] = []
    for depth in 0..<200 {
      tokens.append("level\(depth)")
      try state.apply([.add(at: JSONPointer(tokens: tokens), value: [:])])
    }
    let deepest = JSONPointer(tokens: tokens + ["leaf"])
    // When a leaf is added at the bottom, moved to the top and the bottom is tested
    try state.apply([.add(at: deepest, value: "here")])
    try state.apply([
      .test(at: deepest, value: "here"), .move(from: deepest, to: try pointer("/leaf")),
      .test(at: JSONPointer(tokens: tokens), value: [:]),
    ])
    // Then the leaf is at the top and the chain is intact
    #expect(state["leaf"] == "here")
    #expect(throws: JSONPatchError.pathNotFound(operation: 0, path: deepest)) {
      try state.applying([.remove(at: deepest)])
    }
  }

  @Test("a 10,000-element array takes a patch of 100 operations")
  func largeArray() throws {
    // Given a state holding 10,000 items
    let items = (0..<10_000).map { JSONValue.number(Double($0)) }
    var state: JSONValue = ["items": .array(items)]
    // When 100 operations edit it: replaces, inserts, removes, and tests of what they did
    var expected = items
    var patch: [JSONPatchOperation] = []
    for step in 0..<25 {
      let index = step * 397
      patch.append(.replace(at: JSONPointer(tokens: ["items", "\(index)"]), value: .string("r\(step)")))
      expected[index] = .string("r\(step)")
      patch.append(.add(at: JSONPointer(tokens: ["items", "\(index + 1)"]), value: .string("a\(step)")))
      expected.insert(.string("a\(step)"), at: index + 1)
      patch.append(.remove(at: JSONPointer(tokens: ["items", "\(index + 2)"])))
      expected.remove(at: index + 2)
      patch.append(.test(at: JSONPointer(tokens: ["items", "\(index + 1)"]), value: .string("a\(step)")))
    }
    try state.apply(patch)
    // Then the array is what the same edits make of a plain Swift array
    #expect(patch.count == 100)
    #expect(state == ["items": .array(expected)])
  }

  static let hugePointer = JSONPointer(tokens: Array(repeating: "a", count: 100_000))
  static let hugeIndex = "99999999999999999999"

  @Test(
    "hostile input is a typed error and leaves the state alone",
    arguments: [
      FailingPatchCase(
        name: "a pointer of 100,000 segments through missing members", document: ["b": 1],
        patch: [.add(at: JSONPatchTests.hugePointer, value: 1)],
        error: .pathNotFound(operation: 0, path: JSONPatchTests.hugePointer)),
      FailingPatchCase(
        name: "a pointer of 100,000 segments through a number", document: ["a": 1],
        patch: [.remove(at: JSONPatchTests.hugePointer)],
        error: .notAContainer(operation: 0, path: JSONPatchTests.hugePointer)),
      FailingPatchCase(
        name: "an index too large for Int, added", document: [1, 2],
        patch: [.add(at: JSONPointer(tokens: [JSONPatchTests.hugeIndex]), value: 0)],
        error: .indexOutOfRange(operation: 0, path: JSONPointer(tokens: [JSONPatchTests.hugeIndex]), count: 2)),
      FailingPatchCase(
        name: "an index too large for Int, removed", document: [1, 2],
        patch: [.remove(at: JSONPointer(tokens: [JSONPatchTests.hugeIndex]))],
        error: .indexOutOfRange(operation: 0, path: JSONPointer(tokens: [JSONPatchTests.hugeIndex]), count: 2)),
      FailingPatchCase(
        name: "an index of Int.max + 1", document: [1, 2],
        patch: [.test(at: JSONPointer(tokens: ["9223372036854775808"]), value: 0)],
        error: .indexOutOfRange(operation: 0, path: JSONPointer(tokens: ["9223372036854775808"]), count: 2)),
      FailingPatchCase(
        name: "an index of Int.max", document: [1, 2],
        patch: [.add(at: JSONPointer(tokens: ["\(Int.max)"]), value: 0)],
        error: .indexOutOfRange(operation: 0, path: JSONPointer(tokens: ["\(Int.max)"]), count: 2)),
      FailingPatchCase(
        name: "a negative index", document: [1, 2], patch: [.remove(at: JSONPointer(tokens: ["-1"]))],
        error: .invalidArrayIndex(operation: 0, path: JSONPointer(tokens: ["-1"]), token: "-1")),
      FailingPatchCase(
        name: "an index with a leading zero", document: [1, 2], patch: [.remove(at: JSONPointer(tokens: ["01"]))],
        error: .invalidArrayIndex(operation: 0, path: JSONPointer(tokens: ["01"]), token: "01")),
      FailingPatchCase(
        name: "an index in Arabic-Indic digits", document: [1, 2], patch: [.remove(at: JSONPointer(tokens: ["١"]))],
        error: .invalidArrayIndex(operation: 0, path: JSONPointer(tokens: ["١"]), token: "١")),
      FailingPatchCase(
        name: "an empty index", document: [1, 2], patch: [.add(at: JSONPointer(tokens: [""]), value: 0)],
        error: .invalidArrayIndex(operation: 0, path: JSONPointer(tokens: [""]), token: "")),
      FailingPatchCase(
        name: "an infinite value", document: ["a": 1],
        patch: [.add(at: JSONPointer(tokens: ["b"]), value: [.number(.infinity)])],
        error: .nonFiniteNumber(operation: 0, path: JSONPointer(tokens: ["b"]))),
      FailingPatchCase(
        name: "a NaN tested", document: ["a": 1],
        patch: [.test(at: JSONPointer(tokens: ["a"]), value: .number(.nan))],
        error: .nonFiniteNumber(operation: 0, path: JSONPointer(tokens: ["a"]))),
      FailingPatchCase(
        name: "a remove of the whole document", document: ["a": 1], patch: [.remove(at: .root)],
        error: .removesWholeDocument(operation: 0)),
      FailingPatchCase(
        name: "a move of the whole document into itself", document: ["a": 1],
        patch: [.move(from: .root, to: JSONPointer(tokens: ["a"]))],
        error: .moveIntoOwnChild(operation: 0, from: .root, path: JSONPointer(tokens: ["a"]))),
    ])
  func hostileInput(_ failing: FailingPatchCase) {
    var state = failing.document
    #expect(throws: failing.error) { try state.apply(failing.patch) }
    #expect(state == failing.document)
  }

  @Test("a pointer string of 100,000 segments parses, or fails at its one bad escape")
  func hugePointerString() throws {
    let text = String(repeating: "/a~1", count: 100_000)
    #expect(try JSONPointer(parsing: text).tokens.count == 100_000)
    #expect(
      throws: JSONPatchError.invalidPointer(text + "/~", problem: .invalidEscape(utf8Offset: text.utf8.count + 1))
    ) {
      try JSONPointer(parsing: text + "/~")
    }
  }

  @Test(
    "test compares as JSON: numbers numerically, objects in any order, arrays in order, types strictly",
    arguments: [
      EqualityCase(stored: 1, tested: 1.0, equal: true),
      EqualityCase(stored: ["a": 1, "b": [2]], tested: ["b": [2.0], "a": 1], equal: true),
      EqualityCase(stored: 0, tested: -0.0, equal: true), EqualityCase(stored: [1, 2], tested: [2, 1], equal: false),
      EqualityCase(stored: 10, tested: "10", equal: false), EqualityCase(stored: nil, tested: false, equal: false),
      EqualityCase(stored: [:], tested: [], equal: false),
    ])
  func testEquality(_ comparison: EqualityCase) throws {
    // Given a stored value
    let state: JSONValue = ["x": comparison.stored]
    // When a test names another
    let result = Result { () throws(JSONPatchError) in
      try state.applying([.test(at: try pointer("/x"), value: comparison.tested)])
    }
    // Then it passes, leaving the state as it was, exactly when the two are equal as JSON
    switch result {
    case .success(let patched): #expect(comparison.equal && patched == state)
    case .failure(let error):
      #expect(
        !comparison.equal
          && error
            == .testFailed(
              operation: 0, path: try pointer("/x"), expected: comparison.tested, actual: comparison.stored)
      )
    }
  }

  @Test("a move onto itself changes nothing, even of the whole document, but its source must exist")
  func moveOntoItself() throws {
    let state = agentState
    #expect(try state.applying([.move(from: .root, to: .root)]) == state)
    #expect(try state.applying([.move(from: try pointer("/seats/1"), to: try pointer("/seats/1"))]) == state)
    #expect(throws: JSONPatchError.pathNotFound(operation: 0, path: try pointer("/gone"))) {
      try state.applying([.move(from: try pointer("/gone"), to: try pointer("/gone"))])
    }
  }

  @Test("an operation decodes from the standard form and encodes back to it")
  func codable() throws {
    // Given operations as a server writes them, one with a null value and one with a stray member
    let json = #"""
      [{"op":"add","path":"/a","value":null},{"op":"remove","path":"/b","value":"ignored"},
       {"op":"move","from":"/c","path":"/d"}]
      """#
    let patch = try JSONDecoder().decode([JSONPatchOperation].self, from: Data(json.utf8))
    // Then null is a value, the stray member is dropped, and encoding gives the same operations
    #expect(
      patch == [
        .add(at: try pointer("/a"), value: nil), .remove(at: try pointer("/b")),
        .move(from: try pointer("/c"), to: try pointer("/d")),
      ])
    #expect(try JSONDecoder().decode([JSONPatchOperation].self, from: JSONEncoder().encode(patch)) == patch)
  }

  @Test(
    "an operation that names an unknown op, lacks a member it needs or has a bad pointer does not decode",
    arguments: [
      #"{"op":"spam","path":"/a"}"#, #"{"op":"add","path":"/a"}"#, #"{"op":"test","path":"/a"}"#,
      #"{"op":"copy","path":"/a"}"#, #"{"op":"remove"}"#, #"{"path":"/a"}"#, #"{"op":"remove","path":null}"#,
      #"{"op":"remove","path":"a"}"#, #"{"op":"move","from":"/~2","path":"/a"}"#,
    ])
  func undecodable(_ json: String) {
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONPatchOperation.self, from: Data(json.utf8)) }
  }
}
