import ConversationTesting
import Foundation

extension SSEConformanceCase {
  /// The suite, read in place from the decoder's tests rather than copied, so there is one copy to refresh.
  static let suiteFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("ServerSentEventsTests/Conformance/sse/cases.json")

  static let suite = load(from: suiteFile)
}
