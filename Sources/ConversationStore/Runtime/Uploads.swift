public import ConversationState
public import Foundation

/// One attachment to store, as the backend's `upload` gets it.
public struct AttachmentUpload: Hashable, Sendable {
  /// Where the bytes are: a file to read, or bytes in memory.
  public var source: AttachmentSource
  /// The MIME type, for example `image/png`.
  public var contentType: String
  /// The name the user gave the file.
  public var filename: String
  /// The size in bytes.
  public var byteSize: Int
  /// SHA-256 of the bytes; identical content is uploaded once per runtime.
  public var contentHash: ContentHash

  /// An upload of `source`.
  public init(
    source: AttachmentSource, contentType: String, filename: String, byteSize: Int, contentHash: ContentHash
  ) {
    self.source = source
    self.contentType = contentType
    self.filename = filename
    self.byteSize = byteSize
    self.contentHash = contentHash
  }
}

/// What an upload stream carries.
public enum UploadEvent: Hashable, Sendable {
  /// `fraction` (0…1) of the bytes are stored.
  case progress(Double)
  /// The upload is complete; the file lives at `url`.
  case stored(URL)
}

/// Uploads by content: identical bytes are stored once per runtime, and a second upload of bytes already
/// on their way waits for the first instead of sending them again.
final class UploadDeduplicator: Sendable {
  private let uploads = StateLock<[ContentHash: Task<URL, any Error>]>([:])

  /// The URL of `hash`'s bytes: stored already, on their way, or uploaded now by `start`. `start` reports
  /// progress; the ones that wait report none.
  func url(of hash: ContentHash, start: @escaping @Sendable () async throws -> URL) async throws -> URL {
    let task = uploads.withLock { uploads in
      if let existing = uploads[hash] { return existing }
      let task = Task { try await start() }
      uploads[hash] = task
      return task
    }
    do {
      return try await withTaskCancellationHandler {
        try await task.value
      } onCancel: {
        task.cancel()
      }
    } catch {
      // A failed or cancelled upload is forgotten, so the next attempt starts afresh.
      uploads.withLock { uploads in if uploads[hash] == task { uploads[hash] = nil } }
      throw error
    }
  }
}

extension AttachmentSource {
  /// The SHA-256 of the bytes, read from the file in chunks or hashed in memory.
  func contentHash() throws -> ContentHash {
    switch self {
    case .file(let url): return try ContentHash.ofFile(at: url)
    case .memory(let bytes): return ContentHash.of(bytes.data)
    }
  }
}
