import ChatHTTP
import Foundation

extension JSONByteScanner {
  /// The text of a `chat.completion.chunk` that only streams answer text: one choice at index 0 whose delta
  /// holds `content` (and perhaps `role`), no finish reason, no usage, no error. Read from its bytes without a
  /// JSON tree; nil for anything else, which the general path reads (and refuses, when it is broken).
  ///
  /// Fields the general path does not read (`object`, `created`, `model`, `system_fingerprint`, a choice's
  /// `logprobs`) are skipped; those it reads are taken only as the general path would take them here.
  mutating func completionContent() -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "choices") {
        // A repeated key is the general path's: which value counts is its decoder's rule.
        guard content == nil, scanner.take(UInt8(ascii: "[")), let text = scanner.completionChoiceContent() else {
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
  private mutating func completionChoiceContent() -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "delta") {
        guard content == nil, let text = scanner.completionDeltaContent() else { return false }
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
  private mutating func completionDeltaContent() -> String? {
    var content: String?
    let read = readMembers { scanner, key in
      if Self.equals(key, "content") {
        guard content == nil, let text = scanner.string() else { return false }
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
}
