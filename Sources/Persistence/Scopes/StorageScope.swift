/// Whose data a directory holds: one workspace (app, tenant, or agent deployment) and one signed-in user, or
/// the anonymous user of this installation.
///
/// Scopes never share files: signing out of A and in as B shows nothing of A, and `ChatStorage.forget(_:)`
/// deletes exactly one scope.
///
/// ```swift
/// let mine = StorageScope(workspace: "acme-support", userID: "u-1042")
/// let guest = StorageScope(workspace: "acme-support")  // the anonymous installation
/// ```
public struct StorageScope: Hashable, Sendable, CustomStringConvertible {
  /// The workspace the conversations belong to.
  public var workspace: String
  /// The signed-in user; nil for the anonymous user of this installation.
  public var userID: String?

  /// A scope for `userID` in `workspace`, or for the anonymous installation when `userID` is nil.
  public init(workspace: String, userID: String? = nil) {
    self.workspace = workspace
    self.userID = userID
  }

  /// `workspace/user` or `workspace/anonymous`, for logs (user IDs are not secret, credentials are never here).
  public var description: String { "\(workspace)/\(userID ?? "anonymous")" }
}
