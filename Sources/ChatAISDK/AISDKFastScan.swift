import ChatHTTP
import Foundation

extension JSONByteScanner {
  /// A `text-delta` or `reasoning-delta` chunk read from its bytes (its `type`, `id` and `delta`, and any
  /// field the protocol ignores), or nil for the general path: the hottest chunk, read without a JSON tree.
  /// `knownID` is the part the last delta named: an ID with the same bytes is given as nil (no string made).
  mutating func uiMessageDelta(knownID: String?) -> (isText: Bool, id: String?, delta: String)? {
    var isText: Bool?
    var id: String??
    var delta: String?
    let read = readMembers { scanner, key in
      switch key.count {
      case 4 where Self.equals(key, "type"):
        guard let type = scanner.rawString() else { return false }
        if Self.equals(type, "text-delta") {
          isText = true
        } else if Self.equals(type, "reasoning-delta") {
          isText = false
        } else {
          return false
        }
      case 2 where Self.equals(key, "id"):
        if let knownID, scanner.takeKnown(knownID) {
          id = .some(nil)
        } else {
          guard let value = scanner.string() else { return false }
          id = value
        }
      case 5 where Self.equals(key, "delta"):
        guard let value = scanner.string() else { return false }
        delta = value
      default:
        // Fields the general path reads into the chunk are its to read; others are skipped there too.
        return !Self.equals(key, "providerMetadata") && scanner.skipValue()
      }
      return true
    }
    guard read, isAtEnd(), let isText, let id, let delta else { return nil }
    return (isText, id, delta)
  }
}

extension AISDKReplyMapper {
  /// The template of a delta for the part `id` in the layout producers write (`streamText`'s: `type`, `id`,
  /// `delta`, in that order, no white space), through the delta's opening quote
  /// (`JSONByteScanner.templateString(after:)`); nil for an ID no template can hold. An event it matches is
  /// one `uiMessageDelta` reads as a delta of `id` of that type, with the same text.
  static func hotTemplate(id: String, isText: Bool) -> [UInt8]? {
    isText
      ? JSONByteScanner.template(#"{"type":"text-delta","id":""#, id: id, #"","delta":""#)
      : JSONByteScanner.template(#"{"type":"reasoning-delta","id":""#, id: id, #"","delta":""#)
  }
}
