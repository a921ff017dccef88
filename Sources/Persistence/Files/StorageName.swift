import ConversationState

/// File and directory names made from keys nobody vetted: user IDs, workspace IDs, conversation IDs.
///
/// A name is a readable prefix of the key's safe characters (letters, digits, `-`, `_`; at most 32) and 32 hex
/// digits of the SHA-256 of the whole key. So `../../etc`, NUL bytes, a 300-byte ID or any Unicode all
/// become one plain path component, different keys get different names (128 bits of hash), and a person
/// looking at the folder can still tell whose it is.
enum StorageName {
  static let prefixLength = 32

  /// Whether `key` can be a path component as it is: 1 to 64 letters, digits, `-` or `_`.
  static func isPlain(_ key: String) -> Bool {
    (1...64).contains(key.utf8.count)
      && key.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
          || byte == 0x2D || byte == 0x5F
      }
  }

  static func escaped(_ key: String) -> String {
    var prefix = ""
    for scalar in key.unicodeScalars where prefix.utf8.count < prefixLength {
      switch scalar {
      case "a"..."z", "A"..."Z", "0"..."9", "-", "_": prefix.unicodeScalars.append(scalar)
      default: continue
      }
    }
    let hash = ContentHash.of(Array(key.utf8)).hex.prefix(32)
    return prefix.isEmpty ? String(hash) : "\(prefix)-\(hash)"
  }
}
