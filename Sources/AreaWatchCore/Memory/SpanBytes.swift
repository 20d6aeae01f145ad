import Glibc

/// The few byte operations a borrowed `Span<UInt8>` needs that the standard library does not
/// offer directly on a span: a `memcmp`, an unaligned word load, a copy into an array, a String
/// made from the bytes. Each is one bulk operation on the span's storage, so parsers and text
/// caches can take `Span` and still compare, hash and copy at `memcmp`/`memcpy` speed.
extension Span where Element == UInt8 {
    /// Byte-wise equality (`memcmp`), empty spans equal.
    @inlinable @inline(__always)
    public func bytesEqual(_ other: Span<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0 else { return true }
        return withUnsafeBufferPointer { a in
            other.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// The `memcmp` sign of the first `n` bytes of both (`n` at most either count).
    @inlinable @inline(__always)
    public func compareBytes(_ other: Span<UInt8>, prefix n: Int) -> Int32 {
        guard n > 0 else { return 0 }
        return withUnsafeBufferPointer { a in
            other.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, n) }
        }
    }

    /// The eight bytes at `offset` as a little-endian word; `offset + 8 <= count` is the
    /// caller's invariant (checked in debug builds).
    @inlinable @inline(__always)
    public func word(at offset: Int) -> UInt64 {
        assert(offset >= 0 && offset + 8 <= count, "word outside the span")
        return UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromUncheckedByteOffset: offset, as: UInt64.self))
    }

    /// Whether the byte occurs (`memchr`).
    @inlinable @inline(__always)
    public func containsByte(_ byte: UInt8) -> Bool {
        guard count > 0 else { return false }
        return withUnsafeBufferPointer { memchr($0.baseAddress!, Int32(byte), $0.count) != nil }
    }

    /// The bytes copied into a new array.
    @inlinable
    public var copiedArray: [UInt8] {
        withUnsafeBufferPointer { Array($0) }
    }

    /// The bytes as a String (invalid UTF-8 repaired, as `String(decoding:as:)` does).
    @inlinable
    public var decodedString: String {
        withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
}

extension Array where Element == UInt8 {
    /// Appends the span's bytes in one copy.
    @inlinable @inline(__always)
    public mutating func append(span: Span<UInt8>) {
        span.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}

extension GrowableBuffer {
    /// The elements as a span, valid inside `body` only.
    @inlinable @inline(__always)
    public func withSpan<R, E: Error>(_ body: (Span<Element>) throws(E) -> R) throws(E) -> R {
        let elements = UnsafeBufferPointer(start: storage, count: count)
        return try body(elements.span)
    }

    /// Appends the span's elements in one copy.
    @inlinable
    public mutating func append(span: Span<Element>) {
        span.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
