import Foundation

/// One measured workload: `run` performs it once and returns how many operations it timed and how long
/// they took, in nanoseconds (setup excluded).
struct Workload: Sendable {
  let name: String
  let run: @Sendable () async -> (ops: Int, nanoseconds: UInt64)
}

/// The median of several runs after a warm-up.
struct Measurement: Encodable, Sendable {
  let name: String
  let nsPerOp: Double
  let ops: Int
  let runs: Int

  enum CodingKeys: String, CodingKey {
    case name
    case nsPerOp = "ns_per_op"
    case ops, runs
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
    for _ in 0..<runs {
      for (index, workload) in workloads.enumerated() {
        let result = await workload.run()
        ops[index] = result.ops
        perOp[index].append(Double(result.nanoseconds) / Double(max(result.ops, 1)))
      }
    }
    return workloads.indices.map { index in
      let sorted = perOp[index].sorted()
      return Measurement(name: workloads[index].name, nsPerOp: sorted[sorted.count / 2], ops: ops[index], runs: runs)
    }
  }

  /// Times `body` in nanoseconds on the monotonic clock.
  static func time(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
  }

  static func timeAsync(_ body: () async -> Void) async -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    await body()
    return DispatchTime.now().uptimeNanoseconds - start
  }
}

/// A target from the benchmark issue: `numerator / denominator` must stay at or below (or above) `limit`.
struct RatioTarget {
  let numerator: String
  let denominator: String
  let limit: Double
  let atMost: Bool

  func check(_ results: [String: Measurement]) -> (value: Double, met: Bool)? {
    guard let top = results[numerator], let bottom = results[denominator] else { return nil }
    let value = top.nsPerOp / bottom.nsPerOp
    return (value, atMost ? value <= limit : value >= limit)
  }

  static let all: [RatioTarget] = [
    RatioTarget(numerator: "delta.store.h100k", denominator: "delta.store.h100", limit: 1.25, atMost: true),
    RatioTarget(numerator: "delta.store.reply1m", denominator: "delta.store.reply1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "delta.store.h10k", denominator: "delta.bare.h10k", limit: 5, atMost: true),
    RatioTarget(numerator: "delta.realtime.h10k", denominator: "delta.store.h10k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "delta.naive.h10k", denominator: "delta.store.h10k", limit: 1_000, atMost: false),
    RatioTarget(numerator: "page.merge.h100k", denominator: "page.merge.h1k", limit: 2, atMost: true),
    RatioTarget(numerator: "fanout.s8", denominator: "fanout.s1", limit: 2, atMost: true),
    RatioTarget(numerator: "persist.append.h100k", denominator: "persist.append.h1k", limit: 3, atMost: true),
    RatioTarget(numerator: "load.store.h100k", denominator: "load.jsondecoder.h100k", limit: 0.5, atMost: true),
    RatioTarget(numerator: "persist.delta.reply1m", denominator: "delta.store.reply1k", limit: 1.5, atMost: true),
    RatioTarget(numerator: "sse.decode.1mb", denominator: "sse.scan.1mb", limit: 3, atMost: true),
  ]
}
