import Foundation

/// Every workload, named exactly as the benchmark issue names them so results compare across runs.
enum Suite {
  static func workloads(quick: Bool, filter: String?) -> [Workload] {
    let scale = quick ? 10 : 1
    // Named up front and built only when selected: building a workload builds its histories (up to 100,000
    // messages) and its files, which a filtered run should not pay for, nor a profile show.
    let all: [(name: String, make: () -> Workload)] =
      [
        ("delta.bare.h10k", { DeltaWorkloads.bare(history: 10_000, deltas: 100_000 / scale) }),
        ("delta.store.h100", { DeltaWorkloads.store(history: 100, deltas: 100_000 / scale) }),
        ("delta.store.h10k", { DeltaWorkloads.store(history: 10_000, deltas: 100_000 / scale) }),
        ("delta.store.h100k", { DeltaWorkloads.store(history: 100_000, deltas: 100_000 / scale) }),
        ("delta.realtime.h10k", { DeltaWorkloads.realtime(history: 10_000, deltas: 100_000 / scale) }),
        ("delta.naive.h10k", { DeltaWorkloads.naive(history: 10_000, deltas: 2_000 / scale) }),
        (
          "delta.store.reply1k",
          { DeltaWorkloads.longReply(bytes: 1_000, deltas: 20_000 / scale, name: "delta.store.reply1k") }
        ),
        (
          "delta.store.reply1m",
          { DeltaWorkloads.longReply(bytes: 1_000_000, deltas: 20_000 / scale, name: "delta.store.reply1m") }
        ),
        ("page.merge.h1k", { TimelineWorkloads.pageMerge(history: 1_000, pages: 200 / scale) }),
        ("page.merge.h100k", { TimelineWorkloads.pageMerge(history: 100_000, pages: 200 / scale) }),
        ("send.confirm.h1k", { TimelineWorkloads.sendConfirm(history: 1_000, sends: 5_000 / scale) }),
        ("send.confirm.h100k", { TimelineWorkloads.sendConfirm(history: 100_000, sends: 5_000 / scale) }),
        ("branch.switch.h1k", { BranchWorkloads.showSibling(history: 1_000, switches: 20_000 / scale) }),
        ("branch.switch.h100k", { BranchWorkloads.showSibling(history: 100_000, switches: 20_000 / scale) }),
        ("queue.drain.h1k", { QueueWorkloads.drain(history: 1_000, turns: 2_000 / scale) }),
        ("queue.drain.h100k", { QueueWorkloads.drain(history: 100_000, turns: 2_000 / scale) }),
        ("send.floor.h100k", { TimelineWorkloads.sendFloor(history: 100_000, turns: 5_000 / scale) }),
        ("ref.naive.send.h100k", { NaiveSendWorkload.make(history: 100_000, sends: 200 / scale) }),
        ("fanout.s1", { TimelineWorkloads.fanout(subscribers: 1, deltas: 100_000 / scale) }),
        ("fanout.s8", { TimelineWorkloads.fanout(subscribers: 8, deltas: 100_000 / scale) }),
        ("fanout.stream.s1", { TimelineWorkloads.fanout(subscribers: 1, deltas: 100_000 / scale, asStream: true) }),
        ("list.realtime.c10k", { TimelineWorkloads.listRealtime(conversations: 10_000, events: 20_000 / scale) }),
        ("persist.append.h1k", { StorageWorkloads.append(history: 1_000, appends: 200 / scale) }),
        ("persist.append.h100k", { StorageWorkloads.append(history: 100_000, appends: 200 / scale) }),
        ("load.store.h100k", { StorageWorkloads.load(history: 100_000) }),
        ("load.jsondecoder.h100k", { StorageWorkloads.jsonDecoder(history: 100_000) }),
        ("persist.delta.reply1m", { StorageWorkloads.deltaWithPersister(deltas: 20_000 / scale) }),
        ("open.newest.h1k", { LocalFirstWorkloads.open(history: 1_000) }),
        ("open.newest.h100k", { LocalFirstWorkloads.open(history: 100_000) }),
        ("open.full.h100k", { LocalFirstWorkloads.open(history: 100_000, whole: true) }),
        ("agent.context.h1k", { AgentContextWorkloads.context(history: 1_000, requests: 200 / scale) }),
        ("agent.context.h100k", { AgentContextWorkloads.context(history: 100_000, requests: 200 / scale) }),
        ("page.disk.h1k", { LocalFirstWorkloads.page(history: 1_000, pages: 200 / scale) }),
        ("page.disk.h100k", { LocalFirstWorkloads.page(history: 100_000, pages: 200 / scale) }),
        ("search.index.h100k", { LocalFirstWorkloads.searchIndex(searches: 20 / scale + 1) }),
        ("search.scan.h100k", { LocalFirstWorkloads.searchScan(searches: 4 / scale + 1) }),
        ("http.delta.local", { HTTPWorkloads.deltaLocal(replies: 40 / scale) }),
        ("frame.delta.h100", { FrameWorkloads.delta(history: 100, deltas: 20_000 / scale) }),
        ("frame.delta.h10k", { FrameWorkloads.delta(history: 10_000, deltas: 20_000 / scale) }),
        ("frame.delta.h100k", { FrameWorkloads.delta(history: 100_000, deltas: 20_000 / scale) }),
        ("frame.append.h10k", { FrameWorkloads.append(history: 10_000, deltas: 20_000 / scale) }),
        ("hold.delta.h10k", { FrameWorkloads.hold(history: 10_000, deltas: 20_000 / scale) }),
        ("frame.parts.h10k", { FrameWorkloads.delta(history: 10_000, deltas: 20_000 / scale, inParts: true) }),
        ("hold.parts.h10k", { FrameWorkloads.hold(history: 10_000, deltas: 20_000 / scale, inParts: true) }),
        ("frame.list.noop.c100", { FrameWorkloads.listNoop(conversations: 100, actions: 2_000 / scale) }),
        ("frame.list.noop.c10k", { FrameWorkloads.listNoop(conversations: 10_000, actions: 2_000 / scale) }),
        ("frame.list.realtime.c100", { FrameWorkloads.listRealtime(conversations: 100, events: 2_000 / scale) }),
        ("frame.list.realtime.c10k", { FrameWorkloads.listRealtime(conversations: 10_000, events: 2_000 / scale) }),
        ("list.rename.c100", { ListEditWorkloads.rename(conversations: 100, renames: 2_000 / scale) }),
        ("list.rename.c10k", { ListEditWorkloads.rename(conversations: 10_000, renames: 2_000 / scale) }),
        ("list.pin.c100", { ListEditWorkloads.pin(conversations: 100, pins: 2_000 / scale) }),
        ("list.pin.c10k", { ListEditWorkloads.pin(conversations: 10_000, pins: 2_000 / scale) }),
        ("list.delete.c100", { ListEditWorkloads.delete(conversations: 100, deletions: 2_000 / scale) }),
        ("list.delete.c10k", { ListEditWorkloads.delete(conversations: 10_000, deletions: 2_000 / scale) }),
        ("list.undo.c100", { ListEditWorkloads.undo(conversations: 100, undos: 2_000 / scale) }),
        ("list.undo.c10k", { ListEditWorkloads.undo(conversations: 10_000, undos: 2_000 / scale) }),
        ("list.stored.first.c100", { ListEditWorkloads.storedFirst(conversations: 100, pages: 200 / scale) }),
        ("list.stored.first.c10k", { ListEditWorkloads.storedFirst(conversations: 10_000, pages: 200 / scale) }),
        ("ref.array.delta.h10k", { ReferenceWorkloads.arrayDelta(history: 10_000, deltas: 100_000 / scale) }),
        ("ref.array.send.h100k", { ReferenceWorkloads.arraySend(history: 100_000, sends: 5_000 / scale) }),
        ("ref.array.page.h100k", { ReferenceWorkloads.arrayPage(history: 100_000, pages: 200 / scale) }),
        ("ref.state.read", { ReferenceWorkloads.stateRead(reads: 100_000 / scale) }),
        ("delta.naive2.h10k", { ReferenceWorkloads.naive2(history: 10_000, deltas: 20_000 / scale) }),
        ("mem.store.h100k", { MemoryWorkloads.storeBytesPerMessage(history: 100_000) }),
        ("client.open.h10k", { ClientWorkloads.clientOpen(history: 10_000, opens: 20 / scale + 1) }),
        ("client.open.call.h10k", { ClientWorkloads.clientOpen(history: 10_000, opens: 20 / scale + 1, caller: true) }),
        ("store.open.h10k", { ClientWorkloads.storeOpen(history: 10_000, opens: 20 / scale + 1) }),
        ("client.send", { ClientWorkloads.clientSend(sends: 200 / scale) }),
        ("store.send.scripted", { ClientWorkloads.storeSend(sends: 200 / scale) }),
        ("agui.decode.1mb", { AGUIWorkloads.decode() }),
        ("aisdk.decode.1mb", { AISDKWorkloads.decode() }),
        ("openai.decode.1mb", { OpenAIWorkloads.decode() }),
        // The protocols' own bodies through the SSE decoder alone: each protocol's denominator (#56).
        ("sse.decode.agui-body.1mb", { AgentStreamBody.sseDecode("sse.decode.agui-body.1mb", AGUIWorkloads.body) }),
        ("sse.decode.aisdk-body.1mb", { AgentStreamBody.sseDecode("sse.decode.aisdk-body.1mb", AISDKWorkloads.body) }),
        (
          "sse.decode.openai-body.1mb",
          { AgentStreamBody.sseDecode("sse.decode.openai-body.1mb", OpenAIWorkloads.body) }
        ),
      ] + Components.all() + ServerSentEventsWorkloads.all()
    let prefixes = filter?.split(separator: ",").map(String.init)
    return all.filter { entry in prefixes?.contains { entry.name.hasPrefix($0) } ?? true }.map { entry in
      let workload = entry.make()
      precondition(workload.name == entry.name, "workload \(workload.name) listed as \(entry.name)")
      return workload
    }
  }

