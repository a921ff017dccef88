import Testing

@testable import Demo

@Suite("/help")
struct DemoHelpTests {
  @Test("each line fits the smallest frame, as the notice row cuts a longer one")
  func fitsTheFrame() {
    for line in DemoSession.help.split(separator: "\n") {
      #expect(TextWidth.columns(of: line) <= ScriptRunner.width, "\(line)")
    }
  }

  @Test("it names every command a user can type")
  func namesEveryCommand() {
    // /q is /quit's short form, and /help is what shows it.
    for command in DemoScript.commands.subtracting(["q", "help"]) {
      #expect(DemoSession.help.contains("/\(command)"), "/\(command) is missing from /help")
    }
  }
}
