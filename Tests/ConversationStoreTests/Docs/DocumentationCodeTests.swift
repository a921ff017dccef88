import ConversationTesting
import Foundation
import Testing

/// The README, the DocC articles, `Docs/` and the doc comments of `Sources/` show only code a test compiles: each
/// Swift block of a document or of a `///` comment (its `import` lines aside) is part of an excerpt between
/// `// NAME-BEGIN` and `// NAME-END` in a test or an example, and each documentation excerpt (`README-…`, `DOC-…`
/// for documents, `DOCC-…` for doc comments) is shown where it belongs, so neither side drifts from the other.
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

  /// The Swift blocks of a Markdown text, their leading `import` lines removed, each with the line its fence is on.
  static func swiftBlocks(of text: String) -> [(line: Int, code: String)] {
    text.matches(of: /```swift\n((?s).*?)```/).map { match in
      let lines = match.1.split(separator: "\n", omittingEmptySubsequences: false)
      let body = lines.drop { $0.hasPrefix("import ") || $0.isEmpty }
      let line = text[..<match.range.lowerBound].count { $0 == "\n" } + 1
      return (line, body.joined(separator: "\n"))
    }
  }

  /// Whether a test or an example compiles `block`: it is part of some excerpt.
  static func isCompiled(_ block: String) -> Bool {
    excerpts.contains { $0.code.contains(block) }
  }

  /// Every Swift source file of the library and its tools, whose doc comments may show code.
  static let sourceFiles = files(under: "Sources", ending: ".swift").sorted()

  /// The doc comments of a Swift source as Markdown: each `///` line without its indentation and `/// ` (or
  /// `///`), so a block keeps its own relative indentation; every other line blank, so line numbers still hold.
  static func docComments(of source: String) -> String {
    source.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      let text = line.drop { $0 == " " || $0 == "\t" }
      guard text.hasPrefix("///") else { return "" }
      let comment = text.dropFirst(3)
      return String(comment.hasPrefix(" ") ? comment.dropFirst() : comment)
    }.joined(separator: "\n")
  }

  /// The doc comments of the source file at `path`, as `docComments(of:)` shows them.
  static func docComments(ofFile path: String) throws -> String {
    docComments(of: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
  }

  @Test("the documents and the excerpts are found (a moved folder must not make these checks vacuous)")
  func foundBoth() {
    #expect(Self.documents.contains("README.md"))
    #expect(Self.documents.contains { $0.hasSuffix("ConversationStore.docc/GettingStarted.md") })
    #expect(Self.excerpts.count >= 15)
  }

  @Test("the doc comments' Swift blocks are found (a moved folder must not make these checks vacuous)")
  func foundDocCommentBlocks() throws {
    let blocks = try Self.sourceFiles.flatMap { Self.swiftBlocks(of: try Self.docComments(ofFile: $0)) }
    #expect(blocks.count >= 80)
    #expect(Self.excerpts.count { $0.marker.hasPrefix("DOCC-") } >= 80)
  }

  @Test("every Swift block of a document is code a test compiles", arguments: documents)
  func everyBlockIsCompiled(_ document: String) throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
    // A package manifest is not test code: `.ci/newcomer.sh` builds the README's in a new package.
    let blocks = Self.swiftBlocks(of: text).filter { !$0.code.isEmpty && !$0.code.hasPrefix("// swift-tools-version:") }
    for block in blocks {
      #expect(
        Self.isCompiled(block.code), "\(document):\(block.line) shows Swift that no test compiles:\n\(block.code)")
    }
  }

  @Test("every Swift block of a doc comment is code a test compiles", arguments: sourceFiles)
  func everyDocCommentBlockIsCompiled(_ file: String) throws {
    for block in Self.swiftBlocks(of: try Self.docComments(ofFile: file)) {
      #expect(
        !block.code.isEmpty && Self.isCompiled(block.code),
        "\(file):\(block.line) shows Swift in a doc comment that no test compiles:\n\(block.code)")
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

  @Test("every doc-comment excerpt is shown in a doc comment, verbatim")
  func everyDocCommentExcerptIsShown() throws {
    let comments = try Self.sourceFiles.map { try Self.docComments(ofFile: $0) }
    for excerpt in Self.excerpts where excerpt.marker.hasPrefix("DOCC-") {
      #expect(
        comments.contains { $0.contains(excerpt.code) }, "\(excerpt.marker) is shown in no doc comment as written")
    }
  }
}
