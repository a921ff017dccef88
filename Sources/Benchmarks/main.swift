import Dispatch
import Foundation

// swift run -c release benchmarks [--quick] [--filter PREFIX[,PREFIX...]]
// stdout: one JSON object per workload, {"name", "ns_per_op", "ops", "runs"}: the median of 5 runs after a
// warm-up. stderr: a table for people, with the ratio targets.

let arguments = Array(CommandLine.arguments.dropFirst())
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
