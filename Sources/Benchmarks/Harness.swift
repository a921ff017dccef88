import Foundation

/// One measured workload: `run` performs it once and returns how many operations it timed and how long
/// they took, in nanoseconds (setup excluded).
struct Workload: Sendable {
  let name: String
  let run: @Sendable () async -> WorkloadResult

  init(name: String, run: @escaping @Sendable () async -> WorkloadResult) {
    self.name = name
    self.run = run
  }

  /// A workload with no subscriber (or one whose snapshots are not counted).
  init(name: String, run: @escaping @Sendable () async -> (ops: Int, nanoseconds: UInt64)) {
    self.name = name
    self.run = {
      let (ops, nanoseconds) = await run()
      return WorkloadResult(ops: ops, nanoseconds: nanoseconds)
    }
  }
}

/// One run's count of timed operations, their time, and how many snapshots its subscriber took (nil: no
/// subscriber), which tells a burst number (few snapshots for many deltas) from a frame number.
struct WorkloadResult: Sendable {
  var ops: Int
  var nanoseconds: UInt64
  var snapshots: Int? = nil
  /// What `nanoseconds` counts when it is not time (`"bytes"` for memory workloads).
  var unit: String? = nil
}

/// The median of several runs after a warm-up.
struct Measurement: Encodable, Sendable {
  let name: String
  let nsPerOp: Double
  let ops: Int
  let runs: Int
  /// Snapshots the subscriber took in the last run, for workloads with one.
  let snapshots: Int?
  /// Set when `nsPerOp` is not nanoseconds (`"bytes"` per message for `mem.*`).
  let unit: String?
  /// Each round's time per operation, in round order: a ratio is taken round by round (both sides measured
  /// in the same round), not from two medians.
  let perRound: [Double]

  enum CodingKeys: String, CodingKey {
    case name
    case nsPerOp = "ns_per_op"
    case ops, runs, snapshots, unit
  }
}

enum Harness {
  /// Runs every workload once to warm up, then `runs` rounds of every workload in turn, and takes each one's
  /// median. Interleaving matters on a shared machine: a slow minute slows every workload of that round
  /// alike, so the ratios the targets compare stay steady even when absolute times drift.
  static func measure(_ workloads: [Workload], runs: Int) async -> [Measurement] {
    for workload in workloads { _ = await workload.run() }  // warm-up: caches, allocator, lazy initialization
    var perOp = [[Double]](repeating: [], count: workloads.count)
    var ops = [Int](repeating: 0, count: workloads.count)
    var snapshots = [Int?](repeating: nil, count: workloads.count)
    var units = [String?](repeating: nil, count: workloads.count)
    for _ in 0..<runs {
      for (index, workload) in workloads.enumerated() {
        let result = await workload.run()
        ops[index] = result.ops
        snapshots[index] = result.snapshots
        units[index] = result.unit
        perOp[index].append(Double(result.nanoseconds) / Double(max(result.ops, 1)))
      }
    }
    return workloads.indices.map { index in
      let sorted = perOp[index].sorted()
      return Measurement(
        name: workloads[index].name, nsPerOp: sorted[sorted.count / 2], ops: ops[index], runs: runs,
        snapshots: snapshots[index], unit: units[index], perRound: perOp[index])
    }
  }

  /// Times `body` in nanoseconds on the monotonic clock.
  // Never inlined: `.ci/instructions.sh` counts instructions only inside these two (callgrind's
  // `--toggle-collect`), so what a workload sets up is left out of its count.
  @inline(never)
  static func time(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
  }

  @inline(never)
  static func timeAsync(_ body: () async -> Void) async -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    await body()
    return DispatchTime.now().uptimeNanoseconds - start
  }
}

/// A ratio target's outcome in one run, as the JSON line stdout carries after the workloads' lines.
struct RatioResult: Encodable {
  let ratio: String
  let min: Double
  let median: Double
  let max: Double
  let limit: Double
  let atMost: Bool
  let met: Bool

  enum CodingKeys: String, CodingKey {
    case ratio, min, median, max, limit, met
    case atMost = "at_most"
  }
}

/// A target from the benchmark issue: `numerator / denominator` must stay at or below (or above) `limit`.
struct RatioTarget {
  let numerator: String
  let denominator: String
  let limit: Double
  let atMost: Bool

  /// The ratio in each round (numerator and denominator of the same round), its minimum, median and
  /// maximum; the target is judged on the median. Nil when either side was not run.
  func check(_ results: [String: Measurement]) -> RatioResult? {
    guard let top = results[numerator], let bottom = results[denominator] else { return nil }
    let ratios = zip(top.perRound, bottom.perRound).map { $0 / max($1, .leastNonzeroMagnitude) }.sorted()
    guard let low = ratios.first, let high = ratios.last else { return nil }
    let median = ratios[ratios.count / 2]
    return RatioResult(
      ratio: "\(numerator) / \(denominator)", min: low, median: median, max: high, limit: limit, atMost: atMost,
      met: atMost ? median <= limit : median >= limit)
  }

