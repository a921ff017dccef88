/// Just enough JSON writing for one-line records whose keys must stay in a given order, which
/// `JSONEncoder` and `JSONSerialization` do not promise.
enum JSONText {
  /// `text` as a JSON string literal, quotes included.
  ///
  /// Escapes what RFC 8259 requires — `"`, `\` and U+0000 to U+001F (as `\n`, `\t`, … where JSON has a short
  /// form, else `\u00XX`) — and leaves everything else as UTF-8, so non-ASCII text stays readable.
  static func string(_ text: String) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "\"")]
    bytes.reserveCapacity(text.utf8.count + 2)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes += Array(#"\""#.utf8)
      case UInt8(ascii: "\\"): bytes += Array(#"\\"#.utf8)
      case 0x08: bytes += Array(#"\b"#.utf8)
      case 0x09: bytes += Array(#"\t"#.utf8)
      case 0x0A: bytes += Array(#"\n"#.utf8)
      case 0x0C: bytes += Array(#"\f"#.utf8)
      case 0x0D: bytes += Array(#"\r"#.utf8)
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default:
        // Bytes of multi-byte UTF-8 sequences are all 0x80 or above, so they pass through whole.
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
    return String(decoding: bytes, as: UTF8.self)
  }
}
