import ConversationState
import Foundation
import Testing

/// One record of the vendored json-patch-tests suite, named by file and position so that a failure says
/// which record to look up.
struct JSONPatchConformanceRecord: Sendable, CustomTestStringConvertible {
  /// What the suite says applying the record's patch must do.
  enum Expectation: Sendable {
    /// The patched document.
    case result(JSONValue)
    /// An error, described in words that differ between implementations.
    case error(String)
  }

  /// How the suite means the record to be read.
  enum Kind: Sendable {
    /// A patch to apply to a document; `patch` stays raw JSON, since failing to decode it can be the
    /// error the record expects.
    case runnable(doc: JSONValue, patch: JSONValue, expectation: Expectation)
    /// `disabled: true`: skipped.
    case disabled
    /// Only a `comment`: nothing to run.
    case note
    /// None of the above: the vendored file is not what the tests were written for.
    case unrecognized
  }

  let file: String
  let index: Int
  let comment: String?
  let kind: Kind

  var testDescription: String { "\(file) #\(index): \(comment ?? "(no comment)")" }

  init(file: String, index: Int, json: JSONValue) {
    self.file = file
    self.index = index
    guard case .object(let fields) = json else {
      (comment, kind) = (nil, .unrecognized)
      return
    }
    if case .string(let comment) = fields["comment"] { self.comment = comment } else { self.comment = nil }
    switch (fields["doc"], fields["patch"], fields["expected"], fields["error"]) {
    case _ where fields["disabled"] == .bool(true):
      kind = .disabled
    case _ where fields.count == 1 && comment != nil:
      kind = .note
    case (let doc?, let patch?, let expected?, nil):
      kind = .runnable(doc: doc, patch: patch, expectation: .result(expected))
    case (let doc?, let patch?, nil, .string(let error)?):
      kind = .runnable(doc: doc, patch: patch, expectation: .error(error))
    default:
      kind = .unrecognized
    }
  }
}

/// The vendored suite: `Conformance/json-patch` next to this test folder, so a clone in any folder finds it.
enum JSONPatchConformance {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Conformance/json-patch")

  static let fileNames = ["tests.json", "spec_tests.json"]

  /// Each file's records, or why it could not be read (which the count test reports).
  static let files: [String: Result<[JSONPatchConformanceRecord], any Error>] = Dictionary(
    uniqueKeysWithValues: fileNames.map { name in
      let records = Result { () throws -> [JSONPatchConformanceRecord] in
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let json = try JSONDecoder().decode([JSONValue].self, from: data)
        return json.enumerated().map { JSONPatchConformanceRecord(file: name, index: $0.offset, json: $0.element) }
      }
      return (name, records)
    })

  static let records: [JSONPatchConformanceRecord] = fileNames.flatMap { (try? files[$0]?.get()) ?? [] }

  /// The records to run: all but the disabled ones and the notes, which the count test accounts for.
  /// (Left out rather than cancelled, since Swift Testing reports a cancelled test case as passed.)
  static let toRun = records.filter {
    switch $0.kind {
    case .runnable, .unrecognized: return true
    case .disabled, .note: return false
    }
  }
}

/// What a vendored file holds; the README says 95 + 17 records, 92 + 16 of them runnable.
struct JSONPatchSuiteCounts: Sendable, CustomTestStringConvertible {
  let file: String
  let records: Int
  let runnable: Int
  let disabled: Int
  let notes: Int

  var testDescription: String { file }
}

@Suite("JSON Patch conformance (json-patch-tests)")
struct JSONPatchConformanceTests {
  @Test(
    "each vendored file holds the records counted here, and every one is runnable, disabled or a note",
    arguments: [
      JSONPatchSuiteCounts(file: "tests.json", records: 95, runnable: 92, disabled: 3, notes: 0),
      JSONPatchSuiteCounts(file: "spec_tests.json", records: 17, runnable: 16, disabled: 1, notes: 0),
    ])
  func counts(_ expected: JSONPatchSuiteCounts) throws {
    let loaded = try #require(JSONPatchConformance.files[expected.file])
    let records: [JSONPatchConformanceRecord]
    do {
      records = try loaded.get()
    } catch {
      Issue.record("could not read \(JSONPatchConformance.directory.path)/\(expected.file): \(error)")
      return
    }
    #expect(records.count == expected.records, "\(expected.file) holds \(records.count) records")
    var runnable = 0
    var disabled = 0
    var notes = 0
    var unrecognized: [Int] = []
    for record in records {
      switch record.kind {
      case .runnable: runnable += 1
      case .disabled: disabled += 1
      case .note: notes += 1
      case .unrecognized: unrecognized.append(record.index)
      }
    }
    #expect(
      unrecognized.isEmpty,
      """
      records \(unrecognized) of \(expected.file) are neither runnable (doc, patch, and expected or error), \
      disabled nor a note
      """)
    #expect(
      (runnable, disabled, notes) == (expected.runnable, expected.disabled, expected.notes),
      "\(expected.file): \(runnable) runnable, \(disabled) disabled, \(notes) notes; was the vendored copy refreshed?")
  }

  @Test(
    "every record that is not disabled or a note applies as the suite expects", arguments: JSONPatchConformance.toRun)
  func record(_ record: JSONPatchConformanceRecord) throws {
    switch record.kind {
    case .disabled, .note:
      Issue.record("disabled records and notes are not to be run")
    case .unrecognized:
      Issue.record("neither runnable, disabled nor a note")
    case .runnable(let doc, let rawPatch, .result(let expected)):
      let patch = try JSONDecoder().decode([JSONPatchOperation].self, from: JSONEncoder().encode(rawPatch))
      #expect(try doc.applying(patch) == expected)
    case .runnable(let doc, let rawPatch, .error(let reason)):
      let decoded = Result {
        try JSONDecoder().decode([JSONPatchOperation].self, from: JSONEncoder().encode(rawPatch))
      }
      // A patch that cannot be decoded (an unknown op, a missing member) never reaches the document: that
      // is the error the record expects.
      guard case .success(let patch) = decoded else { return }
      var document = doc
      #expect(throws: JSONPatchError.self, "expected an error: \(reason)") { try document.apply(patch) }
      #expect(document == doc, "the failed patch changed the document")
    }
  }
}
