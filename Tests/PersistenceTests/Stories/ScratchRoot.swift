import Foundation
import Persistence

/// A fresh storage root under the system's temporary directory, deleted when the value is dropped.
final class ScratchRoot {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "persistence-stories-" + UUID().uuidString
  }

  func storage(onEvent: (@Sendable (StorageEvent) -> Void)? = nil) throws -> ChatStorage {
    try ChatStorage(root: path, onEvent: onEvent)
  }

  func scope(_ userID: String = "u1") throws -> ScopeDirectory {
    try storage().scope(StorageScope(workspace: "acme", userID: userID))
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}
