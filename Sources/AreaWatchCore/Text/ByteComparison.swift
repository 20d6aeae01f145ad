/// Byte-wise equality and order of borrowed byte runs.
public enum Bytes {
    @inlinable @inline(__always)
    public static func equal(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        a.bytesEqual(b)
    }

    /// Lexicographic order of the bytes, shorter first on a common prefix.
    @inlinable
    public static func less(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        let c = a.compareBytes(b, prefix: min(a.count, b.count))
        if c != 0 { return c < 0 }
        return a.count < b.count
    }

    /// The first and the last eight bytes as two words (a shorter run: its bytes in `head`, `tail`
    /// 0), what the text caches hash a short value by in two loads instead of a byte loop.
    @inlinable @inline(__always)
    public static func headAndTail(_ bytes: Span<UInt8>) -> (head: UInt64, tail: UInt64) {
        let n = bytes.count
        if n >= 8 { return (bytes.word(at: 0), bytes.word(at: n - 8)) }
        var head: UInt64 = 0
        for i in 0..<n { head = head << 8 | UInt64(bytes[unchecked: i]) }
        return (head, 0)
    }

    @inlinable
    public static func equal(_ a: [UInt8], _ b: Span<UInt8>) -> Bool {
        a.span.bytesEqual(b)
    }
}
