package import Foundation

/// Finds an executable product of this package built next to the running tests (`swift build` puts every
/// product in `.build/<configuration>/`), so a test can run the real binary as a user would.
///
/// ```swift
/// let demo = try #require(BuiltProduct.url(named: "demo"))
/// ```
package enum BuiltProduct {
  /// The product's executable, or nil when it was not built.
  package static func url(named name: String) -> URL? {
    var starts = [URL(fileURLWithPath: CommandLine.arguments[0]), Bundle.main.bundleURL]
    if let executable = Bundle.main.executableURL { starts.append(executable) }
    starts += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map(\.bundleURL)
    for start in starts {
      var directory = start.deletingLastPathComponent()
      // The bundle is .build/<config>/X.xctest on Linux and .build/<config>/X.xctest/Contents/MacOS/X on macOS.
      for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
      }
    }
    return nil
  }
}
