extension UnsafeBufferPointer<UInt8> {
  /// The index of the first CR or LF at or after `start`, or nil.
  ///
  /// Eight bytes at a time: a byte-by-byte search spends more on the loop than on the comparison, and the
  /// line search is most of what a decoder does with an event's bytes.
  func firstLineEnd(from start: Int) -> Int? {
    guard let base = baseAddress else { return nil }
    var index = start
    // `ones &* b` is byte b in all eight lanes of a word.
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    while index &+ 8 <= count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let lineFeeds = word ^ (ones &* 0x0A)
      let carriageReturns = word ^ (ones &* 0x0D)
      // The classic zero-byte test: the lowest flagged byte is exact (a borrow can only flag bytes above a
      // zero byte), which is all that is needed to find the first line end.
      let zeros = ((lineFeeds &- ones) & ~lineFeeds | (carriageReturns &- ones) & ~carriageReturns) & highBits
      if zeros != 0 { return index + zeros.trailingZeroBitCount / 8 }
      index &+= 8
    }
    while index < count {
      if self[index] == 0x0A || self[index] == 0x0D { return index }
      index += 1
    }
    return nil
  }
}
