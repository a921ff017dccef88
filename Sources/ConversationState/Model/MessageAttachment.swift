public import Foundation

/// A file attached to a message the user sends.
///
/// A message holds at most `MessageAttachment.maximumPerMessage` of them, each at most
/// `MessageAttachment.maximumByteSize`; the reducer refuses more with a typed error and keeps the draft.
public struct MessageAttachment: Identifiable, Hashable, Sendable, Codable {
  /// The most attachments one message may carry; sending more fails with `TOO_MANY_ATTACHMENTS`.
  public static let maximumPerMessage = 4
  /// The largest attachment accepted, in bytes (8 MiB); a larger one fails with `ATTACHMENT_TOO_LARGE`.
  public static let maximumByteSize = 8 * 1024 * 1024

  /// Identifies the attachment within its message, so upload progress reaches the right one.
  public var id: AttachmentID
  /// The file's name as the user picked it, for display.
  public var filename: String
  /// The file's MIME type, for example `image/png`.
  public var contentType: String
  /// The file's size in bytes; at most `maximumByteSize`.
  public var byteSize: Int
  /// Upload progress, 0…1.
  public var uploadProgress: Double
  /// Where the uploaded file lives; set once the upload finished.
  public var url: URL?

  /// An attachment as picked, before its upload starts (`uploadProgress` 0, no `url`).
  public init(
    id: AttachmentID, filename: String, contentType: String, byteSize: Int, uploadProgress: Double = 0,
    url: URL? = nil
  ) {
    self.id = id
    self.filename = filename
    self.contentType = contentType
    self.byteSize = byteSize
    self.uploadProgress = uploadProgress
    self.url = url
  }
}
