import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// A key nobody vetted, as user IDs, workspace IDs and conversation IDs arrive from a server or a host app.
private struct HostileKey: Sendable, CustomTestStringConvertible {
  let value: String

  /// Readable in test names: control characters spelled out, long keys shortened.
  var testDescription: String {
    let visible = value.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
    return visible.prefix(24).joined() + (visible.count > 24 ? "…(\(value.utf8.count) bytes)" : "")
  }

  static let all: [HostileKey] = [
    "../../etc", "..", ".", "/", "a/b", "./", "/etc/passwd", "\0", "nul\0byte", "nul\0bytf",
    String(repeating: "x", count: 300), String(repeating: "x", count: 301), "👩‍👩‍👧 ünïcödé 中文 עברית",
    "e\u{301}", "\u{E9}", "", " ", "a b", "a_b", "ab", "CON", "-rf", "user-u1", "anonymous-x", "~", "$HOME",
    "line\nbreak", "back\\slash",
  ].map(HostileKey.init)
}

/// A fresh root inside its own temporary directory, so what lands beside the root can be seen too.
private struct Root {
  let parent: String
  let path: String

  init() throws {
    parent = try temporaryStoreDirectory("file-modes")
    path = parent + "/root"
  }

  func remove() { try? FileManager.default.removeItem(atPath: parent) }

  /// Every file and directory under the root, as absolute paths.
  func everything() -> [String] {
    (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).map { path + "/" + $0 }
  }
}

/// Stores one message in conversation `id` of `scope`, one operation in its outbox and a one-row list.
private func writeSomething(in scope: ScopeDirectory, conversation id: ConversationID = "c1") throws {
  let file = try scope.conversation(id)
  let state = ConversationState.existing([.server("Hello", id: "s1", at: 1)], id: id)
  try file.persist(state, changes: .reset, at: .story(1))
  let operation = OutboxOperation(id: "op-1", conversationID: id, kind: .markRead(upTo: "s1"), enqueuedAt: .story(2))
  try scope.outbox().enqueue(operation, at: .story(2))
  var list = ConversationListState()
  list.conversations = ConversationList([ConversationSummary(id: id, title: "Hello")])
  try scope.conversationList.save(list)
}

/// Whether `scope` holds nothing: no conversation, no operation, no list.
private func holdsNothing(_ scope: ScopeDirectory, conversation id: ConversationID = "c1") throws -> Bool {
  try scope.conversation(id).restored == nil && scope.outbox().operations.isEmpty
    && scope.conversationList.load() == nil
}

@Suite("File modes, scope keys and identity")
struct FileModeAndScopeTests {
  @Test("every directory is 0700 and every file 0600")
  func modes() throws {
    // Given a store that has written everything it writes: the installation, user and anonymous scopes, a
    // conversation that moved from its "new" file to its ID's, an outbox written to and completed from, a list
    let root = try Root()
    defer { root.remove() }
    let storage = try ChatStorage(root: root.path)
    for scope in [StorageScope(workspace: "w", userID: "u1"), StorageScope(workspace: "w")] {
      let scopeStorage = try storage.scope(scope)
      try writeSomething(in: scopeStorage)
      let new = try scopeStorage.conversation(nil)
      var state = ConversationState()
      state.draft = "first words"
      try new.persist(state, changes: .reset, at: .story(1))
      state.conversationID = "c2"
      try new.persist(state, changes: .reset, at: .story(2))
      try scopeStorage.outbox().complete(["op-1"])
    }

    // When every file and directory under the root is listed
    let everything = [root.path] + root.everything()
    #expect(everything.count > 12)

    // Then directories are the user's alone (0700), and so are files (0600)
    for path in everything {
      var isDirectory: ObjCBool = false
      #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory))
      let mode = FileSystem.mode(of: path)
      #expect(mode == (isDirectory.boolValue ? 0o700 : 0o600), "\(path) has mode \(String(mode ?? 0, radix: 8))")
    }
    // (the "new" conversation's file moved to its ID's: no file is left behind, temporary or not)
    let files = everything.map { ($0 as NSString).lastPathComponent }
    #expect(!files.contains { $0.hasPrefix("new") || $0.hasSuffix(".tmp") || $0.hasSuffix(".new") }, "\(files)")
  }

