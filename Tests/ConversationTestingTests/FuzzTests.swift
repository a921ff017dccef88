import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Invariant fuzzing")
struct FuzzTests {
  /// FUZZ_SEQUENCES (default 2,000), FUZZ_LENGTH (default 200) and FUZZ_SEED (first seed, default 1) set
  /// the search; a longer one: `FUZZ_SEQUENCES=200000 swift test --filter FuzzTests`.
  static let environment = ProcessInfo.processInfo.environment
  static let sequences = Int(environment["FUZZ_SEQUENCES"] ?? "") ?? 2_000
  static let length = Int(environment["FUZZ_LENGTH"] ?? "") ?? 200
  static let firstSeed = UInt64(environment["FUZZ_SEED"] ?? "") ?? 1
  static let shards = 4

  /// Runs an eighth of the search under `policy`, recording the first session that breaks an invariant.
  static func recordFirstFailure(policy: ChatPolicy) {
    for seed in firstSeed..<firstSeed + UInt64(sequences / 8) {
      if let failure = ConversationFuzzer.run(seed: seed, length: length, policy: policy) {
        Issue.record(Comment(rawValue: failure.description))
        return
      }
    }
  }

  /// Replays the sessions of `seeds` (200 actions each) through the reducer, handing each step's state
  /// before and after, and its effects, to `step`.
  static func replay(
    seeds: ClosedRange<UInt64>, policy: ChatPolicy = ChatPolicy(),
    _ step: (ConversationState, ConversationState, [ConversationEffect]) -> Void
  ) {
    let reducer = ConversationReducer(policy: policy)
    for seed in seeds {
      var state = ConversationFuzzer.initial
      for action in ConversationFuzzer.generate(seed: seed, length: 200, policy: policy) {
        let before = state
        let effects = reducer.reduce(into: &state, action: action)
        step(before, state, effects)
      }
    }
  }

  @Test("random plausible sessions keep every invariant after every step", arguments: 0..<shards)
  func sessionsKeepInvariants(shard: Int) {
    for index in stride(from: shard, to: Self.sequences, by: Self.shards) {
      let seed = Self.firstSeed + UInt64(index)
      if let failure = ConversationFuzzer.run(seed: seed, length: Self.length) {
        Issue.record(Comment(rawValue: failure.description))
        return
      }
    }
  }

  @Test("with the durable outbox, sessions keep every invariant too, and the outbox's answers come up")
  func outboxSessionsKeepInvariants() {
    let policy = ChatPolicy(offlineDelivery: .outbox)
    Self.recordFirstFailure(policy: policy)
    let actions = (1...40).flatMap { ConversationFuzzer.generate(seed: $0, length: 200, policy: policy) }
    #expect(actions.contains { if case .outboxRecorded = $0 { true } else { false } })
    #expect(actions.contains { if case .outboxRejected = $0 { true } else { false } })
  }

  @Test("when the app's tool results go in the next run, sessions keep every invariant, and runs continue")
  func nextRunSessionsKeepInvariants() {
    // Given the AG-UI / AI SDK shape: a run ends with the app's calls pending, and the results start a new run
    let policy = ChatPolicy(toolResultDelivery: .nextRun)
    Self.recordFirstFailure(policy: policy)
    // Then the sessions really reach continuation runs
    var continuations = 0
    Self.replay(seeds: 1...40, policy: policy) { _, _, effects in
      continuations += effects.count { if case .continueRun = $0 { true } else { false } }
    }
    #expect(continuations > 3)
  }

  @Test("with polling as the connection mode, sessions keep every invariant, and polls really go out")
  func pollingSessionsKeepInvariants() {
    // Given a backend with no realtime channel
    let policy = ChatPolicy(pollInterval: 1, connectionMode: .polling)
    Self.recordFirstFailure(policy: policy)
    // Then the sessions poll, and never open a realtime connection
    var polls = 0
    var realtime = 0
    Self.replay(seeds: 1...40, policy: policy) { _, _, effects in
      polls += effects.count { if case .fetchMessagesAfter = $0 { true } else { false } }
      realtime += effects.count { if case .connectRealtime = $0 { true } else { false } }
    }
    #expect(polls > 10)
    #expect(realtime == 0)
  }

