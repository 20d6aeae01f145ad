import Glibc

/// Byte-wise equality and order of borrowed byte runs (empty runs may have no base address).
public enum Bytes {
    @inlinable
    public static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Lexicographic order of the bytes, shorter first on a common prefix.
    @inlinable
    public static func less(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        if n > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return c < 0 }
        }
        return a.count < b.count
    }

    /// The first and the last eight bytes as two words (a shorter run: its bytes in `head`, `tail`
    /// 0), what the text caches hash a short value by in two loads instead of a byte loop.
    @inlinable @inline(__always)
    public static func headAndTail(_ bytes: UnsafeBufferPointer<UInt8>) -> (head: UInt64, tail: UInt64) {
        let n = bytes.count
        var head: UInt64 = 0
        if n >= 8, let base = bytes.baseAddress {
            return (
                UnsafeRawPointer(base).loadUnaligned(as: UInt64.self),
                UnsafeRawPointer(base + n - 8).loadUnaligned(as: UInt64.self)
            )
        }
        for b in bytes { head = head << 8 | UInt64(b) }
        return (head, 0)
    }

    @inlinable
    public static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.withUnsafeBufferPointer { equal($0, b) }
    }
}
