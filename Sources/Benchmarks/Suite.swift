import Foundation

/// Every workload, named exactly as the benchmark issue names them so results compare across runs.
enum Suite {
  static func workloads(quick: Bool, filter: String?) -> [Workload] {
    let scale = quick ? 10 : 1
    let all: [Workload] =
      [
        DeltaWorkloads.bare(history: 10_000, deltas: 100_000 / scale),
        DeltaWorkloads.store(history: 100, deltas: 100_000 / scale),
        DeltaWorkloads.store(history: 10_000, deltas: 100_000 / scale),
        DeltaWorkloads.store(history: 100_000, deltas: 100_000 / scale),
        DeltaWorkloads.realtime(history: 10_000, deltas: 100_000 / scale),
        DeltaWorkloads.naive(history: 10_000, deltas: 2_000 / scale),
        DeltaWorkloads.longReply(bytes: 1_000, deltas: 20_000 / scale, name: "delta.store.reply1k"),
        DeltaWorkloads.longReply(bytes: 1_000_000, deltas: 20_000 / scale, name: "delta.store.reply1m"),
        TimelineWorkloads.pageMerge(history: 1_000, pages: 200 / scale),
        TimelineWorkloads.pageMerge(history: 100_000, pages: 200 / scale),
        TimelineWorkloads.sendConfirm(history: 100_000, sends: 5_000 / scale),
        TimelineWorkloads.fanout(subscribers: 1, deltas: 100_000 / scale),
        TimelineWorkloads.fanout(subscribers: 8, deltas: 100_000 / scale),
        TimelineWorkloads.listRealtime(conversations: 10_000, events: 20_000 / scale),
      ] + Components.all()
    return all.filter { filter == nil || $0.name.hasPrefix(filter!) }
  }

  /// Measures `workloads` in interleaved rounds, then prints each result to stdout as a JSON line.
  static func measure(_ workloads: [Workload], runs: Int) async -> [Measurement] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let results = await Harness.measure(workloads, runs: runs)
    for measurement in results {
      FileHandle.standardOutput.write(((try? encoder.encode(measurement)) ?? Data()) + Data("\n".utf8))
    }
    return results
  }

  /// The table for people, with the ratio targets.
  static func table(_ measurements: [Measurement], quick: Bool) -> String {
    var table = "\n\(quick ? "quick run" : "full run"), \(ProcessInfo.processInfo.activeProcessorCount) cores\n"
    table += "workload".padding(toLength: 24, withPad: " ", startingAt: 0) + "      ns/op        ops  runs\n"
    for result in measurements {
      table += result.name.padding(toLength: 24, withPad: " ", startingAt: 0)
      table += String(format: "%11.1f %10d %5d\n", result.nsPerOp, result.ops, result.runs)
    }
    let byName = Dictionary(measurements.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    table += "\nratio targets (one run, side by side)\n"
    for target in RatioTarget.all {
      guard let (value, met) = target.check(byName) else { continue }
      let wanted = "\(target.atMost ? "<=" : ">=") \(target.limit)"
      table += "\(target.numerator) / \(target.denominator)".padding(toLength: 44, withPad: " ", startingAt: 0)
      table += String(format: "%10.2f  ", value) + "\(wanted)  \(met ? "met" : "MISSED")\n"
    }
    return table
  }
}
