import Testing

@testable import Demo

@Suite("When to color")
struct ColorSupportTests {
  @Test(
    "color unless NO_COLOR is set to something, TERM is unset or dumb, or the output is not a terminal",
    arguments: [
      (["TERM": "xterm-256color"], true, true),
      (["TERM": "xterm-256color", "NO_COLOR": "1"], true, false),
      (["TERM": "xterm-256color", "NO_COLOR": "0"], true, false),
      (["TERM": "xterm-256color", "NO_COLOR": ""], true, true),
      (["TERM": "dumb"], true, false),
      ([:], true, false),
      (["TERM": ""], true, false),
      (["TERM": "xterm-256color"], false, false),
    ] as [([String: String], Bool, Bool)])
  func colorDecision(environment: [String: String], isTerminal: Bool, expected: Bool) {
    #expect(ColorSupport.isEnabled(environment: environment, outputIsTerminal: isTerminal) == expected)
  }
}
