import Foundation

/// The command line: `demo [--data-dir DIR | --memory] [--seed N] [--user NAME] [--server URL | AGENT]` where
/// AGENT is `--agui URL`, `--aisdk URL` or `--openai URL [--model M] [--responses]`,
/// `demo --script FILE [--plain] …`, `demo dump [--data-dir DIR]`, `demo decode-sse`, `demo --help`.
struct DemoArguments: Equatable {
  enum Mode: Equatable {
    case interactive
    case script(path: String, plain: Bool)
    case dump
    /// `decode-sse`: a `text/event-stream` on stdin, one JSON line per event on stdout.
    case decodeSSE
    case help
  }

  var mode: Mode = .interactive
  /// nil: the platform's data folder (interactive, dump) or memory (scripts, so runs repeat exactly).
  var dataDirectory: String?
  var memory = false
  var seed: UInt64 = 1
  var user: String?
  /// `--server URL`: the interactive demo talks to this server (`HTTPChatBackend`) instead of the
  /// simulated agent.
  var server: URL?
  /// `--agui URL`, `--aisdk URL`, `--openai URL`: the demo talks to this agent server, interactively or in a
  /// script.
  var agent: AgentEndpoint?
  /// `--token T`: the bearer token sent to `server`.
  var token = "secret"
  /// `--long-history N`: open a stored conversation of N messages (written once into the data folder).
  var longHistory: Int?

  struct Invalid: Error, CustomStringConvertible {
    var description: String
  }

  init(_ arguments: [String]) throws(Invalid) {
    var remaining = arguments[...]
    var plain = false
    var script: String?
    var model: String?
    var responses = false
    var agentFlag: String?
    func agentURL(_ flag: String, _ text: String, example: String) throws(Invalid) -> URL {
      guard agentFlag == nil || agentFlag == flag else {
        throw Invalid(description: "\(agentFlag ?? "") and \(flag) exclude each other")
      }
      agentFlag = flag
      guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
        throw Invalid(description: "\(flag) takes a URL such as \(example), not \"\(text)\"")
      }
      return url
    }
    if remaining.first == "decode-sse" {
      // It reads stdin and nothing else, so any option is a mistake worth naming.
      if let extra = remaining.dropFirst().first, extra != "--help", extra != "-h" {
        throw Invalid(
          description: "decode-sse takes no arguments, it reads the event stream on stdin (got \"\(extra)\")")
      }
      mode = remaining.count == 1 ? .decodeSSE : .help
      return
    }
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
      case "--server":
        let text = try value(after: argument)
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
          throw Invalid(description: "--server takes a URL such as http://127.0.0.1:8080/v1, not \"\(text)\"")
        }
        server = url
      case "--agui":
        agent = .agui(try agentURL(argument, try value(after: argument), example: "http://127.0.0.1:8765/agent"))
      case "--aisdk":
        agent = .aisdk(
          try agentURL(argument, try value(after: argument), example: "http://127.0.0.1:8765/vercel/v6/chat"))
      case "--openai":
        agent = .openai(
          try agentURL(argument, try value(after: argument), example: "http://127.0.0.1:8000/v1"),
          api: .chatCompletions,
          model: "")
      case "--model": model = try value(after: argument)
      case "--responses": responses = true
      case "--token": token = try value(after: argument)
      case "--long-history":
        let text = try value(after: argument)
        guard let count = Int(text), LongHistory.limit.contains(count) else {
          throw Invalid(description: "--long-history takes a count from 1 to 1000000, not \"\(text)\"")
        }
        longHistory = count
      case "--script": script = try value(after: argument)
      case "--plain": plain = true
      case "--help", "-h": mode = .help
      default: throw Invalid(description: "unknown argument \"\(argument)\" (try --help)")
      }
    }
    if memory && dataDirectory != nil { throw Invalid(description: "--memory and --data-dir exclude each other") }
    if longHistory != nil && (memory || (script != nil && dataDirectory == nil)) {
      throw Invalid(description: "--long-history stores a conversation: it needs a data folder (--data-dir DIR)")
    }
    if longHistory != nil && (server != nil || agentFlag != nil) {
      throw Invalid(description: "--long-history goes with the simulated agent")
    }
    if server != nil && mode != .interactive && mode != .help {
      throw Invalid(description: "--server is for the interactive demo only")
    }
    if case .openai(let url, _, _)? = agent {
      agent = .openai(url, api: responses ? .responses : .chatCompletions, model: model ?? "gpt-4o-mini")
    } else if responses || model != nil {
      throw Invalid(description: "--model and --responses go with --openai")
    }
    if let agentFlag, server != nil { throw Invalid(description: "--server and \(agentFlag) exclude each other") }
    if let agentFlag, mode == .dump { throw Invalid(description: "dump does not take \(agentFlag)") }
    if let script {
      guard mode != .dump else { throw Invalid(description: "dump does not take --script") }
      if mode != .help { mode = .script(path: script, plain: plain) }
    } else if plain {
      throw Invalid(description: "--plain only applies to --script runs")
    }
  }

  static let usage = """
    usage: demo [--data-dir DIR | --memory] [--seed N] [--user NAME] [--long-history N]
                [--server URL [--token T] | AGENT]
           demo --script FILE [--plain] [--seed N] [--data-dir DIR] [--long-history N] [AGENT]
           demo dump [--data-dir DIR]
           demo decode-sse < STREAM

    The chat in your terminal, against a simulated agent. Type to chat; /help lists the commands.
      --data-dir DIR  keep conversations, drafts and queued messages in DIR (default: the platform data folder)
      --memory        keep nothing between runs
      --seed N        make the simulated agent's choices repeat (default 1)
      --user NAME     start signed in as NAME (default: a guest)
      --server URL    chat with a server speaking Docs/HTTP-PROTOCOL.md instead of the simulated agent
    AGENT, an agent server to chat with instead of the simulated agent (also in a script):
      --agui URL      an AG-UI 1.0 agent endpoint (Pydantic AI, LangGraph, Mastra…)
      --aisdk URL     an AI SDK UI message stream route (what useChat calls; Pydantic AI's VercelAIAdapter)
      --openai URL    an OpenAI-compatible API root such as http://127.0.0.1:8000/v1 (OPENAI_API_KEY is sent
                      as the bearer token when set), with --model M (default gpt-4o-mini) and --responses
                      for the Responses API instead of Chat Completions
      --token T       the bearer token for --server (default "secret", the reference server's)
      --long-history N  open a stored conversation of N messages (written once into the data folder): it
                      opens at its newest page at once, /older pages it from disk, /search finds in it
      --script FILE   run a scripted session and print each frame (80x24); --plain prints a transcript
      dump            print what is stored, as JSON
      decode-sse      decode a text/event-stream on stdin as it arrives (e.g. from curl -N): one JSON line per
                      event, {"event", "data", "id"}, then {"retry": [...], "lastEventId"} at its end
    """
}
