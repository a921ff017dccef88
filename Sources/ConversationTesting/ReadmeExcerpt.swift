package import Foundation

/// Keeps documentation examples honest: the code between two marker comments of a test file (which the test
/// compiles and runs) must appear verbatim in a Markdown file, so the README can never show code that does
/// not build.
///
/// ```swift
/// // README-STORAGE-BEGIN
/// func restore() {
///   // the code the README shows
/// }
/// // README-STORAGE-END
///
/// @Test func readmeShowsIt() throws {
///   #expect(try ReadmeExcerpt(marker: "README-STORAGE", in: #filePath).isShown(in: "README.md"))
/// }
/// ```
package struct ReadmeExcerpt: Sendable {
  /// The code between `// <marker>-BEGIN` and `// <marker>-END`.
  package let code: String
  /// The package root: the nearest directory above the source file holding a `Package.swift`.
  package let packageRoot: URL

  package struct MissingMarker: Error, CustomStringConvertible {
    package let description: String
  }

  /// Reads the excerpt marked `marker` from `sourceFile` (pass `#filePath`).
  package init(marker: String, in sourceFile: String) throws {
    let source = try String(contentsOfFile: sourceFile, encoding: .utf8)
    guard let begin = source.range(of: "// \(marker)-BEGIN\n"),
      let end = source.range(of: "// \(marker)-END", range: begin.upperBound..<source.endIndex)
    else { throw MissingMarker(description: "\(sourceFile) has no \(marker)-BEGIN … \(marker)-END block") }
    code = String(source[begin.upperBound..<end.lowerBound])
    packageRoot = Self.packageRoot(above: sourceFile)
  }

  /// The nearest directory above `sourceFile` (pass `#filePath`) that holds a `Package.swift`; `/` when none
  /// does.
  package static func packageRoot(above sourceFile: String) -> URL {
    var directory = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
      directory.path != "/"
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory
  }

  /// Whether the Markdown file at `path` (relative to the package root) contains the excerpt verbatim.
  package func isShown(in path: String) throws -> Bool {
    try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8).contains(code)
  }
}
