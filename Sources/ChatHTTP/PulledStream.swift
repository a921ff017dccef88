import ConversationState
import ConversationStore

/// An `AsyncThrowingStream` made at its consumer's pace: the next batch of elements is produced only when
/// the consumer has taken the last one, so nothing queues between a response's bytes and the store.
///
/// `produce` turns the source's next step into elements (an empty batch asks again; nil ends the stream).
/// The source is released as soon as the stream ends, fails, or is dropped, which ends the exchange it reads.
/// Its first error ends the stream as a `ChatError`.
enum PulledStream {
  static func make<Source: Sendable, Element: Sendable>(
    from source: Source, produce: @escaping @Sendable (inout Source) async throws -> [Element]?
  ) -> AsyncThrowingStream<Element, any Error> {
    let pump = Pump(source, produce)
    return AsyncThrowingStream { try await pump.next() }
  }

  private final class Pump<Source: Sendable, Element: Sendable>: Sendable {
    private struct State {
      /// Taken out while a batch is produced: a second consumer reading at once finds it gone.
      var source: Source?
      var batch: [Element] = []
      var next = 0
      var hasEnded = false
    }

    private enum Step {
      case element(Element)
      case end
      case busy
      case produce(Source)
    }

    private let state: StateLock<State>
    private let produce: @Sendable (inout Source) async throws -> [Element]?

    init(_ source: Source, _ produce: @escaping @Sendable (inout Source) async throws -> [Element]?) {
      state = StateLock(State(source: source))
      self.produce = produce
    }

    func next() async throws -> Element? {
      while true {
        let step = state.withLock { state -> Step in
          if state.next < state.batch.count {
            defer { state.next += 1 }
            return .element(state.batch[state.next])
          }
          if state.hasEnded { return .end }
          guard let source = state.source.take() else { return .busy }
          return .produce(source)
        }
        switch step {
        case .element(let element): return element
        case .end: return nil
        case .busy:
          throw ChatError(.invalidAction, "This stream is being read by another consumer at the same time.")
        case .produce(var source):
          let batch: [Element]?
          do {
            batch = try await produce(&source)
          } catch {
            state.withLock { $0.hasEnded = true }
            throw HTTPFailure.transport(error)
          }
          // An ended source is released after the lock, when `source` goes: its exchange's deinit cancels.
          state.withLock { state in
            guard let batch else {
              state.hasEnded = true
              state.batch = []
              return
            }
            state.batch = batch
            state.next = 0
            state.source = source
          }
        }
      }
    }
  }
}
