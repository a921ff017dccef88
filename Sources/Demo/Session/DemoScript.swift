import Foundation

/// A scripted session: what a user types, line by line, plus `wait`. The format (README, "Scripted runs"):
///
/// ```
/// # comments and blank lines are skipped
/// Where is order 1042?   ← any other line is typed and entered: text is sent, /commands run
/// /drop
/// wait 5                 ← let 5 seconds pass on the demo's clock
/// wait                   ← let everything in flight finish (every line does this anyway)
/// ```
struct DemoScript: Equatable {
  enum Step: Equatable {
    case type(String)
    case wait(seconds: Double?)
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
        guard let seconds = Double(argument), seconds.isFinite, (0...3_600).contains(seconds) else {
          throw Malformed(line: number, reason: "wait takes a number of seconds from 0 to 3600, not \"\(argument)\"")
        }
        lines.append(Line(number: number, text: line, step: .wait(seconds: seconds)))
        continue
      }
      if line.hasPrefix("/") {
        let name = line.dropFirst().split(separator: " ").first.map(String.init) ?? ""
        guard DemoScript.commands.contains(name) else {
          throw Malformed(line: number, reason: "unknown command /\(name)")
        }
      }
      lines.append(Line(number: number, text: line, step: .type(line)))
    }
    self.lines = lines
  }

  static let commands: Set<String> = [
    "new", "open", "older", "search", "retry", "discard", "regen", "edit", "prev", "next", "stop", "up", "down",
    "feedback", "ticket", "signin", "signout", "drop", "fail", "quit", "q", "help", "approve", "deny", "answer",
    "thoughts", "cut", "break",
  ]
}
