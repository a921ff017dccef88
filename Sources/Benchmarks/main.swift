import Dispatch
import Foundation

let usage = """
  swift run -c release benchmarks [--quick] [--filter PREFIX[,PREFIX...]]

  Runs every workload once to warm up, then 5 rounds; each round runs every selected workload once, in turn.
  Rounds interleave because the machines are shared and noisy: a slow moment slows every workload of its
  round alike, so a ratio taken within a round (both sides measured side by side) holds steadier than two
  medians taken minutes apart. Only ratios are targets; absolute times are for reading.

  stdout: one JSON line per workload, {"name", "ns_per_op", "ops", "runs", "snapshots"?, "unit"?}, where
  ns_per_op is the median of the 5 rounds, snapshots what its subscriber took in the last round, and unit
  "bytes" for a size; then one line per ratio target, {"ratio", "min", "median", "max", "limit", "at_most",
  "met"}, over the rounds' ratios, judged on the median.
  stderr: the same as tables for people.

    --quick          smaller workloads (a tenth of the operations), for CI
    --filter LIST    only workloads whose names start with one of the comma-separated prefixes
    --help           this text

  """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
  print(usage, terminator: "")
  exit(0)
}
let quick = arguments.contains("--quick")
let filter = arguments.firstIndex(of: "--filter").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let workloads = Suite.workloads(quick: quick, filter: filter)

// A synchronous main that waits for the async runner: an async top-level main turns the main thread into
// dispatch's signal thread, which valgrind (used to count instructions) cannot run.
let finished = DispatchSemaphore(value: 0)
let box = MeasurementBox()
// Detached: a plain Task would inherit the main actor, whose thread is the one blocked below.
Task.detached { [workloads] in
  box.measurements = await Suite.measure(workloads, runs: 5)
  finished.signal()
}
finished.wait()
StorageWorkloads.removeFiles()
FileHandle.standardError.write(Data(Suite.table(box.measurements, quick: quick).utf8))
exit(0)

/// Hands the results from the runner task to the main thread, which waits on the semaphore meanwhile.
final class MeasurementBox: @unchecked Sendable {
  // @unchecked Sendable: written once by the runner task before `finished.signal()`, read by the main thread
  // only after `finished.wait()` returns; the semaphore orders the write before the read.
  var measurements: [Measurement] = []
}
