import ConversationTesting
import Foundation
import Testing

/// `ChatBackend` gives most of its requirements defaults, so a `CompanionBackend` that does not forward a new
/// one compiles and silently answers with the default (this is how resuming a reply was once lost for every
/// client store). The compiler cannot see that; this test reads the two declarations and can.
@Suite("CompanionBackend forwards every ChatBackend call that is not a run")
struct CompanionForwardingTests {
  /// The calls a protocol backend makes itself: its runs, and what only a run can answer.
  static let runs: Set<String> = [
    "send", "regenerate", "continueRun", "resumeReply", "submitToolResult", "requestAgentState",
  ]

  static let root = ReadmeExcerpt.packageRoot(above: #filePath)

  /// The names of the functions and properties declared in `path` between `start` and the next line that is
  /// just `}`.
  static func declarations(in path: String, after start: String) throws -> Set<String> {
    let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    let body = try #require(text.range(of: start).map { text[$0.upperBound...] })
    let block = body.components(separatedBy: "\n}\n").first ?? ""
    let names = block.matches(of: /\n\s+(?:public )?(?:func|var) (\w+)/).map { String($0.1) }
    return Set(names)
  }

  @Test("each ChatBackend requirement is forwarded to the companion, or is a run the protocol backend makes")
  func everyCallIsForwarded() throws {
    // Given the protocol's requirements and what the companion extension implements.
    let required = try Self.declarations(
      in: "Sources/ConversationStore/Runtime/ChatBackend.swift", after: "public protocol ChatBackend")
    let forwarded = try Self.declarations(
      in: "Sources/ChatHTTP/CompanionBackend.swift", after: "extension CompanionBackend {")

    // Then the reading found both (a moved file must not make this vacuous), and nothing is left to a default.
    #expect(required.isSuperset(of: ["send", "history", "realtime", "uploadOutbox"]))
    #expect(forwarded.contains("history"))
    let missed = required.subtracting(forwarded).subtracting(Self.runs)
    #expect(missed.isEmpty, "CompanionBackend does not forward \(missed.sorted()): add it to CompanionBackend.swift")
  }
}
