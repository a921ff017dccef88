import ConversationTesting
package import Foundation

/// The built `demo`, run as a user runs it against a producer.
package enum DemoRun {
  /// Runs `demo arguments` from `directory` (the repository by default) and returns its exit status and
  /// what it printed; nil when the demo is not built next to the tests. Reads and waits off the cooperative
  /// pool: a script takes seconds of real time.
  package static func run(_ arguments: [String], in directory: URL = AgentProducers.repository) async throws
    -> (status: Int32, output: String)?
  {
    guard let demo = BuiltProduct.url(named: "demo") else { return nil }
    let process = Process()
    process.executableURL = demo
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = await offThePool {
      let bytes = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: bytes, as: UTF8.self)
    }
    return (process.terminationStatus, printed)
  }
}
