import ConversationFixtures
import Foundation

// `fixtures check FILE...`: runs each golden fixture through its reducer (`ConversationReducer`, or
// `ClientReducer` for a fixture with `"reducer": "client"`); one line per step, then
// `N passed, N failed` (fixtures). Exits 1 when any fixture fails.
// `fixtures record FILE...`: rewrites each fixture's expected changes and effects from the reducer, for
// authoring; review the diff before committing it.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, ["check", "record"].contains(command), arguments.count > 1 else {
  FileHandle.standardError.write(Data("usage: fixtures check FILE... | fixtures record FILE...\n".utf8))
  exit(2)
}

var passed = 0
var failed = 0
for file in arguments.dropFirst() {
  let url = URL(fileURLWithPath: file)
  do {
    let fixture = try ConversationFixture.load(from: url)
    if command == "record" {
      try FixtureRunner.record(fixture).write(to: url)
      print("recorded \(file)")
      continue
    }
    let result = FixtureRunner.check(fixture)
    print("\(file): \(fixture.name)")
    for step in result.steps {
      print("  step \(step.index) \(step.passed ? "ok" : "FAILED"): \(step.actionName)")
      for difference in step.differences { print("    \(difference)") }
    }
    if let error = result.error { print("  FAILED: \(error)") }
    if result.passed { passed += 1 } else { failed += 1 }
  } catch {
    print("\(file): FAILED: \(error)")
    failed += 1
  }
}
if command == "check" {
  print("\(passed) passed, \(failed) failed")
  exit(failed == 0 ? 0 : 1)
}
