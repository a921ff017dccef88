import ChatHTTP
import Foundation

extension JSONByteScanner {
  /// A `text-delta` or `reasoning-delta` chunk read from its bytes (its `type`, `id` and `delta`, and any
  /// field the protocol ignores), or nil for the general path: the hottest chunk, read without a JSON tree.
  /// `knownID` is the part the last delta named: an ID with the same bytes is that string again.
  mutating func uiMessageDelta(knownID: String?) -> (isText: Bool, id: String, delta: String)? {
    var isText: Bool?
    var id: String?
    var delta: String?
    skipSpace()
    guard take(UInt8(ascii: "{")) else { return nil }
    skipSpace()
    guard !take(UInt8(ascii: "}")) else { return nil }
    while true {
      guard let key = rawString() else { return nil }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipSpace()
      switch key.count {
      case 4 where Self.equals(key, "type"):
        guard let type = rawString() else { return nil }
        if Self.equals(type, "text-delta") {
          isText = true
        } else if Self.equals(type, "reasoning-delta") {
          isText = false
        } else {
          return nil
        }
      case 2 where Self.equals(key, "id"):
        if let knownID, takeKnown(knownID) {
          id = knownID
        } else {
          guard let value = string() else { return nil }
          id = value
        }
      case 5 where Self.equals(key, "delta"):
        guard let value = string() else { return nil }
        delta = value
      default:
        // Fields the general path reads into the chunk are its to read; others are skipped there too.
        guard !Self.equals(key, "providerMetadata"), skipValue() else { return nil }
      }
      if endOfMember() { break }
      if index > bytes.count { return nil }
    }
    guard isAtEnd(), let isText, let id, let delta else { return nil }
    return (isText, id, delta)
  }
}
