import Foundation

/// A scripted session: what a user types, line by line, plus `wait`. The format (README, "Scripted runs"):
///
/// ```
/// # comments and blank lines are skipped
/// Where is order 1042?   ← any other line is typed and entered: text is sent, /commands run
/// /drop
/// wait 5                 ← let 5 seconds pass on the demo's clock
/// wait                   ← let everything in flight finish (every line does this anyway)
/// type 1 Tell me more.   ← typed and entered, then only 1 second passes: the next line comes while the
///                          answer it started still streams
/// ```
struct DemoScript: Equatable {
  enum Step: Equatable {
    case type(String)
    case wait(seconds: Double?)
    /// Typed and entered, then only `seconds` pass, so the next line is typed while what it started goes on.
    case typeAndGoOn(String, seconds: Double)
  }

  struct Line: Equatable {
    var number: Int
    var text: String
    var step: Step
  }

  /// A line the script format does not allow, with its number, for "script.txt:3: …".
  struct Malformed: Error, Equatable, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "line \(line): \(reason)" }
  }

  var lines: [Line]

  init(_ text: String) throws(Malformed) {
    var lines: [Line] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = index + 1
      let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line == "wait" || line.hasPrefix("wait ") {
        let argument = line.dropFirst(4).trimmingCharacters(in: .whitespaces)
        if argument.isEmpty {
          lines.append(Line(number: number, text: line, step: .wait(seconds: nil)))
          continue
        }
        guard let seconds = Self.seconds(argument) else {
          throw Malformed(line: number, reason: "wait takes a number of seconds from 0 to 3600, not \"\(argument)\"")
        }
        lines.append(Line(number: number, text: line, step: .wait(seconds: seconds)))
        continue
      }
      if line == "type" || line.hasPrefix("type ") {
        let parts = line.dropFirst(4).trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
          .map(String.init)
        guard parts.count == 2, let seconds = Self.seconds(parts[0]) else {
          throw Malformed(line: number, reason: "type takes a number of seconds from 0 to 3600, then the line to type")
        }
        let typed = parts[1].trimmingCharacters(in: .whitespaces)
        try Self.checkCommand(typed, line: number)
        lines.append(Line(number: number, text: line, step: .typeAndGoOn(typed, seconds: seconds)))
        continue
      }
      try Self.checkCommand(line, line: number)
      lines.append(Line(number: number, text: line, step: .type(line)))
    }
    self.lines = lines
  }

  private static func seconds(_ text: String) -> Double? {
    guard let seconds = Double(text), seconds.isFinite, (0...3_600).contains(seconds) else { return nil }
    return seconds
  }

  /// A `/command` the demo does not have stops the script where it is written, not when it is reached.
  private static func checkCommand(_ typed: String, line: Int) throws(Malformed) {
    guard typed.hasPrefix("/") else { return }
    let name = typed.dropFirst().split(separator: " ").first.map(String.init) ?? ""
    guard commands.contains(name) else { throw Malformed(line: line, reason: "unknown command /\(name)") }
  }

  static let commands: Set<String> = Set([
    "new", "open", "older", "search", "retry", "discard", "regen", "edit", "prev", "next", "stop", "up", "down",
    "feedback", "ticket", "signin", "signout", "drop", "fail", "quit", "q", "help", "approve", "deny", "answer",
    "thoughts", "cut", "break", "queue", "unqueue", "now", "resume", "editq", "steer", "approvals", "revoke", "suggest",
  ]).union(ListCommand.names)
}
