public import Foundation

/// A file attached to a message the user sends.
///
/// A message holds at most `MessageAttachment.maximumPerMessage` of them, each at most
/// `MessageAttachment.maximumByteSize`; the reducer refuses more with a typed error and keeps the draft.
public struct MessageAttachment: Identifiable, Hashable, Sendable, Codable {
  public static let maximumPerMessage = 4
  public static let maximumByteSize = 8 * 1024 * 1024

  public var id: AttachmentID
  public var filename: String
  public var contentType: String
  public var byteSize: Int
  /// Upload progress, 0…1.
  public var uploadProgress: Double
  /// Where the uploaded file lives; set once the upload finished.
  public var url: URL?

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
