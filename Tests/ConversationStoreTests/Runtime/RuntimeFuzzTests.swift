import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The runtime's fuzzer, beside the reducer's: seeded random actions from 2–4 threads against a real store,
/// its runtime and a backend that holds work open. After the threads stop and the runtime settles, what is
/// live at the backend must match the state exactly; after `close()`, nothing may be live.
///
/// RUNTIME_FUZZ_SESSIONS (default 40) and RUNTIME_FUZZ_SEED (first seed, default 1) set the search.
@Suite("Runtime fuzzing")
struct RuntimeFuzzTests {
  static let environment = ProcessInfo.processInfo.environment
  static let sessions = Int(environment["RUNTIME_FUZZ_SESSIONS"] ?? "") ?? 40
  static let firstSeed = UInt64(environment["RUNTIME_FUZZ_SEED"] ?? "") ?? 1

  @Test("threads racing user actions, results and timers leave the backend exactly as the state says")
  func sessionsKeepTheBackendInStep() async {
    for index in 0..<Self.sessions {
      let seed = Self.firstSeed + UInt64(index)
      if let failure = await Self.run(seed: seed) {
        Issue.record("Seed \(seed) (RUNTIME_FUZZ_SEED=\(seed) RUNTIME_FUZZ_SESSIONS=1): \(failure)")
        return
      }
    }
  }

  /// One session; returns what went wrong, if anything.
  static func run(seed: UInt64) async -> String? {
    var random = SplitMix64(seed: seed)
    let threads = Int.random(in: 2...4, using: &random)
    let backend = LedgerBackend()
    let clock = TestClock()
    let store = ChatStore(
      .existing([.server("Welcome", id: "s0", at: 0)]), backend: backend,
      environment: .deterministic(clock: clock, jitter: Double.random(in: 0...1, using: &random)))
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var random = SplitMix64(seed: seed &* 31 &+ UInt64(thread))
      for _ in 0..<60 { act(&random, store, backend, clock) }
    }

    let settled = await backend.eventually { consistency(store, backend) == nil }
    if !settled, let problem = consistency(store, backend) { return "after the threads stopped: \(problem)" }
    let violations = store.state.invariantViolations()
    if !violations.isEmpty { return "state invariants: \(violations)" }

    store.close()
    let calls = backend.calls.count
    if !(await backend.eventually({ backend.live.isEmpty })) { return "live after close: \(backend.live)" }
    clock.advance(by: 300)
    try? await Task.sleep(for: .milliseconds(5))
    if backend.calls.count != calls { return "the backend was called after close: \(backend.calls.suffix(3))" }
    return nil
  }

  /// What is live at the backend that the state does not account for, or the other way round.
  static func consistency(_ store: ChatStore, _ backend: LedgerBackend) -> String? {
    let state = store.state
    let sending = Set(state.requests.values.compactMap { if case .send(let id) = $0 { id } else { nil } })
    if backend.liveSends != sending { return "live sends \(backend.liveSends), requests say \(sending)" }
    let wanted = [ConnectionState.connecting, .connected, .syncing].contains(state.connection)
    if backend.liveRealtime != (wanted ? 1 : 0) {
      return "\(backend.liveRealtime) live sockets while the connection is \(state.connection)"
    }
    if backend.liveHistory != (state.history.isLoadingHistory ? 1 : 0) {
      return "\(backend.liveHistory) live history loads; loading: \(state.history.isLoadingHistory)"
    }
    let syncs = state.requests.values.filter { $0 == .sync }.count
    if backend.liveSyncs != syncs { return "\(backend.liveSyncs) live syncs, \(syncs) in requests" }
    return nil
  }

  /// One random thing a user, the server or time does.
  static func act(_ random: inout SplitMix64, _ store: ChatStore, _ backend: LedgerBackend, _ clock: TestClock) {
    switch Int.random(in: 0..<14, using: &random) {
    case 0, 1: store.send(.connect)
    case 2: store.send(.disconnect)
    case 3, 4: store.sendMessage("m\(random.next() % 1000)")
    case 5: store.send(.signOut)
    case 6: store.send(.identify(UserIdentity(userID: "u\(random.next() % 3)")))
    case 7: store.send(.loadMoreHistory(pageSize: 10))
    case 8: store.send(.stopReply)
    case 9: store.send(.clear)
    case 10:
      if let failed = store.state.messages.outgoing.first(where: {
        if case .failed = $0.delivery { true } else { false }
      }) {
        store.send(.retry(failed.clientID))
      }
    case 11:
      // The server ends some live work, successfully or not.
      if let work = backend.live.randomElement(using: &random) {
        backend.finish(work, with: Bool.random(using: &random) ? ChatError(.network, "dropped") : nil)
      }
    case 12: clock.advance(by: Double.random(in: 0...40, using: &random))
    default: store.send(.setTyping(Bool.random(using: &random)))
    }
  }
}
