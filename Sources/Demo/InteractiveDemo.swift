import ChatHTTP
import ConversationStore
import Foundation

/// The interactive demo: full screen, raw keys, a frame redrawn (only where it changed) whenever the
/// session or the terminal's size changes; the terminal restored on quit, Ctrl-C and crash signals.
enum InteractiveDemo {
  static func run(arguments: DemoArguments, storage: ChatStorage?) async {
    let session: DemoSession
    if let agent = arguments.agent {
      // An agent server: each message is a request; the conversation lives here (these protocols keep no list).
      do {
        session = try DemoSession.agent(agent, environment: .live, storage: storage, user: arguments.user)
      } catch {
        fail("\(error)")
      }
    } else if let server = arguments.server {
      // A real server: the conversations are its; the user opens one from the list or starts a new one.
      let token = arguments.token
      let backend: HTTPChatBackend
      do {
        backend = try HTTPChatBackend(baseURL: server) { token }
      } catch {
        fail("\(error)")
      }
      session = DemoSession(
        backend: backend, agent: nil, environment: .live, storage: storage, user: arguments.user,
        workspace: "server \(server.absoluteString)")
    } else {
      let agent = SimulatedAgent(clock: SystemChatClock(), seed: arguments.seed)
      session = DemoSession(agent: agent, environment: .live, storage: storage, user: arguments.user)
      session.start(opening: LongHistory.opening(arguments.longHistory, in: storage, user: arguments.user))
    }
    TerminalSignals.installRestoringHandlers()
    guard FullScreen.enter() else {
      await session.close()
      fail("cannot switch the terminal to raw mode")
    }
    let color = ColorSupport.isEnabled()
    let writer = ScreenWriter { FileHandle.standardOutput.write(Data($0.utf8)) }
    let replyLayout = ReplyLayoutCache()
    func draw() {
      let size = TerminalSize.current()
      let screen = session.screen()
      writer.write(
        FrameRenderer.render(screen, width: size.width, height: size.height, color: color, replyLayout: replyLayout),
        cursor: FrameRenderer.cursor(screen, width: size.width, height: size.height))
    }
    draw()
    let redraws = Task {
      for await _ in session.redraws { draw() }
    }
    let resizes = Task {
      for await _ in TerminalResize.resizes() {
        writer.invalidate()
        draw()
      }
    }
    // A status line that counts down ("reconnecting in 3 s") needs a redraw even when nothing changes.
    let ticks = Task {
      while !Task.isCancelled {
        try? await Task.sleep(nanoseconds: 500_000_000)
        draw()
      }
    }
    keys: for await key in TerminalInput.keys() {
      switch key {
      case .controlC, .controlD: break keys
      case .enter:
        if session.screen().focus == .list {
          session.openSelected()
        } else if !session.enter() {
          break keys
        }
      case .tab: session.switchFocus()
      case .up: session.moveSelection(by: -1)
      case .down: session.moveSelection(by: 1)
      case .pageUp: session.submit("/older")
      case .escape: session.submit("/stop")
      case .controlR: session.submit("/thoughts")
      case .backspace: session.edit { if !$0.isEmpty { $0.removeLast() } }
      case .character(let character): session.edit { $0.append(character) }
      default: continue
      }
    }
    ticks.cancel()
    resizes.cancel()
    await session.close()
    redraws.cancel()
    FullScreen.leave()
  }
}
