/// One value at an address that stays the same for as long as its owner lives, for C state that
/// keeps a pointer to itself: zlib's `z_stream` is checked against the copy its internal state
/// points back at (`strm->state->strm == strm`), and Swift does not promise that `&property` of
/// a class passes the same address on every call.
public final class PinnedValue<Value> {
    /// The value's one address, valid until the owner is released.
    public let pointer: UnsafeMutablePointer<Value>

    public init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
