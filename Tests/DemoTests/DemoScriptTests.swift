import ChatOpenAI
import ConversationStore
import Foundation
import Testing

@testable import Demo

@Suite("Demo scripts")
struct DemoScriptTests {
  @Test("a script is what the user types, with comments, blank lines, waits, and lines typed while one goes on")
  func parses() throws {
    let script = try DemoScript(
      """
      # a comment

      Where is order 1042?
        /drop
      wait 2.5
      wait
      type 0.5 And the invoice?
      type 0  /stop
      """)

    #expect(
      script.lines == [
        .init(number: 3, text: "Where is order 1042?", step: .type("Where is order 1042?")),
        .init(number: 4, text: "/drop", step: .type("/drop")),
        .init(number: 5, text: "wait 2.5", step: .wait(seconds: 2.5)),
        .init(number: 6, text: "wait", step: .wait(seconds: nil)),
        .init(number: 7, text: "type 0.5 And the invoice?", step: .typeAndGoOn("And the invoice?", seconds: 0.5)),
        .init(number: 8, text: "type 0  /stop", step: .typeAndGoOn("/stop", seconds: 0)),
      ])
  }

  @Test(
    "a bad line is refused with its number and why",
    arguments: [
      ("hello\n/teleport home", 2, "unknown command /teleport"),
      ("wait forever", 1, "wait takes a number of seconds from 0 to 3600, not \"forever\""),
      ("\n\nwait -1", 3, "wait takes a number of seconds from 0 to 3600, not \"-1\""),
      ("type", 1, "type takes a number of seconds from 0 to 3600, then the line to type"),
      ("type 1", 1, "type takes a number of seconds from 0 to 3600, then the line to type"),
      ("type soon And the invoice?", 1, "type takes a number of seconds from 0 to 3600, then the line to type"),
      ("type 3601 And the invoice?", 1, "type takes a number of seconds from 0 to 3600, then the line to type"),
      ("hello\ntype 1 /teleport home", 2, "unknown command /teleport"),
    ])
  func refusesBadLines(text: String, line: Int, reason: String) {
    #expect(throws: DemoScript.Malformed(line: line, reason: reason)) { try DemoScript(text) }
  }
}

@Suite("Demo arguments")
struct DemoArgumentsTests {
  @Test("flags set the mode and the storage")
  func flags() throws {
    #expect(try DemoArguments([]).mode == .interactive)
    #expect(try DemoArguments(["--script", "a.script", "--plain"]).mode == .script(path: "a.script", plain: true))
    #expect(try DemoArguments(["dump", "--data-dir", "/tmp/x"]).dataDirectory == "/tmp/x")
    #expect(try DemoArguments(["--memory", "--seed", "7"]).seed == 7)
  }

  @Test(
    "each agent flag names its server, the OpenAI one with its API and model in any order",
    arguments: [
      (["--agui", "http://127.0.0.1:1/agent"], AgentEndpoint.agui(URL(string: "http://127.0.0.1:1/agent")!)),
      (["--aisdk", "http://127.0.0.1:1/chat"], .aisdk(URL(string: "http://127.0.0.1:1/chat")!)),
      (
        ["--openai", "http://127.0.0.1:1/v1"],
        .openai(URL(string: "http://127.0.0.1:1/v1")!, api: .chatCompletions, model: "gpt-4o-mini")
      ),
      (
        ["--model", "llama3", "--openai", "http://127.0.0.1:1/v1", "--responses"],
        .openai(URL(string: "http://127.0.0.1:1/v1")!, api: .responses, model: "llama3")
      ),
    ])
  func agents(_ arguments: [String], _ expected: AgentEndpoint) throws {
    #expect(try DemoArguments(arguments).agent == expected)
    #expect(try DemoArguments(["--script", "a.script"] + arguments).agent == expected)
  }

  @Test(
    "bad arguments are one clear line",
    arguments: [
      (["--colour"], "unknown argument \"--colour\" (try --help)"),
      (["--seed", "many"], "--seed takes a whole number, not \"many\""),
      (["--script"], "--script needs a value"),
      (["--memory", "--data-dir", "x"], "--memory and --data-dir exclude each other"),
      (["--plain"], "--plain only applies to --script runs"),
      (["--agui", "http://a/agent", "--aisdk", "http://b/chat"], "--agui and --aisdk exclude each other"),
      (["--aisdk", "chat"], "--aisdk takes a URL such as http://127.0.0.1:8765/vercel/v6/chat, not \"chat\""),
      (["--model", "m"], "--model and --responses go with --openai"),
      (["--aisdk", "http://b/chat", "--responses"], "--model and --responses go with --openai"),
      (["--server", "http://s/v1", "--openai", "http://o/v1"], "--server and --openai exclude each other"),
      (["dump", "--aisdk", "http://b/chat"], "dump does not take --aisdk"),
    ])
  func refuses(arguments: [String], message: String) {
    #expect(throws: DemoArguments.Invalid.self) { try DemoArguments(arguments) }
    do {
      _ = try DemoArguments(arguments)
    } catch {
      #expect(error.description == message)
    }
  }
}

@Suite("Answering the agent from the demo")
struct DemoAnswerCommandTests {
  static let approval = InputRequest(id: "approve-1", kind: .toolApproval("call-1"), message: "Cancel order 1042?")
  static let question = InputRequest(id: "address-1", kind: .question(["type": "string"]), message: "Where to?")

  @Test(
    "each command answers the request it fits, and only that",
    arguments: [
      ("approve", nil, approval, InputAnswer.approved),
      ("deny", "too late", approval, .denied(reason: "too late")),
      ("deny", nil, approval, .denied(reason: nil)),
      ("answer", "12 Harbour Street", question, .answered("12 Harbour Street")),
      ("deny", nil, question, .declined),
      ("approve", nil, question, nil),
      ("answer", "yes", approval, nil),
      ("answer", nil, question, nil),
    ] as [(String, String?, InputRequest, InputAnswer?)])
  func answers(command: String, argument: String?, request: InputRequest, expected: InputAnswer?) {
    #expect(DemoSession.answer(command, argument, to: request) == expected)
  }
}
