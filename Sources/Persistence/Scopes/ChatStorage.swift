public import Foundation

/// The root of everything this library stores for one app: the installation identity and one directory per
/// `StorageScope`.
///
/// ```swift
/// let storage = try ChatStorage(root: ChatStorage.defaultRoot(app: "acme-chat"))
/// let scope = try storage.scope(StorageScope(workspace: "acme", userID: "u-1042"))
/// let file = try scope.conversation("c42")
/// ```
///
/// Directories are created with mode 0700 and files with 0600. Nothing stored is a credential. Use one
/// `ChatStorage` per root in a process; two processes may share a root but not a scope at the same time.
public final class ChatStorage: Sendable {
  /// The directory everything is under.
  public let root: String
  let events: StorageEvents

  /// Storage under `root`, created (0700) if missing. `onEvent` hears of files moved aside, torn writes
  /// dropped, migrations, compactions and outbox evictions (never their contents), asynchronously and in
  /// order, on a task of its own: it may call back into a `ChatClient` or this storage.
  public init(root: String, onEvent: (@Sendable (StorageEvent) -> Void)? = nil) throws(PersistenceError) {
    self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    self.events = StorageEvents(handler: onEvent)
    try FileSystem.createDirectory(self.root)
  }

  /// Returns once every event reported so far has reached `onEvent`.
  public func eventsDelivered() async { await events.delivered() }

  /// The platform's place for an app's data: `$XDG_DATA_HOME/<app>`, else `~/.local/share/<app>` (from `HOME`),
  /// else the working directory's `.<app>`. `app` is escaped into one path component.
  public static func defaultRoot(
    app: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    let name = StorageName.isPlain(app) ? app : StorageName.escaped(app)
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return "\(data)/\(name)" }
    if let home = environment["HOME"], home.hasPrefix("/") { return "\(home)/.local/share/\(name)" }
    return ".\(name)"
  }

  /// This installation's ID, created and stored on first use.
  public func installationID() throws(PersistenceError) -> InstallationID {
    try InstallationFile.loadOrCreate("\(root)/installation", events: events)
  }

  /// The installation's outbox epoch: 1 until the first sign-out, then raised by each (see
  /// `raiseOutboxEpoch()`). Every outbox batch carries it; a `ChatClient` keeps its scopes' outboxes on it.
  public func outboxEpoch() throws(PersistenceError) -> UInt64 {
    try InstallationEpoch.load("\(root)/epoch", events: events)
  }

  /// Ends the current outbox epoch (a sign-out, or a change of person) and returns the next one, stored
  /// before it is returned. Sequence numbers start at 1 again in it.
  @discardableResult
  public func raiseOutboxEpoch() throws(PersistenceError) -> UInt64 {
    try InstallationEpoch.raise("\(root)/epoch", events: events)
  }

  /// Makes `epoch` the installation's outbox epoch, stored before it returns: the server's, when it refused
  /// a batch as stale (`OutboxReceipt.resync`). 0 is taken as 1.
  public func adoptOutboxEpoch(_ epoch: UInt64) throws(PersistenceError) {
    try InstallationEpoch.store(max(epoch, 1), at: "\(root)/epoch")
  }

  /// Forgets this installation: its ID, its outbox epoch and its anonymous scopes. The next
  /// `installationID()` is a new one, whose epoch starts at 1. Signed-in users' scopes are kept (use
  /// `forget(_:)` for those).
  public func resetInstallation() throws(PersistenceError) {
    let installation = try installationID()
    let scopes = "\(root)/scopes"
    var isDirectory = false
    if FileSystem.exists(scopes, isDirectory: &isDirectory), isDirectory {
      for workspace in try FileSystem.entries(of: scopes) {
        try FileSystem.removeTree("\(scopes)/\(workspace)/\(Self.anonymousName(installation))")
      }
    }
    try FileSystem.removeTree("\(root)/installation")
    try FileSystem.removeTree("\(root)/epoch")
    try FileSystem.syncDirectory(root)
  }

  /// The directory of `scope`, created if missing. For an anonymous scope this creates the installation ID
  /// if there is none yet.
  public func scope(_ scope: StorageScope) throws(PersistenceError) -> ScopeDirectory {
    let directory = try directory(of: scope)
    try FileSystem.createDirectory(directory)
    return ScopeDirectory(scope: scope, directory: directory, events: events)
  }

  /// Deletes everything stored for `scope` ("forget this user"). Other scopes are untouched.
  public func forget(_ scope: StorageScope) throws(PersistenceError) {
    let directory = try directory(of: scope)
    try FileSystem.removeTree(directory)
    try? FileSystem.syncDirectory(FileSystem.parentDirectory(of: directory))
  }

  private func directory(of scope: StorageScope) throws(PersistenceError) -> String {
    let workspace = "\(root)/scopes/\(StorageName.escaped(scope.workspace))"
    guard let userID = scope.userID else { return "\(workspace)/\(Self.anonymousName(try installationID()))" }
    return "\(workspace)/user-\(StorageName.escaped(userID))"
  }

  private static func anonymousName(_ installation: InstallationID) -> String {
    "anonymous-\(StorageName.escaped(installation.rawValue))"
  }
}
