import ChatHTTP
import Foundation

extension JSONByteScanner {
  /// The text of a `chat.completion.chunk` that only streams answer text: one choice at index 0 whose delta
  /// holds `content` (and perhaps `role`), no finish reason, no usage, no error. Read from its bytes without a
  /// JSON tree; nil for anything else, which the general path reads (and refuses, when it is broken).
  ///
  /// Fields the general path does not read (`object`, `created`, `model`, `system_fingerprint`, a choice's
  /// `logprobs`) are skipped; those it reads are taken only as the general path would take them here.
  ///
  /// `contentAt` (in `completionContent(contentAt:)`) is where the content string's opening and closing
  /// quotes are: every byte but the string's own decided that this chunk is taken, so a chunk with the same
  /// bytes around another string is taken too (`completionHotContent`).
  mutating func completionContent() -> String? {
    var contentAt = (open: 0, close: 0)
    return completionContent(contentAt: &contentAt)
  }

  /// `completionContent()`, and where its content string's quotes are.
  mutating func completionContent(contentAt: inout (open: Int, close: Int)) -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "choices") {
        // A repeated key is the general path's: which value counts is its decoder's rule.
        guard content == nil, scanner.take(UInt8(ascii: "[")),
          let text = scanner.completionChoiceContent(contentAt: &contentAt)
        else {
          return false
        }
        scanner.skipSpace()
        content = text
        return scanner.take(UInt8(ascii: "]"))
      }
      if Self.equals(key, "id") {
        // The general path reads it as a string (only the first chunk's names the answer).
        return scanner.index < scanner.bytes.count && scanner.bytes[scanner.index] == UInt8(ascii: "\"")
          && scanner.string() != nil
      }
      if Self.equals(key, "usage") || Self.equals(key, "error") { return scanner.take(literal: "null") }
      return scanner.skipValue()
    }
    guard read, isAtEnd() else { return nil }
    return content
  }

  /// The one choice's `delta.content`, the choice being at index 0 with no finish reason.
  private mutating func completionChoiceContent(contentAt: inout (open: Int, close: Int)) -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "delta") {
        guard content == nil, let text = scanner.completionDeltaContent(contentAt: &contentAt) else { return false }
        content = text
        return true
      }
      if Self.equals(key, "index") {
        return scanner.take(UInt8(ascii: "0")) && scanner.index < scanner.bytes.count
          && !Self.continuesNumber(scanner.bytes[scanner.index])
      }
      if Self.equals(key, "finish_reason") { return scanner.take(literal: "null") }
      return scanner.skipValue()
    }
    return read ? content : nil
  }

  /// A delta that holds `content` and perhaps `role`, nothing else.
  private mutating func completionDeltaContent(contentAt: inout (open: Int, close: Int)) -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "content") {
        let open = scanner.index
        guard content == nil, let text = scanner.string() else { return false }
        contentAt = (open, scanner.index - 1)
        content = text
        return true
      }
      return Self.equals(key, "role") && scanner.string() != nil
    }
    return read ? content : nil
  }

  private static func continuesNumber(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
      || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
  }

  /// The content of a chunk whose bytes are `frame`'s around another string: `frame` is a chunk
  /// `completionContent` took, less its content string's bytes between the quotes, and `prefix` the count of
  /// its bytes up to and with the opening quote. Nil for any other chunk.
  ///
  /// Taken where `completionContent` would take it, with the same content: that scan reads bytes in order
  /// and decides on each as it comes, so on the same bytes up to the opening quote it decides the same; it
  /// reads the string as this does (`string()`, when it has escapes), and what follows is the same bytes
  /// again. A stream's chunks differ only in their text (and `created`, a second later): each is two
  /// comparisons.
  mutating func completionHotContent(frame: UnsafeBufferPointer<UInt8>, prefix: Int) -> TemplateString? {
    let suffix = frame.count - prefix
    guard prefix > 0, bytes.count > frame.count, let base = bytes.baseAddress, let known = frame.baseAddress,
      memcmp(base, known, prefix) == 0
    else { return nil }
    index = prefix
    let content: TemplateString
    if let raw = rawStringBody() {
      content = .raw(raw)
    } else {
      index = prefix - 1
      guard let text = string() else { return nil }
      content = .decoded(text)
    }
    guard bytes.count - index == suffix, memcmp(base + index, known + prefix, suffix) == 0 else { return nil }
    return content
  }
}
