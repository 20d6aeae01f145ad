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

    @inlinable
    public static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.withUnsafeBufferPointer { equal($0, b) }
    }
}
