import ConversationStore
import ConversationTesting
import Foundation

/// Runs a `DemoScript` on a virtual clock: each line is typed, then time moves on until everything in
/// flight has finished (or a `wait N` has passed), then the frame (or the transcript's new lines) is
/// printed. With the same script and seed the output is the same, byte for byte.
struct ScriptRunner {
  let script: DemoScript
  let plain: Bool
  let seed: UInt64
  let storage: ChatStorage?
  /// The agent server to run the script against (`--agui`, `--aisdk`, `--openai`), instead of the simulated
  /// agent.
  var agent: AgentEndpoint? = nil
  /// `--long-history N`: the stored conversation of N messages to open instead of the welcome.
  var longHistory: Int? = nil
  let write: @Sendable (String) -> Void

  /// The size frames are rendered at: the smallest the demo supports.
  static let width = 80
  static let height = 24
  /// Keeps a streamed reply's wrapping between frames, as the interactive demo does, so the scripted frames
  /// (which tests compare as text) go through the same path.
  private let replyLayout = ReplyLayoutCache()

  func run() async {
    // A data folder the script ran on before holds that run's messages: this run's IDs and times must be new
    // (a reused client ID is a message already sent). Each run on one folder is numbered, so the output is
    // still the same for the same script, seed and run.
    let run = storage.map { Self.nextRun(in: $0.root) } ?? 0
    // 2026-01-01, any fixed time; a day later for each earlier run on the folder.
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600 + Double(run) * 86_400))
    // Jitter is fixed: stores and the client draw it concurrently, so a sequence would reach them in any order.
    var environment = StoreEnvironment.deterministic(clock: clock, jitter: 0.5)
    if run > 0 {
      let counted = environment.makeID
      environment.makeID = { "run\(run)-\(counted())" }
    }
    let session: DemoSession
    if let agent {
      do {
        session = try DemoSession.agent(agent, environment: environment, storage: storage, user: nil)
      } catch {
        write("demo: \(error)\n")
        return
      }
    } else {
      session = DemoSession(
        agent: SimulatedAgent(clock: clock, seed: seed), environment: environment, storage: storage, user: nil)
      session.start(opening: LongHistory.opening(longHistory, in: storage, user: nil))
    }
    var transcript = Transcript()
    await settle(session, clock)
    emit(session, &transcript, heading: "start")
    for line in script.lines {
      var keepGoing = true
      switch line.step {
      case .type(let text):
        keepGoing = session.submit(text)
        await settle(session, clock)
      case .typeAndGoOn(let text, let seconds):
        keepGoing = session.submit(text)
        await pass(seconds, session, clock)
        // `pass` lets tasks run before each tenth, not after the last: what that tenth made due runs before the
        // frame, or the frame would depend on how the last tenth fell.
        await drain(session)
      case .wait(let seconds):
        if let seconds { await pass(seconds, session, clock) }
        await settle(session, clock)
      }
      emit(session, &transcript, heading: "\(line.number): \(line.text)")
      if !keepGoing {
        await session.close()
        return
      }
    }
    await session.close()
  }

  /// How many scripts ran on the data folder at `root` before this one; counts this one.
  static func nextRun(in root: String) -> Int {
    let path = URL(fileURLWithPath: root).appendingPathComponent("demo-script-runs").path
    let earlier = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0) } ?? 0
    try? String(earlier + 1).write(toFile: path, atomically: true, encoding: .utf8)
    return earlier
  }

  private func emit(_ session: DemoSession, _ transcript: inout Transcript, heading: String) {
    let screen = session.screen()
    if plain {
      let lines = transcript.lines(for: screen)
      if !lines.isEmpty { write(lines.joined(separator: "\n") + "\n") }
    } else {
      let frame = FrameRenderer.render(
        screen, width: Self.width, height: Self.height, color: false, replyLayout: replyLayout)
      write("── \(heading) " + String(repeating: "─", count: max(0, Self.width - heading.count - 4)) + "\n")
      write(frame.joined(separator: "\n") + "\n")
    }
  }

  /// Lets `seconds` of virtual time pass, a tenth at a time, each step only once everything due has run.
  private func pass(_ seconds: Double, _ session: DemoSession, _ clock: TestClock) async {
    var elapsed = 0.0
    while elapsed < seconds {
      await drain(session)
      clock.advance(by: 0.1)
      elapsed += 0.1
    }
  }

  /// Moves time on, a tenth at a time, until the session has nothing in flight (at most two virtual minutes,
  /// so a script can never hang). Time moves only when nothing is left to run at the current instant, so
  /// what happens at which virtual time does not depend on how fast this machine runs the tasks.
  private func settle(_ session: DemoSession, _ clock: TestClock) async {
    var elapsed = 0.0
    while elapsed < 120 {
      await drain(session)
      if session.isSettled { return }
      clock.advance(by: 0.1)
      elapsed += 0.1
    }
  }

  /// Lets the session's tasks run until nothing has changed for several rounds in a row and every open
  /// conversation's follower has caught up: a conversation's snapshot reaches the list only after its write
  /// to disk, which on a loaded machine can outlast a few quiet rounds, and a frame drawn then would lack the
  /// list's new preview.
  private func drain(_ session: DemoSession) async {
    var quietRounds = 0
    var last = fingerprint(session)
    while quietRounds < 5 {
      await letTasksRun()
      await session.client.settled()
      let now = fingerprint(session)
      let quiet = now == last && session.client.isCaughtUp && session.searchesInFlight == 0
      quietRounds = quiet ? quietRounds + 1 : 0
      last = now
    }
  }

  private func fingerprint(_ session: DemoSession) -> [UInt64] {
    [session.client.list.version, UInt64(session.agent?.pendingWork ?? 0)] + session.openVersions
  }

  private func letTasksRun() async {
    for _ in 0..<20 { await Task.yield() }
    try? await Task.sleep(nanoseconds: 2_000_000)
  }
}
