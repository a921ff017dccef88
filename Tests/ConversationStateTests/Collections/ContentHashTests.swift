import Foundation
import Testing

@testable import ConversationState

/// A known-answer vector, labelled so that a failure names the vector rather than printing its input.
struct SHA256Vector: Sendable, CustomTestStringConvertible {
  let label: String
  let input: String
  let expected: String

  var testDescription: String { label }
}

// FIPS 180-4 examples and the NIST one-block, two-block and 896-bit messages.
private let knownAnswers: [SHA256Vector] = [
  SHA256Vector(
    label: "empty", input: "", expected: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
  SHA256Vector(
    label: "abc", input: "abc", expected: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
  SHA256Vector(
    label: "448 bits", input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    expected: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
  SHA256Vector(
    label: "896 bits",
    input: "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
      + "mnopqrstnopqrstu",
    expected: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
]

// Deterministic, non-repeating bytes, so that a block processed twice or skipped changes the digest.
private func sampleBytes(count: Int) -> [UInt8] {
  var seed: UInt32 = 0x9e37_79b9
  return (0..<count).map { _ in
    seed = seed &* 1_664_525 &+ 1_013_904_223
    return UInt8(truncatingIfNeeded: seed >> 24)
  }
}

@Suite("Content hash")
struct ContentHashTests {
  @Test("NIST known answers", arguments: knownAnswers)
  func knownAnswer(_ vector: SHA256Vector) {
    #expect(ContentHash.of(Array(vector.input.utf8)).hex == vector.expected)
    #expect(ContentHash.of(Data(vector.input.utf8)).hex == vector.expected)
  }

  @Test("one million 'a'")
  func oneMillionA() {
    let hash = ContentHash.of([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
    #expect(hash.hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    #expect(hash.description == hash.hex)
  }

  @Test("a non-contiguous sequence hashes like the same bytes in an array")
  func nonContiguousSequence() {
    let bytes = sampleBytes(count: 200)
    #expect(ContentHash.of(bytes.lazy.map { $0 }) == ContentHash.of(bytes))
    #expect(
      ContentHash.of("abc".utf8.lazy.map { $0 }).hex
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test("splitting the input at any offset does not change the hash")
  func incrementalSplits() {
    let bytes = sampleBytes(count: 130)
    var whole = SHA256Hasher()
    whole.update(bytes)
    let expected = whole.finalize()
    for split in 0...bytes.count {
      var hasher = SHA256Hasher()
      hasher.update(bytes[..<split])
      hasher.update(bytes[split...])
      #expect(hasher.finalize() == expected, "split at \(split)")
    }
  }

  @Test("finalizing resets the hasher")
  func finalizeResets() {
    var hasher = SHA256Hasher()
    hasher.update(Array("ignored".utf8))
    _ = hasher.finalize()
    hasher.update(Array("abc".utf8))
    #expect(ContentHash(digest: hasher.finalize()).hex == knownAnswers[1].expected)
  }

  // Sizes straddle the 64 KiB read chunk and the 64-byte block, so chunk boundaries fall mid-block.
  @Test("hashing a file equals hashing its bytes", arguments: [0, 1, 65_536, 200_003])
  func fileMatchesBytes(size: Int) throws {
    let bytes = sampleBytes(count: size)
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("content-hash-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try ContentHash.ofFile(at: url) == ContentHash.of(bytes))
  }

  @Test("hashing a missing file throws")
  func missingFileThrows() {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
    #expect(throws: (any Error).self) { try ContentHash.ofFile(at: url) }
  }
}