  /// Measures `workloads` in interleaved rounds, then prints each result to stdout as a JSON line, then
  /// each ratio target's outcome (`{"ratio", "min", "median", "max", "limit", "at_most", "met"}`).
  static func measure(_ workloads: [Workload], runs: Int) async -> [Measurement] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let results = await Harness.measure(workloads, runs: runs)
    func line(_ value: some Encodable) {
      FileHandle.standardOutput.write(((try? encoder.encode(value)) ?? Data()) + Data("\n".utf8))
    }
    for measurement in results { line(measurement) }
    let byName = Dictionary(results.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    for result in RatioTarget.all.compactMap({ $0.check(byName) }) { line(result) }
    return results
  }

  /// The table for people, with the ratio targets.
  static func table(_ measurements: [Measurement], quick: Bool) -> String {
    var table = "\n\(quick ? "quick run" : "full run"), \(ProcessInfo.processInfo.activeProcessorCount) cores\n"
    table += "workload".padding(toLength: 28, withPad: " ", startingAt: 0) + "      ns/op        ops  runs\n"
    for result in measurements {
      table += result.name.padding(toLength: 28, withPad: " ", startingAt: 0)
      table += String(format: "%11.1f %10d %5d\n", result.nsPerOp, result.ops, result.runs)
    }
    let byName = Dictionary(measurements.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    table += "\nratio targets (each round's ratio, both sides from the same round; judged on the median)\n"
    table += "ratio".padding(toLength: 48, withPad: " ", startingAt: 0) + "   min  median     max  target\n"
    for result in RatioTarget.all.compactMap({ $0.check(byName) }) {
      let wanted = "\(result.atMost ? "<=" : ">=") \(result.limit)"
      table += result.ratio.padding(toLength: 46, withPad: " ", startingAt: 0)
      table += String(format: "%7.2f %7.2f %7.2f  ", result.min, result.median, result.max)
      table += "\(wanted)  \(result.met ? "met" : "MISSED")\n"
    }
    return table
  }
}
