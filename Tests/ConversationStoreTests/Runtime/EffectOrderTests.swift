import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Defect 1 of the runtime: effects must be performed in the order their actions were applied, whichever
/// thread sent them, so a cancel never overtakes the start it cancels.
@Suite("Effects in reduce order, under threads")
struct EffectOrderTests {
  static func store(_ backend: LedgerBackend, _ state: ConversationState = ConversationState(conversationID: "c1"))
    -> ChatStore
  {
    ChatStore(state, backend: backend, environment: .deterministic())
  }

  /// Runs `first` and `second` on two threads at once.
  static func race(_ first: @escaping @Sendable () -> Void, _ second: @escaping @Sendable () -> Void) {
    DispatchQueue.concurrentPerform(iterations: 2) { $0 == 0 ? first() : second() }
  }

  @Test("connect racing disconnect never leaves a live socket behind a closed state")
  func connectRacingDisconnect() async {
    for _ in 0..<300 {
      let backend = LedgerBackend()
      let store = Self.store(backend)
      Self.race({ store.send(.connect) }, { store.send(.disconnect) })
      let consistent = await backend.eventually {
        let wanted = [ConnectionState.connecting, .connected, .syncing].contains(store.state.connection)
        return backend.liveRealtime == (wanted ? 1 : 0)
      }
      #expect(consistent, "connection \(store.state.connection) with \(backend.liveRealtime) live sockets")
      if !consistent { return }
      store.close()
    }
  }

  @Test("a send racing sign-out never leaves the old user's message live at the server")
  func sendRacingSignOut() async {
    for _ in 0..<300 {
      let backend = LedgerBackend()
      let store = Self.store(backend)
      Self.race({ store.sendMessage("private") }, { store.send(.signOut) })
      let clean = await backend.eventually {
        let inFlight = Set(store.state.requests.values.compactMap { if case .send(let id) = $0 { id } else { nil } })
        return backend.liveSends.isSubset(of: inFlight)
      }
      #expect(clean, "live sends \(backend.liveSends) after sign-out; state requests \(store.state.requests)")
      if !clean { return }
    }
  }

  @Test("a request cancelled before its task began never reaches the backend")
  func cancelledBeforeStart() async {
    let backend = LedgerBackend()
    let store = Self.store(backend)
    // The send's effect and the sign-out's cancel are queued back to back by one thread: by the time the
    // send's task is scheduled it is already cancelled.
    for index in 0..<200 {
      store.sendMessage("m\(index)")
      store.send(.signOut)
    }
    #expect(await backend.eventually { backend.live.isEmpty })
    #expect(backend.calls.count < 200, "most cancelled sends never started (\(backend.calls.count) did)")
  }

  @Test("an action sent while effects are being performed is queued behind them, not run inside them")
  func reentrantSend() async {
    let performed = StateLock<[String]>([])
    let runtime = RecordingRunner(performed: performed)
    let store = Store(
      initialState: ConversationState(conversationID: "c1"), reducer: ConversationReducer(), runtime: runtime)
    runtime.onPerform = { effects, store in
      // While the first action's effects run, a result arrives on this very thread.
      if effects.contains(where: { if case .connectRealtime = $0 { true } else { false } }) {
        store.send(.disconnect)
        performed.withLock { $0.append("sent disconnect") }
      }
    }
    store.send(.connect)
    #expect(
      performed.withLock { $0 } == [
        "cancelTimer", "connectRealtime", "sent disconnect", "cancel", "cancelTimer",
      ], "the reentrant action's effects come after the ones being performed")
  }
}

/// Records the effects it is asked to perform, by case name.
final class RecordingRunner: EffectRunner, @unchecked Sendable {
  // @unchecked Sendable: `onPerform` is set once, before the store sends anything, and only read after.
  typealias Runs = ConversationReducer
  let performed: StateLock<[String]>
  var onPerform: (@Sendable ([ConversationEffect], ChatStore) -> Void)?

  init(performed: StateLock<[String]>) { self.performed = performed }

  func perform(_ effects: [ConversationEffect], for store: ChatStore) {
    for effect in effects {
      let name = Mirror(reflecting: effect).children.first?.label ?? "\(effect)"
      performed.withLock { $0.append(name) }
    }
    onPerform?(effects, store)
  }

  func close() {}
}
