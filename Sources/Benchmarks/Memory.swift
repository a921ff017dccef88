import ConversationState
import ConversationStore
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Memory held per message: the resident set (`/proc/self/statm`) before and after building a store of
/// `history` messages, divided by `history`. Run it alone (`--filter mem.`) for a clean number: pages that
/// earlier workloads freed stay resident and are reused, which makes a shared run undercount.
enum MemoryWorkloads {
  /// `mem.store.h100k`: reported in `ns_per_op`'s place as bytes per message (`"unit": "bytes"`).
  static func storeBytesPerMessage(history: Int) -> Workload {
    // Measured once, when the workload is built: later runs would reuse the pages the first one freed.
    let before = residentBytes()
    let store = Store(initialState: Conversations.history(history), reducer: ConversationReducer())
    let grown = max(0, residentBytes() - before)
    precondition(store.state.messages.count == history)
    return Workload(name: "mem.store.h\(DeltaWorkloads.label(history))") {
      WorkloadResult(ops: history, nanoseconds: UInt64(grown), unit: "bytes")
    }
  }

  private static func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
