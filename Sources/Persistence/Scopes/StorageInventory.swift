public import ConversationState

/// What a storage root holds, read without changing anything (no migration, no repair, nothing moved; the one
/// exception is an unreadable installation file, which reading moves aside as `installationID()` does):
/// for support tools and `demo dump`.
public struct StorageInventory: Sendable {
  /// One scope's directory and what is in it.
  public struct Scope: Sendable {
    /// The directory, relative to the root (`scopes/<workspace>/<user>`).
    public var directory: String
    public var conversations: [Conversation]
    /// What waits in the scope's outbox, oldest first.
    public var outbox: [OutboxOperation]
    /// Files of this scope that could not be read (they would be moved aside when opened), with why.
    public var unreadable: [String: String]
  }

  /// One stored conversation.
  public struct Conversation: Sendable {
    /// The file, relative to the scope.
    public var file: String
    /// What the journal holds (its newest messages; older ones are in the archive).
    public var state: ConversationState
    /// How many of its committed messages the scope's message archive holds (0 for one without an ID).
    public var archivedMessages: Int
  }

  /// The installation ID, when one was created.
  public var installationID: InstallationID?
  public var scopes: [Scope]
  /// Files moved aside as corrupt (`*.corrupt-N`), relative to the root.
  public var movedAside: [String]
}

extension ChatStorage {
  /// Everything stored under this root, read only.
  public func inventory() throws(PersistenceError) -> StorageInventory {
    var scopes: [StorageInventory.Scope] = []
    var movedAside: [String] = []
    for file in try Self.files(under: root, relativeTo: root) where file.contains(".corrupt-") {
      movedAside.append(file)
    }
    let scopesDirectory = "\(root)/scopes"
    var isDirectory = false
    if FileSystem.exists(scopesDirectory, isDirectory: &isDirectory), isDirectory {
      for workspace in try FileSystem.entries(of: scopesDirectory).sorted() {
        let workspaceDirectory = "\(scopesDirectory)/\(workspace)"
        guard FileSystem.exists(workspaceDirectory, isDirectory: &isDirectory), isDirectory else { continue }
        for user in try FileSystem.entries(of: workspaceDirectory).sorted() {
          scopes.append(try Self.scopeInventory("\(workspaceDirectory)/\(user)", name: "scopes/\(workspace)/\(user)"))
        }
      }
    }
    var installation: InstallationID?
    if FileSystem.exists("\(root)/installation", isDirectory: &isDirectory), !isDirectory {
      installation = try? installationID()
    }
    return StorageInventory(installationID: installation, scopes: scopes, movedAside: movedAside.sorted())
  }

  private static func scopeInventory(_ directory: String, name: String) throws(PersistenceError)
    -> StorageInventory.Scope
  {
    var conversations: [StorageInventory.Conversation] = []
    var unreadable: [String: String] = [:]
    let conversationsDirectory = "\(directory)/conversations"
    var isDirectory = false
    if FileSystem.exists(conversationsDirectory, isDirectory: &isDirectory), isDirectory {
      var archive: MessageArchive?
      if FileSystem.exists("\(conversationsDirectory)/\(MessageArchive.fileName)", isDirectory: &isDirectory) {
        do {
          archive = try MessageArchive(directory: conversationsDirectory)
        } catch {
          unreadable["conversations/\(MessageArchive.fileName)"] = error.description
        }
      }
      for file in try FileSystem.entries(of: conversationsDirectory).sorted() where file.hasSuffix(".conv") {
        do {
          if let loaded = try ConversationJournal.load("\(conversationsDirectory)/\(file)") {
            let archived = try loaded.state.conversationID.map { id throws(PersistenceError) in
              try archive?.count(in: id) ?? 0
            }
            conversations.append(
              StorageInventory.Conversation(
                file: "conversations/\(file)", state: loaded.state, archivedMessages: archived ?? 0))
          }
        } catch {
          unreadable["conversations/\(file)"] = error.description
        }
      }
    }
    var journal = OutboxJournal(
      path: "\(directory)/outbox", limits: OutboxLimits(), events: StorageEvents(handler: nil))
    do {
      try journal.load(repairing: false)
    } catch {
      unreadable["outbox"] = error.description
    }
    return StorageInventory.Scope(
      directory: name, conversations: conversations, outbox: journal.operations.map(\.operation),
      unreadable: unreadable)
  }

  private static func files(under directory: String, relativeTo root: String) throws(PersistenceError) -> [String] {
    var found: [String] = []
    for name in try FileSystem.entries(of: directory) {
      let path = "\(directory)/\(name)"
      var isDirectory = false
      guard FileSystem.exists(path, isDirectory: &isDirectory) else { continue }
      if isDirectory {
        found += try files(under: path, relativeTo: root)
      } else {
        found.append(String(path.dropFirst(root.count + 1)))
      }
    }
    return found
  }
}
