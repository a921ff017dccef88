public import Foundation

/// Where an attachment's bytes are, before it is uploaded: a reference, so a state snapshot never carries
/// the bytes themselves.
///
/// ```swift
/// let photo = MessageAttachment(
///   id: "a1", filename: "receipt.png", contentType: "image/png", byteSize: 48_213,
///   source: .file(URL(fileURLWithPath: "/tmp/receipt.png")))
/// store.sendMessage("Here is my receipt", attachments: [photo])  // uploaded first, then sent
/// ```
public enum AttachmentSource: Hashable, Sendable, Codable {
  /// A file on this device; read when it is uploaded.
  case file(URL)
  /// Bytes in memory, shared by reference: copying a state copies the reference, not the bytes.
  case memory(AttachmentBytes)
}

/// Attachment bytes held by reference (see `AttachmentSource.memory`).
///
/// They are not persisted: a state restored from disk has the reference without the bytes, and such an
/// attachment's upload fails (retryable once attached again).
public final class AttachmentBytes: Hashable, Sendable, Codable {
  /// The bytes; empty after a restore from disk.
  public let data: Data

  /// Bytes to upload.
  public init(_ data: Data) { self.data = data }

  /// Equal when they hold the same bytes.
  public static func == (lhs: AttachmentBytes, rhs: AttachmentBytes) -> Bool { lhs === rhs || lhs.data == rhs.data }

  /// Hashes the size only: cheap, and consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(data.count) }

  /// Restores an empty reference: bytes are never written to disk.
  public init(from decoder: any Decoder) throws { data = Data() }

  /// Writes nothing but a marker: bytes are never written to disk.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(data.count)
  }
}
