extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are valid UTF-8, so they can be handed out as a string's bytes without repair.
  ///
  /// ASCII, most of what event streams carry, is checked eight bytes at a time; the rest goes through the
  /// standard library's parser.
  var isValidUTF8: Bool {
    guard let base = baseAddress else { return true }
    var index = 0
    while index &+ 8 <= count {
      if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
      index &+= 8
    }
    while index < count && self[index] < 0x80 { index &+= 1 }
    if index == count { return true }
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = UnsafeBufferPointer(rebasing: self[index...]).makeIterator()
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid: continue
      case .emptyInput: return true
      case .error: return false
      }
    }
  }
}
