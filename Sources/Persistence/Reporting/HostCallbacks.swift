/// Delivers a host's callbacks one at a time, in the order they were made, on a task of their own: never on
/// the thread, nor under the lock, of the code that made them, so a callback may call back into what made it
/// (read a client's state, open a conversation) without deadlocking or trapping.
///
/// ```swift
/// let errors = HostCallbacks<PersistenceError> { error in log(error) }
/// errors.deliver(error)  // returns at once; `log` runs soon after, after the ones before it
/// await errors.delivered()  // every callback made so far has run
/// ```
///
/// Callbacks wait in an unbounded queue: they are for rare events (errors, files moved aside), not for a
/// stream of data. Those made before the last reference goes are still delivered.
public final class HostCallbacks<Event: Sendable>: Sendable {
  private enum Item: Sendable {
    case event(Event)
    case barrier(CheckedContinuation<Void, Never>)
  }

  private let queue: AsyncStream<Item>.Continuation

  /// Callbacks to `handler`, delivered in order on a task of their own.
  public init(_ handler: @escaping @Sendable (Event) -> Void) {
    let (items, queue) = AsyncStream<Item>.makeStream()
    self.queue = queue
    Task.detached {
      for await item in items {
        switch item {
        case .event(let event): handler(event)
        case .barrier(let waiter): waiter.resume()
        }
      }
    }
  }

  deinit { queue.finish() }

  /// Queues `event` for the handler and returns at once.
  public func deliver(_ event: Event) { queue.yield(.event(event)) }

  /// Returns once every callback delivered before this call has run.
  public func delivered() async {
    await withCheckedContinuation { queue.yield(.barrier($0)) }
  }
}
