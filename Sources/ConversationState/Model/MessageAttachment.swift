public import Foundation

/// A file attached to a message the user sends.
///
/// Give it a `source` and the store uploads it before the message goes out (one upload effect per
/// attachment; progress only moves forward; a failed upload fails the message, retryable, and a retry
/// uploads only what is not uploaded yet).
///
/// A message holds at most `ChatPolicy.maximumAttachments` of them, each at most
/// `ChatPolicy.maximumAttachmentBytes`; the reducer refuses more with a typed error and keeps the draft.
public struct MessageAttachment: Identifiable, Hashable, Sendable, Codable {

  /// Identifies the attachment within its message, so upload progress reaches the right one.
  public var id: AttachmentID
  /// The file's name as the user picked it, for display.
  public var filename: String
  /// The file's MIME type, for example `image/png`.
  public var contentType: String
  /// The file's size in bytes; at most `ChatPolicy.maximumAttachmentBytes`.
  public var byteSize: Int
  /// Upload progress, 0…1.
  public var uploadProgress: Double
  /// Where the uploaded file lives; set once the upload finished.
  public var url: URL?
  /// Where its bytes are until it is uploaded. An attachment with a source and no `url` is uploaded by the
  /// store's runtime before its message is sent; one without a source is sent as it is (the host uploaded
  /// it, or the server takes metadata only).
  public var source: AttachmentSource?

  /// An attachment as picked, before its upload starts (`uploadProgress` 0, no `url`).
  public init(
    id: AttachmentID, filename: String, contentType: String, byteSize: Int, uploadProgress: Double = 0,
    url: URL? = nil, source: AttachmentSource? = nil
  ) {
    self.source = source
    self.id = id
    self.filename = filename
    self.contentType = contentType
    self.byteSize = byteSize
    self.uploadProgress = uploadProgress
    self.url = url
  }
}
