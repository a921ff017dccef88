/// How an anonymous user can be reached, as they gave it (a pre-chat form's e-mail): the backend receives it
/// (`ChatBackend.updateContactDetails`) without the user becoming a signed-in identity. A signed-in user's
/// contact details are their account's, not the client's.
///
/// ```swift
/// try client.setContactDetails(ContactDetails(email: "ana@example.com", name: "Ana"))
/// ```
public struct ContactDetails: Hashable, Sendable, Codable {
  /// An e-mail address: 3 to 254 UTF-8 bytes, one `@` with something on each side, no spaces or control
  /// characters. Not checked further: the server decides whether it can write to it.
  public var email: String?
  /// The name the user gave, up to 128 characters, no control characters.
  public var name: String?

  /// Contact details; all nil clears what the backend has.
  public init(email: String? = nil, name: String? = nil) {
    self.email = email
    self.name = name
  }

  /// The longest e-mail address, in UTF-8 bytes (RFC 5321's path limit).
  public static let maximumEmailBytes = 254
  /// The longest name, in characters.
  public static let maximumNameLength = 128

  /// Why these details cannot be sent, as an `INVALID_CONTACT` error naming the field; nil when they can.
  public var refusal: ChatError? {
    if let email {
      let bytes = email.utf8
      let parts = email.split(separator: "@", omittingEmptySubsequences: false)
      let clean = email.unicodeScalars.allSatisfy {
        !$0.properties.isWhitespace && $0.value >= 0x20 && $0.value != 0x7F
      }
      guard bytes.count >= 3, bytes.count <= Self.maximumEmailBytes, parts.count == 2, !parts[0].isEmpty,
        !parts[1].isEmpty, clean
      else {
        return ChatError(
          .invalidContact,
          "An e-mail address is 3 to \(Self.maximumEmailBytes) bytes with one @ and no spaces; "
            + "\(email.utf8.count) bytes were given.")
      }
    }
    if let name {
      let clean = name.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
      guard name.count <= Self.maximumNameLength, clean else {
        return ChatError(
          .invalidContact, "A name is up to \(Self.maximumNameLength) characters without control characters.")
      }
    }
    return nil
  }
}
