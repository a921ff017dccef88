import CGtk
import ConversationStore
import Foundation

// gtk-chat [--self-test [--screenshot PATH]]
//
// The main thread runs GTK's main loop from here to the end; Swift tasks run on the cooperative pool and
// come back to this thread through `GLibMainLoop` (see there and `MainLoopBinding`).

let arguments = Array(CommandLine.arguments.dropFirst())
let isSelfTest = arguments.contains("--self-test")
let screenshotPath = arguments.firstIndex(of: "--screenshot").flatMap {
  arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
}
if let unknown = arguments.first(where: { $0.hasPrefix("-") && !["--self-test", "--screenshot"].contains($0) }) {
  FileHandle.standardError.write(
    Data("gtk-chat: unknown option \(unknown)\nusage: gtk-chat [--self-test [--screenshot PATH]]\n".utf8))
  exit(64)
}

// Headless runs have no session bus for the accessibility bridge; without this GTK warns that it found none.
// And with no GPU behind Xvfb, GL rendering is software (llvmpipe) redrawing the whole window each frame;
// cairo redraws only what changed. Either can be chosen with GSK_RENDERER; the test reports which it used.
if isSelfTest {
  setenv("GTK_A11Y", "none", 0)
  setenv("GSK_RENDERER", "cairo", 0)
}
guard gtk_init_check() != 0 else {
  FileHandle.standardError.write(Data("gtk-chat: cannot open a display (under CI: xvfb-run -a gtk-chat …)\n".utf8))
  exit(69)
}

let agent = ScriptedAgent()
let client = ChatClient(backend: agent.backend, options: ChatClientOptions(workspace: "gtk-chat"))
client.list.send(.load(pageSize: 30))
let window = ChatWindow(client: client, agent: agent)
let mainLoop = g_main_loop_new(nil, 0)!
// Closing the window ends the program.
connect(UnsafeMutableRawPointer(window.window), "destroy", to: window) { _, _ in exit(0) }
window.present()

if isSelfTest {
  let test = SelfTest(window: window, screenshotPath: screenshotPath)
  // Detached: a task started here would inherit the main actor, whose queue nobody drains while GTK's
  // loop owns the main thread. The test comes back to the main thread through `GLibMainLoop.run`.
  Task.detached {
    do {
      print(try await test.run())
      exit(0)
    } catch {
      FileHandle.standardError.write(Data("gtk-chat self-test FAILED: \(error)\n".utf8))
      exit(1)
    }
  }
}
g_main_loop_run(mainLoop)