  @Test("the same seed generates the same session")
  func deterministic() {
    // Action by action: equal, or equal as text (sessions include a NaN upload progress on purpose, and
    // NaN != NaN; a JSON object's text is not compared, as its keys print in no fixed order).
    func same(_ a: [ConversationAction], _ b: [ConversationAction]) -> Bool {
      a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || "\($0)" == "\($1)" }
    }
    let first = ConversationFuzzer.generate(seed: 7, length: 300)
    #expect(same(first, ConversationFuzzer.generate(seed: 7, length: 300)))
    #expect(!same(first, ConversationFuzzer.generate(seed: 8, length: 300)))
  }

  @Test("sessions exercise the edges: failures, stale results, paging, reconnects, sign-outs")
  func coverage() {
    let sessions = (1...80).flatMap { ConversationFuzzer.generate(seed: $0, length: 200) }
    // A numbered event counts as what it wraps; how many are numbered is counted on its own.
    let actions = sessions.map { if case .positioned(_, _, let event) = $0 { event } else { $0 } }
    func count(_ match: (ConversationAction) -> Bool) -> Int { actions.filter(match).count }
    #expect(count { if case .requestFailed = $0 { true } else { false } } > 40)
    #expect(count { if case .historyLoaded = $0 { true } else { false } } > 40)
    #expect(count { if case .connectionLost = $0 { true } else { false } } > 40)
    #expect(count { if case .signOut = $0 { true } else { false } } > 10)
    #expect(count { if case .relaunched = $0 { true } else { false } } > 10)
    #expect(count { if case .replyDelta = $0 { true } else { false } } > 100)
    #expect(count { if case .replyPartDelta = $0 { true } else { false } } > 20)
    #expect(count { if case .replyPartAdded = $0 { true } else { false } } > 10)
    #expect(count { if case .toolInputDelta = $0 { true } else { false } } > 2)
    #expect(
      count { if case .inputRequested(_, let request) = $0, case .toolApproval = request.kind { true } else { false } }
        > 5)
    #expect(
      count { if case .inputRequested(_, let request) = $0, case .question = request.kind { true } else { false } } > 4)
    #expect(count { if case .answerInput = $0 { true } else { false } } > 20)
    #expect(sessions.count { if case .positioned = $0 { true } else { false } } > 50)
    #expect(count { if case .agentStateDelta = $0 { true } else { false } } > 20)
    #expect(count { if case .sendAccepted = $0 { true } else { false } } > 100)
    // The protocol variants every server we back needs.
    #expect(count { if case .sendQueued = $0 { true } else { false } } > 10)
    #expect(count { if case .credentialsRefreshed = $0 { true } else { false } } > 10)
    #expect(count { if case .identify(_, keepingGuestConversation: true) = $0 { true } else { false } } > 4)
    #expect(
      count {
        if case .realtime(_, .messageCreated(let message), _, _) = $0, message.role == .user,
          message.clientID.rawValue.hasPrefix("srv-")
        {
          true
        } else {
          false
        }
      } > 10, "server-ID-only copies of the user's messages")
    #expect(
      count { if case .sendAccepted(_, let message, _) = $0, message.serverID == nil { true } else { false } } > 4)
  }

  @Test("sessions queue follow-ups and drain them: each queued turn sent once, never while another reply streams")
  func followUpsDrainOnce() {
    var queued = 0
    var drained = 0
    var paused = 0
    for seed in UInt64(1)...40 {
      var sentFromQueue: Set<ClientMessageID> = []
      Self.replay(seeds: seed...seed) { before, after, effects in
        let waiting = Set(before.followUps.turns.map(\.clientID))
        queued += after.followUps.turns.count > before.followUps.turns.count ? 1 : 0
        if after.followUps.pause != nil && before.followUps.pause == nil { paused += 1 }
        for effect in effects {
          guard case .sendMessage(_, let payload) = effect, waiting.contains(payload.clientID) else { continue }
          drained += 1
          #expect(sentFromQueue.insert(payload.clientID).inserted, "\(payload.clientID) left the queue twice")
          #expect(
            after.streamingReply == nil && after.overlappingReplies.isEmpty,
            "\(payload.clientID) went while a reply streamed")
        }
      }
    }
    #expect(queued > 50, "turns queued")
    #expect(drained > 20, "turns sent from the queue")
    #expect(paused > 5, "queues paused")
  }

  @Test("sessions remember approvals and answer with them, and a grant answers only while it is remembered")
  func grantsAnswerOnlyWhileRemembered() {
    /// Every request answered by a grant, by ID, with the tool of its grant.
    func granted(_ state: ConversationState) -> [InputRequestID: String] {
      var requests = state.streamingReply?.inputRequests ?? []
      for message in state.messages {
        if case .awaitingInput(let waiting) = message.reply { requests += waiting }
      }
      return Dictionary(
        requests.compactMap { request in request.grantedBy.map { (request.id, $0) } },
        uniquingKeysWith: { first, _ in first })
    }
    var remembered = 0
    var answered = 0
    Self.replay(seeds: 1...300) { before, after, _ in
      let held = (after.approvalGrants + after.standingApprovals).map(\.toolName)
      if held.count > (before.approvalGrants + before.standingApprovals).count { remembered += 1 }
      let earlier = granted(before)
      for (request, tool) in granted(after) where earlier[request] == nil {
        answered += 1
        #expect(held.contains(tool), "\(request) answered by a grant of \(tool) not held")
      }
    }
    #expect(remembered > 5, "approvals remembered: \(remembered)")
    #expect(answered > 2, "requests answered by a grant: \(answered)")
  }

  @Test("sessions reach replies that overlap, and end them")
  func overlappingCoverage() {
    var overlapping = 0
    Self.replay(seeds: 1...20, policy: .overlapping) { before, after, _ in
      if after.overlappingReplies.count > before.overlappingReplies.count { overlapping += 1 }
    }
    #expect(overlapping > 10)
  }

  @Test("a failing session is shrunk to a short reproduction that still fails")
  func shrinking() throws {
    // A planted property: "never two failed messages". Real sessions break it; the shrinker should find a
    // handful of actions that still do.
    let property: ConversationFuzzer.Property = { _, state in
      state.messages.filter { if case .failed = $0.delivery { true } else { false } }.count >= 2
        ? ["two failed messages"] : []
    }
    let failure = try #require(
      (1...200).lazy.compactMap {
        ConversationFuzzer.run(seed: $0, length: 200, property: property, policy: .overlapping)
      }.first)
    #expect(failure.actions.count <= 6, "shrunk to \(failure.actions.count) actions")
    #expect(failure.actions.count < failure.originalLength)
    #expect(
      ConversationFuzzer.check(failure.actions, property: property, policy: .overlapping) != nil,
      "the reproduction still fails")
    #expect(failure.description.contains("Seed \(failure.seed)"))
    #expect(failure.description.contains("\"send\""), "the reproduction is printed as JSON actions")
  }
}
