package import ConversationState
package import ConversationStore
import ConversationTesting
package import Foundation

/// The story every agent backend must pass: a user talks, quits, relaunches, opens the conversation and
/// goes on; the agent must be sent what the user sees. Each step runs a `ChatClient` with storage in
/// `folder`, as an app does, and returns what the stores showed.
package struct RelaunchStory {
  package let folder: URL
  /// A fresh backend for each launch (an app builds its objects again after a relaunch).
  package let backend: @Sendable () throws -> any ChatBackend
  package let tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler]

  package init(
    backend: @escaping @Sendable () throws -> any ChatBackend,
    tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  ) {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("relaunch-\(UUID().uuidString)")
    self.backend = backend
    self.tools = tools
  }

  /// A client on the story's storage.
  package func launch() throws -> ChatClient {
    try ChatClient(
      backend: backend(), identity: UserIdentity(userID: "zed"),
      options: ChatClientOptions(storage: ChatStorage(root: folder.path)), tools: tools)
  }

  /// First launch: sends `text` in a new conversation, waits until the answer has ended and is stored, and
  /// quits. Returns the conversation's ID and what it showed.
  /// With `settled` false it does not wait for work in flight to end (an app tool still running);
  /// `beforeQuit` runs once the answer has ended, before the client closes.
  package func firstLaunch(
    _ text: String, settled: Bool = true, beforeQuit: @Sendable () async -> Void = {},
    until ended: @escaping @Sendable (ConversationState) -> Bool
  ) async throws -> (ConversationID, ConversationState) {
    let client = try launch()
    let chat = client.newConversation()
    chat.sendMessage(text)
    guard
      let state = await chat.state(
        within: 60, where: { $0.conversationID != nil && ended($0) && (!settled || $0.isSettled) }),
      let id = state.conversationID
    else {
      await client.close()
      throw RelaunchStoryError("the first launch's answer never ended: \(chat.state.messages.map(\.reply))")
    }
    await beforeQuit()
    await client.close()
    return (id, state)
  }

  /// A later launch: opens `id` restored from storage, runs `step` on its store, and quits.
  package func relaunch<T: Sendable>(
    _ id: ConversationID, _ step: @Sendable (ChatStore) async throws -> T
  ) async throws -> T {
    let client = try launch()
    let chat = client.conversation(id)
    guard await chat.state(within: 30, where: { !$0.isRestoring && !$0.messages.isEmpty }) != nil else {
      await client.close()
      throw RelaunchStoryError("the relaunch did not restore \(id.rawValue)")
    }
    do {
      let result = try await step(chat)
      await client.close()
      return result
    } catch {
      await client.close()
      throw error
    }
  }

  /// A later launch that opens `id` and sends `text`: the state once its answer completed (nil after a
  /// minute).
  package func relaunchAndSend(_ id: ConversationID, _ text: String) async throws -> ConversationState? {
    try await relaunch(id) { chat in
      let count = chat.state.messages.count + 2
      chat.sendMessage(text)
      return await chat.state(
        within: 60, where: { $0.messages.count == count && $0.messages.last?.reply == .completed })
    }
  }

  /// The approval story: the first launch sends `text`, whose answer asks for an approval, and quits; a
  /// relaunch approves it. Returns the conversation, the request answered, and the state once the answer
  /// completed (nil after a minute).
  package func approvalAcrossRelaunch(_ text: String) async throws -> (
    id: ConversationID, request: InputRequest, done: ConversationState?
  ) {
    let (id, waiting) = try await firstLaunch(text) {
      if case .awaitingInput = $0.messages.last?.reply { return true }
      return false
    }
    guard case .awaitingInput(let requests)? = waiting.messages.last?.reply, let request = requests.first else {
      throw RelaunchStoryError("the answer does not wait: \(String(describing: waiting.messages.last?.reply))")
    }
    let done = try await relaunch(id) { chat in
      chat.send(.answerInput(request.id, .approved))
      return await chat.state(within: 60, where: { $0.messages.last?.reply == .completed && $0.isSettled })
    }
    return (id, request, done)
  }

  /// The remembered-approval story's first launch: sends `text`, whose answer asks for an approval, approves
  /// it remembering it (`memory`: for the conversation unless said), waits until the answer completed, and
  /// quits. Returns the conversation's ID and what it showed.
  package func firstLaunchRemembering(_ text: String, _ memory: ApprovalMemory = .conversation) async throws -> (
    ConversationID, ConversationState
  ) {
    let client = try launch()
    let chat = client.newConversation()
    chat.sendMessage(text)
    guard let asked = await chat.waiting(2)?.waitingRequests.first else {
      await client.close()
      throw RelaunchStoryError("the answer does not wait: \(String(describing: chat.state.messages.last?.reply))")
    }
    chat.send(.approve(asked.id, remembering: memory, at: Date()))
    guard let done = await chat.completed(2), let id = done.conversationID else {
      await client.close()
      throw RelaunchStoryError("the approved answer never completed: \(chat.state.messages.map(\.reply))")
    }
    await client.close()
    return (id, done)
  }

  /// The regeneration story: a later launch regenerates the last answer of `id`. Returns the state once a
  /// new answer replaced it (nil after a minute).
  package func regenerateAfterRelaunch(_ id: ConversationID) async throws -> ConversationState? {
    try await relaunch(id) { chat in
      guard let answer = chat.state.messages.last else { return nil }
      chat.send(.regenerate(answer.clientID))
      return await chat.state(
        within: 60,
        where: {
          $0.messages.last?.clientID != answer.clientID && $0.messages.last?.reply == .completed && $0.isSettled
        })
    }
  }

  /// The interrupted-tool story: the first launch sends `text`, whose answer calls the app's tool
  /// `pick_color`, and quits while the tool runs (its handler never returns). A relaunch opens the
  /// conversation: the call, which may have done its work, is not run again; the agent is told it stopped,
  /// and answers. Returns the state once that answer completed (nil after a minute), and how often the
  /// tool ran in both launches.
  package static func toolInterruptedByRelaunch(
    _ text: String, backend: @escaping @Sendable () throws -> any ChatBackend
  ) async throws -> (done: ConversationState?, runs: Int) {
    let runs = RunCount()
    let story = RelaunchStory(
      backend: backend,
      tools: [
        "pick_color": { _ in
          runs.add()
          try await Task.sleep(for: .seconds(600))
          return "never"
        }
      ])
    defer { story.cleanUp() }
    // The tool starts after the answer ends waiting: the app quits once it runs (no state change says so).
    let (id, _) = try await story.firstLaunch(
      text, settled: false,
      beforeQuit: {
        let deadline = Date().addingTimeInterval(20)
        while runs.value == 0, Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
      },
      until: {
        if case .awaitingToolResults = $0.messages.last?.reply { return true }
        return false
      })
    let done = try await story.relaunch(id) { chat in
      await chat.state(within: 60, where: { $0.messages.last?.reply == .completed && $0.isSettled })
    }
    return (done, runs.value)
  }

  /// Removes the story's storage.
  package func cleanUp() { try? FileManager.default.removeItem(at: folder) }
}

package struct RelaunchStoryError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}

/// How often a tool ran, across tasks.
package final class RunCount: Sendable {
  private let count = StateLock(0)
  package init() {}
  package func add() { count.withLock { $0 += 1 } }
  package var value: Int { count.withLock { $0 } }
}
