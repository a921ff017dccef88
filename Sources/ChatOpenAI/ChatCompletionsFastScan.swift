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
    skipSpace()
    guard take(UInt8(ascii: "{")) else { return nil }
    skipSpace()
    guard !take(UInt8(ascii: "}")) else { return nil }
    while true {
      guard let key = rawString() else { return nil }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipSpace()
      if Self.equals(key, "choices") {
        // A repeated key is the general path's: which value counts is its decoder's rule.
        guard content == nil, take(UInt8(ascii: "[")), let text = completionChoiceContent() else { return nil }
        skipSpace()
        guard take(UInt8(ascii: "]")) else { return nil }
        content = text
      } else if Self.equals(key, "id") {
        // The general path reads it as a string (only the first chunk's names the answer).
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), string() != nil else { return nil }
      } else if Self.equals(key, "usage") || Self.equals(key, "error") {
        guard take(literal: "null") else { return nil }
      } else {
        guard skipValue() else { return nil }
      }
      if endOfMember() { break }
      if index > bytes.count { return nil }
    }
    guard isAtEnd() else { return nil }
    return content
  }

  /// The one choice's `delta.content`, the choice being at index 0 with no finish reason.
  private mutating func completionChoiceContent() -> String? {
    var content: String?
    skipSpace()
    guard take(UInt8(ascii: "{")) else { return nil }
    while true {
      skipSpace()
      guard let key = rawString() else { return nil }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipSpace()
      if Self.equals(key, "delta") {
        guard content == nil, let text = completionDeltaContent() else { return nil }
        content = text
      } else if Self.equals(key, "index") {
        guard take(UInt8(ascii: "0")), index < bytes.count, !Self.continuesNumber(bytes[index]) else { return nil }
      } else if Self.equals(key, "finish_reason") {
        guard take(literal: "null") else { return nil }
      } else {
        guard skipValue() else { return nil }
      }
      if endOfMember() { break }
      if index > bytes.count { return nil }
    }
    return content
  }

  /// A delta that holds `content` and perhaps `role`, nothing else.
  private mutating func completionDeltaContent() -> String? {
    var content: String?
    guard take(UInt8(ascii: "{")) else { return nil }
    while true {
      skipSpace()
      guard let key = rawString() else { return nil }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipSpace()
      if Self.equals(key, "content") {
        guard content == nil, let text = string() else { return nil }
        content = text
      } else if Self.equals(key, "role") {
        guard string() != nil else { return nil }
      } else {
        return nil
      }
      if endOfMember() { break }
      if index > bytes.count { return nil }
    }
    return content
  }

  private static func continuesNumber(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
      || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
  }
}
