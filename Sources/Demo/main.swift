import ConversationStore
import Foundation

// demo: the chat in a terminal, against a simulated agent. See `DemoArguments.usage` and the README.

/// Prints one clear line and exits non-zero: bad input never ends in a stack trace.
func fail(_ message: String, code: Int32 = 2) -> Never {
  FileHandle.standardError.write(Data("demo: \(message)\n".utf8))
  exit(code)
}

let arguments: DemoArguments
do {
  arguments = try DemoArguments(Array(CommandLine.arguments.dropFirst()))
} catch {
  fail(error.description)
}

/// Storage for this run: the chosen folder, the platform's, or none.
func storage(defaultingToMemory: Bool) -> ChatStorage? {
  if arguments.memory || (defaultingToMemory && arguments.dataDirectory == nil) { return nil }
  let root = arguments.dataDirectory ?? ChatStorage.defaultRoot(app: "conversation-store-demo")
  do {
    return try ChatStorage(root: root) { event in
      if case .movedAside(let kind, let file) = event {
        FileHandle.standardError.write(
          Data("demo: warning: \(file) was \(kind.rawValue); moved aside, starting clean\n".utf8))
      }
    }
  } catch {
    fail("cannot use the data folder \(root): \(error)")
  }
}

switch arguments.mode {
case .help:
  print(DemoArguments.usage)
case .decodeSSE:
  if let failure = StandardInputDecoder.run() { fail("cannot read stdin: \(failure)", code: 1) }
case .dump:
  guard let storage = storage(defaultingToMemory: false) else { fail("dump needs a data folder, not --memory") }
  do {
    print(try DemoDump.json(of: storage))
  } catch {
    fail("cannot read \(storage.root): \(error)")
  }
case .script(let path, let plain):
  guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read the script \(path)") }
  let script: DemoScript
  do {
    script = try DemoScript(String(decoding: data, as: UTF8.self))
  } catch {
    fail("\(path):\(error.line): \(error.reason)", code: 1)
  }
  let runner = ScriptRunner(
    script: script, plain: plain, seed: arguments.seed, storage: storage(defaultingToMemory: true),
    agent: arguments.agent, longHistory: arguments.longHistory,
    write: { FileHandle.standardOutput.write(Data($0.utf8)) })
  await runner.run()
case .interactive:
  guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else {
    fail("stdin and stdout must be a terminal; for scripts and CI use --script FILE (see --help)")
  }
  await InteractiveDemo.run(arguments: arguments, storage: storage(defaultingToMemory: false))
}
