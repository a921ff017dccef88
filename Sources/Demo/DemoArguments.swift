import Foundation

/// The command line: `demo [--data-dir DIR | --memory] [--seed N] [--user NAME]`,
/// `demo --script FILE [--plain] …`, `demo dump [--data-dir DIR]`, `demo --help`.
struct DemoArguments: Equatable {
  enum Mode: Equatable {
    case interactive
    case script(path: String, plain: Bool)
    case dump
    case help
  }

  var mode: Mode = .interactive
  /// nil: the platform's data folder (interactive, dump) or memory (scripts, so runs repeat exactly).
  var dataDirectory: String?
  var memory = false
  var seed: UInt64 = 1
  var user: String?

  struct Invalid: Error, CustomStringConvertible {
    var description: String
  }

  init(_ arguments: [String]) throws(Invalid) {
    var remaining = arguments[...]
    var plain = false
    var script: String?
    if remaining.first == "dump" {
      mode = .dump
      remaining = remaining.dropFirst()
    }
    func value(after flag: String) throws(Invalid) -> String {
      guard let value = remaining.first, !value.hasPrefix("--") else {
        throw Invalid(description: "\(flag) needs a value")
      }
      remaining = remaining.dropFirst()
      return value
    }
    while let argument = remaining.first {
      remaining = remaining.dropFirst()
      switch argument {
      case "--data-dir": dataDirectory = try value(after: argument)
      case "--memory": memory = true
      case "--seed":
        let text = try value(after: argument)
        guard let number = UInt64(text) else {
          throw Invalid(description: "--seed takes a whole number, not \"\(text)\"")
        }
        seed = number
      case "--user": user = try value(after: argument)
      case "--script": script = try value(after: argument)
      case "--plain": plain = true
      case "--help", "-h": mode = .help
      default: throw Invalid(description: "unknown argument \"\(argument)\" (try --help)")
      }
    }
    if memory && dataDirectory != nil { throw Invalid(description: "--memory and --data-dir exclude each other") }
    if let script {
      guard mode != .dump else { throw Invalid(description: "dump does not take --script") }
      if mode != .help { mode = .script(path: script, plain: plain) }
    } else if plain {
      throw Invalid(description: "--plain only applies to --script runs")
    }
  }

  static let usage = """
    usage: demo [--data-dir DIR | --memory] [--seed N] [--user NAME]
           demo --script FILE [--plain] [--seed N] [--data-dir DIR]
           demo dump [--data-dir DIR]

    The chat in your terminal, against a simulated agent. Type to chat; /help lists the commands.
      --data-dir DIR  keep conversations, drafts and queued messages in DIR (default: the platform data folder)
      --memory        keep nothing between runs
      --seed N        make the simulated agent's choices repeat (default 1)
      --user NAME     start signed in as NAME (default: a guest)
      --script FILE   run a scripted session and print each frame (80x24); --plain prints a transcript
      dump            print what is stored, as JSON
    """
}
