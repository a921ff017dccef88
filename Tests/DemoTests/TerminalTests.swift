import ConversationTesting
import Foundation
import Testing

@testable import Demo

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("The terminal layer, on pseudo-terminals and pipes")
struct TerminalTests {
  @Test("the size comes from the terminal; 80x24 when there is none or it reports none")
  func size() throws {
    let pty = try PseudoTerminal()
    #expect(TerminalSize.current(fileDescriptor: pty.terminal) == .fallback)  // a new pty reports 0 x 0
    pty.resize(width: 132, height: 43)
    #expect(TerminalSize.current(fileDescriptor: pty.terminal) == TerminalSize(width: 132, height: 43))
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    #expect(TerminalSize.current(fileDescriptor: ends[0]) == TerminalSize(width: 80, height: 24))
  }

  @Test(
    "keys are read as they come: a sequence, a lone Esc after a pause, a character split across writes",
    .hangGuard)
  func input() async throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]) }
    var keys = TerminalInput.keys(fileDescriptor: ends[0], escapeDelay: 30).makeAsyncIterator()
    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } }

    send(Array("a\u{1B}[A".utf8))
    #expect(await keys.next() == .character("a"))
    #expect(await keys.next() == .up)
    send([0x1B])
    #expect(await keys.next() == .escape)
    send([0xE6, 0x97])
    try await Task.sleep(for: .milliseconds(100))  // longer than the Esc delay: half a character still waits
    send([0xA5])
    #expect(await keys.next() == .character("日"))
    close(ends[1])
    #expect(await keys.next() == nil)
  }

  @Test("a resize signal arrives on the stream", .hangGuard)
  func resize() async {
    var resizes = TerminalResize.resizes().makeAsyncIterator()
    // Sent until it is seen: the signal source may not be armed the moment it is created.
    let sender = Task {
      while !Task.isCancelled {
        kill(getpid(), SIGWINCH)
        try? await Task.sleep(for: .milliseconds(50))
      }
    }
    defer { sender.cancel() }
    #expect(await resizes.next() != nil)
  }
}