  static let all: [RatioTarget] = [
    RatioTarget(numerator: "delta.store.h100k", denominator: "delta.store.h100", limit: 1.25, atMost: true),
    RatioTarget(numerator: "delta.store.reply1m", denominator: "delta.store.reply1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "delta.store.h10k", denominator: "delta.bare.h10k", limit: 5, atMost: true),
    RatioTarget(numerator: "delta.realtime.h10k", denominator: "delta.store.h10k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "delta.naive.h10k", denominator: "delta.store.h10k", limit: 1_000, atMost: false),
    RatioTarget(numerator: "page.merge.h100k", denominator: "page.merge.h1k", limit: 2, atMost: true),
    RatioTarget(numerator: "fanout.s8", denominator: "fanout.s1", limit: 2, atMost: true),
    RatioTarget(numerator: "fanout.stream.s1", denominator: "fanout.s1", limit: 1.25, atMost: true),
    RatioTarget(numerator: "persist.append.h100k", denominator: "persist.append.h1k", limit: 3, atMost: true),
    RatioTarget(numerator: "load.store.h100k", denominator: "load.jsondecoder.h100k", limit: 0.5, atMost: true),
    RatioTarget(numerator: "open.newest.h100k", denominator: "open.newest.h1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "open.full.h100k", denominator: "open.newest.h100k", limit: 50, atMost: false),
    RatioTarget(numerator: "page.disk.h100k", denominator: "page.disk.h1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "agent.context.h100k", denominator: "agent.context.h1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "search.scan.h100k", denominator: "search.index.h100k", limit: 20, atMost: false),
    RatioTarget(numerator: "persist.delta.reply1m", denominator: "delta.store.reply1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "sse.decode.1mb", denominator: "sse.scan.1mb", limit: 3, atMost: true),
    // Each protocol's decoding, mapping and store against the SSE decode of the very same bytes (#56; against
    // `sse.decode.1mb`, a body of other events, `<= 3` judged protocols with small events on fewer bytes).
    RatioTarget(numerator: "agui.decode.1mb", denominator: "sse.decode.agui-body.1mb", limit: 2, atMost: true),
    RatioTarget(numerator: "aisdk.decode.1mb", denominator: "sse.decode.aisdk-body.1mb", limit: 2, atMost: true),
    RatioTarget(numerator: "openai.decode.1mb", denominator: "sse.decode.openai-body.1mb", limit: 2, atMost: true),
    RatioTarget(numerator: "sse.event.8mb", denominator: "sse.event.64kb", limit: 1.5, atMost: true),
    RatioTarget(numerator: "frame.delta.h100k", denominator: "frame.delta.h100", limit: 1.25, atMost: true),
    RatioTarget(numerator: "frame.delta.h10k", denominator: "delta.bare.h10k", limit: 12, atMost: true),
    RatioTarget(numerator: "hold.delta.h10k", denominator: "delta.bare.h10k", limit: 5, atMost: true),
    // A UI's whole frame per delta, the new text read as it appends it to its view (#56).
    RatioTarget(numerator: "frame.append.h10k", denominator: "delta.bare.h10k", limit: 3, atMost: true),
    RatioTarget(numerator: "frame.parts.h10k", denominator: "frame.delta.h10k", limit: 4, atMost: true),
    RatioTarget(numerator: "hold.parts.h10k", denominator: "hold.delta.h10k", limit: 4, atMost: true),
    RatioTarget(numerator: "delta.naive2.h10k", denominator: "frame.delta.h10k", limit: 5, atMost: false),
    RatioTarget(numerator: "frame.list.noop.c10k", denominator: "frame.list.noop.c100", limit: 1.5, atMost: true),
    // The send turn against what a host would build instead, against itself at a small history, and against
    // one delta (#32; `send.confirm / ref.array.send <= 5`, an array edited in place with no snapshot, is
    // withdrawn: no store that publishes snapshots can come near it).
    RatioTarget(numerator: "ref.naive.send.h100k", denominator: "send.confirm.h100k", limit: 20, atMost: false),
    RatioTarget(numerator: "send.confirm.h100k", denominator: "send.confirm.h1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "send.confirm.h100k", denominator: "delta.store.h10k", limit: 50, atMost: true),
    // A switch between sibling answers (#52) should cost the path it swaps, not the history before the fork.
    RatioTarget(numerator: "branch.switch.h100k", denominator: "branch.switch.h1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "queue.drain.h100k", denominator: "queue.drain.h1k", limit: 1.5, atMost: true),
    RatioTarget(
      numerator: "frame.list.realtime.c10k", denominator: "frame.list.realtime.c100", limit: 1.5, atMost: true),
    // Each action on the list the user manages is O(log n) at 10,000 conversations, and the device's stored list
    // opens its first page in O(page) (#54).
    RatioTarget(numerator: "list.rename.c10k", denominator: "list.rename.c100", limit: 1.5, atMost: true),
    RatioTarget(numerator: "list.pin.c10k", denominator: "list.pin.c100", limit: 1.5, atMost: true),
    RatioTarget(numerator: "list.delete.c10k", denominator: "list.delete.c100", limit: 1.5, atMost: true),
    RatioTarget(numerator: "list.undo.c10k", denominator: "list.undo.c100", limit: 1.5, atMost: true),
    RatioTarget(numerator: "list.stored.first.c10k", denominator: "list.stored.first.c100", limit: 1.5, atMost: true),
    RatioTarget(numerator: "page.merge.h100k", denominator: "ref.array.page.h100k", limit: 4, atMost: true),
    RatioTarget(numerator: "component.store.state", denominator: "ref.state.read", limit: 2, atMost: true),
  ]
}
