/// A value kept behind one reference: a copy is one retain, and the first change made through a copy
/// that shares its box copies the value once (as `Array` does with its buffer).
///
/// Used to keep a large state cheap to copy: a store's reader pays one retain instead of one per field.
/// The value is reached through the box's header address, so reading a field reads just that field: read
/// as a class's stored property, the compiler copied the whole value out for each read.
// @unchecked Sendable: the box (a `ManagedBuffer`, which cannot be `Sendable`) is written only through `value`'s
// modify accessor, after `isKnownUniquelyReferenced` proved that accessor's caller holds the only reference
// to it, so no other copy (on this or another thread) can read it meanwhile; a shared box is only ever read.
@usableFromInline
struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
  @usableFromInline var box: CopyOnWriteBox<Value>

  @inlinable init(_ value: Value) { box = CopyOnWriteBox.make(value) }

  /// Addressors rather than `_read`/`_modify`: a read of one field loads that field from the box, where a
  /// read coroutine copied the whole value out first.
  @inlinable var value: Value {
    unsafeAddress { UnsafePointer(box.address) }
    unsafeMutableAddress {
      if !isWritableInPlace(&box) { box = CopyOnWriteBox.make(box.address.pointee) }
      return box.address
    }
  }
}

extension CopyOnWrite: Equatable where Value: Equatable {
  /// Two copies of one box are equal without looking inside.
  @inlinable static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.box === rhs.box || lhs.box.address.pointee == rhs.box.address.pointee
  }
}

/// The box: a `ManagedBuffer` whose header is the value and which has no elements (the buffer's own
/// deinit destroys the header).
@usableFromInline
final class CopyOnWriteBox<Value: Sendable>: ManagedBuffer<Value, Void> {
  @inlinable static func make(_ value: Value) -> CopyOnWriteBox {
    unsafeDowncast(create(minimumCapacity: 0) { _ in value }, to: CopyOnWriteBox.self)
  }

  /// Where the value is. Valid while the box is alive, which every use guarantees by holding the box (the
  /// `CopyOnWrite` being read or modified holds it for the whole access).
  @inlinable var address: UnsafeMutablePointer<Value> { withUnsafeMutablePointerToHeader { $0 } }
}