  @Test("a hostile key becomes one plain path component under the root", arguments: HostileKey.all)
  fileprivate func hostileKey(_ hostile: HostileKey) throws {
    let key = hostile.value
    // Given a root
    let root = try Root()
    defer { root.remove() }
    let storage = try ChatStorage(root: root.path)

    // When the key is a workspace, a user ID and a conversation ID, and something is stored under each
    let scopes = [
      StorageScope(workspace: key, userID: "u1"), StorageScope(workspace: "w", userID: key),
      StorageScope(workspace: key),
    ]
    for scope in scopes {
      let scopeStorage = try storage.scope(scope)
      try writeSomething(in: scopeStorage, conversation: ConversationID(key))

      // Then the scope's directory is <root>/scopes/<workspace>/<user>: one component per key, none of them
      // empty, "." or "..", no NUL, no longer than a file name may be
      let relative = try #require(relativePath(scopeStorage.directory, under: root.path + "/scopes"))
      let components = relative.split(separator: "/", omittingEmptySubsequences: false)
      #expect(components.count == 2, "\(relative)")
      for component in components {
        #expect(!component.isEmpty && component != "." && component != "..", "\(relative)")
        #expect(component.utf8.count <= 255 && !component.utf8.contains(0), "\(relative)")
      }
      // And the conversation's file is one plain name in the scope's conversations directory
      let conversations = try FileManager.default.contentsOfDirectory(atPath: scopeStorage.directory + "/conversations")
        .filter { !$0.hasPrefix(MessageArchive.fileName) }
      #expect(conversations.count == 1, "\(conversations)")
      #expect(conversations.allSatisfy { $0.hasSuffix(".conv") && $0.utf8.count <= 255 && !$0.hasPrefix(".") })
      // And it all reads back under the same key
      #expect(try scopeStorage.conversation(ConversationID(key)).restored?.conversationID == ConversationID(key))
    }
    // And nothing was written beside the root
    #expect(try FileManager.default.contentsOfDirectory(atPath: root.parent) == ["root"])
    #expect(root.everything().allSatisfy { URL(fileURLWithPath: $0).standardized.path.hasPrefix(root.path + "/") })
  }

