import ConversationTesting
import Foundation
import Testing

/// The README, the DocC articles and `Docs/` show only code a test compiles: each Swift block of a document
/// (its `import` lines aside) is part of an excerpt between `// NAME-BEGIN` and `// NAME-END` in a test or an
/// example, and each documentation excerpt (`README-…`, `DOC-…`) is shown in some document, so neither side
/// drifts from the other.
@Suite("Documentation code")
struct DocumentationCodeTests {
  static let root = ReadmeExcerpt.packageRoot(above: #filePath)

  /// Every Markdown document a reader meets: the README, `Docs/` and the DocC catalogs.
  static let documents: [String] = {
    var paths = ["README.md"]
    paths += files(under: "Docs", ending: ".md")
    paths += files(under: "Sources", ending: ".md").filter { $0.contains(".docc/") }
    return paths.sorted()
  }()

  /// Every marked excerpt of the tests and examples, by marker.
  static let excerpts: [(marker: String, code: String)] = {
    var found: [(marker: String, code: String)] = []
    let sources = files(under: "Tests", ending: ".swift") + files(under: "Examples", ending: ".swift")
    let pattern = /\/\/ ([A-Z0-9-]+)-BEGIN\n((?s).*?)\/\/ \1-END/
    for path in sources {
      guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { continue }
      for match in text.matches(of: pattern) { found.append((String(match.1), dedented(String(match.2)))) }
    }
    return found
  }()

  /// `code` without the indentation all its lines share (an excerpt inside a function is shown flush left).
  static func dedented(_ code: String) -> String {
    let lines = code.split(separator: "\n", omittingEmptySubsequences: false)
    let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
  }

  static func files(under folder: String, ending suffix: String) -> [String] {
    let base = root.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
    return walker.compactMap { $0 as? String }
      .filter { $0.hasSuffix(suffix) && !$0.contains(".build/") }
      .map { "\(folder)/\($0)" }
  }

  /// The Swift blocks of a Markdown text, their leading `import` lines removed.
  static func swiftBlocks(of text: String) -> [String] {
    text.matches(of: /```swift\n((?s).*?)```/).map { match in
      let lines = match.1.split(separator: "\n", omittingEmptySubsequences: false)
      let body = lines.drop { $0.hasPrefix("import ") || $0.isEmpty }
      return body.joined(separator: "\n")
    }
  }

  @Test("the documents and the excerpts are found (a moved folder must not make these checks vacuous)")
  func foundBoth() {
    #expect(Self.documents.contains("README.md"))
    #expect(Self.documents.contains { $0.hasSuffix("ConversationStore.docc/GettingStarted.md") })
    #expect(Self.excerpts.count >= 15)
  }

  @Test("every Swift block of a document is code a test compiles", arguments: documents)
  func everyBlockIsCompiled(_ document: String) throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
    // A package manifest is not test code: `.ci/newcomer.sh` builds the README's in a new package.
    for block in Self.swiftBlocks(of: text) where !block.isEmpty && !block.hasPrefix("// swift-tools-version:") {
      let compiled = Self.excerpts.contains { $0.code.contains(block) }
      #expect(compiled, "\(document) shows Swift that no test compiles:\n\(block)")
    }
  }

  @Test("every documentation excerpt is shown in a document, verbatim")
  func everyExcerptIsShown() throws {
    let texts = try Self.documents.map {
      try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8)
    }
    for excerpt in Self.excerpts where excerpt.marker.hasPrefix("README-") || excerpt.marker.hasPrefix("DOC-") {
      #expect(texts.contains { $0.contains(excerpt.code) }, "\(excerpt.marker) is shown in no document as written")
    }
  }
}
