import ChatOpenAI
import ConversationState
import ConversationStore
import Foundation
import Persistence

/// What an agent request costs to build from a stored conversation: O(context), not O(history).
enum AgentContextWorkloads {
  /// Builds `requests` Chat Completions requests under a 50-message policy on a stored `history`-message
  /// conversation, reading the whole context from the archive (an empty window: the case where memory holds
  /// none of it, as after a relaunch that opened another page), then encoding it. The file is opened
  /// outside the timer.
  static func context(history: Int, requests: Int) -> Workload {
    let label = DeltaWorkloads.label(history)
    let scope = LocalFirstWorkloads.stored("agent-context\(history)", history: history)
    let reader = StorageWorkloads.file(scope, "bench").historyReader
    let policy = AgentContextPolicy.newest(50)
    return Workload(name: "agent.context.h\(label)") {
      var count = 0
      let nanoseconds = await Harness.timeAsync {
        for _ in 0..<requests {
          let window = AgentContextWindow(messages: [], storedNeeded: 50)
          guard
            let context = try? await AgentContextBuilder.build(
              window, of: "bench", ending: .everything, policy: policy, storage: reader)
          else { fatalError("the context could not be read") }
          count = OpenAITranscript(context: context, api: .chatCompletions).items.count
        }
      }
      precondition(count >= 50, "encoded \(count) items for 50 messages")
      return (requests, nanoseconds)
    }
  }
}