  @Test("distinct keys get distinct directories and files, however alike they look")
  func distinctKeys() throws {
    // Given a root
    let root = try Root()
    defer { root.remove() }
    let storage = try ChatStorage(root: root.path)

    // When every hostile key is a user of one workspace, and a conversation of one scope
    let users = try HostileKey.all.map(\.value).map {
      try storage.scope(StorageScope(workspace: "w", userID: $0)).directory
    }
    let workspaces = try HostileKey.all.map(\.value).map {
      try storage.scope(StorageScope(workspace: $0, userID: "u1")).directory
    }
    let scope = try storage.scope(StorageScope(workspace: "w", userID: "u1"))
    for key in HostileKey.all.map(\.value) { try writeSomething(in: scope, conversation: ConversationID(key)) }

    // Then no two share a directory or a file
    #expect(Set(users).count == HostileKey.all.map(\.value).count)
    #expect(Set(workspaces).count == HostileKey.all.map(\.value).count)
    let conversations = try FileManager.default.contentsOfDirectory(atPath: scope.directory + "/conversations")
      .filter { !$0.hasPrefix(MessageArchive.fileName) }
    #expect(conversations.count == HostileKey.all.map(\.value).count)
    // And each conversation reads back as its own
    for key in HostileKey.all.map(\.value) {
      #expect(
        try scope.conversation(ConversationID(key)).restored?.conversationID == ConversationID(key),
        "\(HostileKey(value: key).testDescription)")
    }
  }

  @Test("signing out of one user and in as another shows nothing of the first; forgetting a user deletes only them")
  func signOutIsolation() throws {
    // Given Alice's conversation, outbox and list; Bob in the same workspace; Alice in another workspace; and the
    // installation's anonymous user, each with their own
    let root = try Root()
    defer { root.remove() }
    let storage = try ChatStorage(root: root.path)
    let alice = StorageScope(workspace: "acme", userID: "alice")
    let bob = StorageScope(workspace: "acme", userID: "bob")
    let aliceElsewhere = StorageScope(workspace: "globex", userID: "alice")
    let anonymous = StorageScope(workspace: "acme")
    try writeSomething(in: storage.scope(alice))

    // When Alice signs out and Bob signs in
    let bobStorage = try storage.scope(bob)
    // Then nothing of Alice's is readable as Bob, and their directories do not overlap
    #expect(try holdsNothing(bobStorage))
    let aliceDirectory = try storage.scope(alice).directory
    #expect(
      !bobStorage.directory.hasPrefix(aliceDirectory + "/") && !aliceDirectory.hasPrefix(bobStorage.directory + "/"))
    #expect(aliceDirectory != bobStorage.directory)

    // When Bob, Alice elsewhere and the anonymous user store things too, and Alice (in acme) is forgotten
    try writeSomething(in: bobStorage)
    try writeSomething(in: storage.scope(aliceElsewhere))
    try writeSomething(in: storage.scope(anonymous))
    let installation = try storage.installationID()
    try storage.forget(alice)

    // Then Alice's directory is gone, and opening her scope again finds nothing
    #expect(!FileManager.default.fileExists(atPath: aliceDirectory))
    #expect(try holdsNothing(storage.scope(alice)))
    // And everyone else's is as it was, and the installation is kept
    for other in [bob, aliceElsewhere, anonymous] {
      #expect(try !holdsNothing(storage.scope(other)), "\(other)")
      #expect(try storage.scope(other).outbox().operations.map(\.id) == ["op-1"], "\(other)")
    }
    #expect(try storage.installationID() == installation)
  }

  @Test("the installation ID is created once, kept across instances and sign-outs, and replaced by a reset")
  func installationIdentity() throws {
    // Given a fresh root
    let root = try Root()
    defer { root.remove() }

    // When the installation ID is asked for, by one storage and then by another on the same root
    let first = try ChatStorage(root: root.path).installationID()
    let storage = try ChatStorage(root: root.path)
    // Then it is one ID, a lowercase UUID, stored in a file of the user's alone
    #expect(try storage.installationID() == first)
    #expect(try storage.installationID() == first)
    #expect(UUID(uuidString: first.rawValue) != nil && first.rawValue == first.rawValue.lowercased())
    #expect(FileSystem.mode(of: root.path + "/installation") == 0o600)

    // When a user signs in, stores things and is forgotten, while the anonymous user stores things too
    let user = StorageScope(workspace: "acme", userID: "u1")
    let anonymous = StorageScope(workspace: "acme")
    try writeSomething(in: storage.scope(user))
    try storage.forget(user)
    try writeSomething(in: storage.scope(anonymous))
    let anonymousDirectory = try storage.scope(anonymous).directory
    // Then the installation is kept
    #expect(try storage.installationID() == first)
    #expect(anonymousDirectory.hasSuffix("/anonymous-" + StorageName.escaped(first.rawValue)))

    // When the user signs in again, stores things, and the installation is reset
    try writeSomething(in: storage.scope(user))
    try storage.resetInstallation()

    // Then there is a new ID, for this storage and any other on the root
    let second = try storage.installationID()
    #expect(second != first)
    #expect(try ChatStorage(root: root.path).installationID() == second)
    // And the old anonymous scope is deleted; the new anonymous user starts empty; the signed-in user is kept
    #expect(!FileManager.default.fileExists(atPath: anonymousDirectory))
    #expect(try storage.scope(anonymous).directory != anonymousDirectory)
    #expect(try holdsNothing(storage.scope(anonymous)))
    #expect(try !holdsNothing(storage.scope(user)))
  }

  @Test("threads asking one storage for its first installation ID at the same moment all get the one stored")
  func installationRace() throws {
    // Given a fresh root
    let root = try Root()
    defer { root.remove() }
    let ids = StateLock<[InstallationID]>([])
    let failures = StateLock<[String]>([])

    // When eight threads ask one storage (it is Sendable) for the installation ID at once
    let storage = try ChatStorage(root: root.path)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      do {
        let id = try storage.installationID()
        ids.withLock { $0.append(id) }
      } catch {
        failures.withLock { $0.append("\(error)") }
      }
    }

    // Then they all got the one that is stored, and no temporary file is left
    let stored = try ChatStorage(root: root.path).installationID()
    #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    #expect(ids.withLock { $0 } == Array(repeating: stored, count: 8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["installation"])
  }

  @Test(
    "a file let go closes its descriptor", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
  func descriptorsAreClosed() throws {
    // Given a scope
    let root = try Root()
    defer { root.remove() }
    let scope = try ChatStorage(root: root.path).scope(StorageScope(workspace: "w", userID: "u1"))

    // When a conversation is opened, written and let go
    do {
      let file = try scope.conversation("c1")
      try file.persist(.existing([.server("Hello", id: "s1", at: 1)], id: "c1"), changes: .reset, at: .story(1))
    }
    // Then none of its files is still open
    #expect(openDescriptors(under: root.path).isEmpty)

    // When the outbox is opened, written and let go
    do {
      let outbox = try scope.outbox()
      let operation = OutboxOperation(
        id: "op-1", conversationID: "c1", kind: .markRead(upTo: "s1"), enqueuedAt: .story(2))
      try outbox.enqueue(operation, at: .story(2))
    }
    // Then none of its files is still open (an open one keeps a forgotten user's data on disk until the app exits)
    #expect(openDescriptors(under: root.path).isEmpty)
  }
}

/// `path` relative to `directory`, when it is inside it once `.` and `..` are resolved; nil otherwise.
private func relativePath(_ path: String, under directory: String) -> String? {
  let resolved = URL(fileURLWithPath: path).standardized.path
  guard resolved.hasPrefix(directory + "/") else { return nil }
  return String(resolved.dropFirst(directory.count + 1))
}

/// The descriptors this process has open on files under `directory` (Linux: read from /proc/self/fd).
private func openDescriptors(under directory: String) -> [String] {
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
    .filter { $0.hasPrefix(directory + "/") }
}
