import ConversationStore
import Foundation
import Testing

@testable import Demo

/// The README's picture of the demo is the renderer's own output: drawn here from a screen of the demo and
/// compared with the committed file, so a change to the demo's look that is not drawn again fails. Run with
/// `RECORD_PICTURES=1 swift test --filter DemoPictureTests` to draw it again.
@Suite("The README's picture of the demo")
struct DemoPictureTests {
  static let picture = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Docs/Pictures/demo.svg")

  @Test("the committed picture is what the renderer draws of Ada answering while a tool runs and a follow-up waits")
  func pictureIsCurrent() throws {
    // Given the demo's screen with a list, an answer streaming while a tool runs and a follow-up waiting,
    // at 100 × 24
    var screen = ScreenFixtures.streaming
    screen.conversation?.followUps.turns = [
      OutgoingMessage(clientID: "q-1", text: "And can it go to my office instead?", createdAt: .story(3))
    ]
    let lines = FrameRenderer.styled(screen, width: 100, height: 24)

    // When it is drawn as a picture
    let drawn = FrameSVG.svg(lines, columns: 100)

    // Then it is the committed one, text for text
    if ProcessInfo.processInfo.environment["RECORD_PICTURES"] == "1" {
      try FileManager.default.createDirectory(
        at: Self.picture.deletingLastPathComponent(), withIntermediateDirectories: true)
      try drawn.write(to: Self.picture, atomically: true, encoding: .utf8)
    }
    let committed = try String(contentsOf: Self.picture, encoding: .utf8)
    #expect(
      committed == drawn, "Docs/Pictures/demo.svg is stale: RECORD_PICTURES=1 swift test --filter DemoPictureTests")
    // And every row of the frame is in it
    for line in lines where !line.text.trimmingCharacters(in: .whitespaces).isEmpty {
      let firstWord = line.text.split(separator: " ").first.map(String.init) ?? ""
      #expect(drawn.contains(firstWord.replacingOccurrences(of: "&", with: "&amp;")), "\(line.text)")
    }
  }
}
