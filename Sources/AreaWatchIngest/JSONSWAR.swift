/// Eight bytes at a time ("SIMD within a register"): byte-lane masks with 0x80 set in every lane
/// that holds a given byte, for the JSON scanners' structural pass. Portable (no intrinsics);
/// on the skipped nodes of a WatchMe export it looks at each byte once instead of branching
/// on it.
enum JSONSWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    static let high: UInt64 = 0x8080_8080_8080_8080

    /// An unaligned little-endian load: byte k of the input is lane k (bits 8k..8k+7).
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// 0x80 in exactly the lanes of `x` equal to `c` (no false positives: nothing carries
    /// between lanes because `(t & 0x7F) + 0x7F` stays below 0x100).
    @inline(__always)
    static func equal(_ x: UInt64, _ c: UInt8) -> UInt64 {
        let t = x ^ (ones &* UInt64(c))
        return ~(((t & low7) &+ low7) | t | low7)
    }

    /// 0x80 in the lanes whose byte is below 0x20 (the control characters a JSON string must
    /// not hold raw).
    @inline(__always)
    static func control(_ x: UInt64) -> UInt64 {
        // A lane is < 0x20 when its top three bits are clear: zero-test `x & 0xE0`.
        equal(x & (ones &* 0xE0), 0)
    }

    /// 0x80 in the lanes whose byte is not an ASCII digit: a digit is 0x3_ with a low nibble
    /// below 10 (nibble + 6 stays below 0x10; no lane carries into the next).
    @inline(__always)
    static func nonDigits(_ x: UInt64) -> UInt64 {
        let other =
            ((x & (ones &* 0xF0)) ^ (ones &* 0x30)) | (((x & (ones &* 0x0F)) &+ (ones &* 0x06)) & (ones &* 0x10))
        return ~equal(other, 0) & high
    }

    /// Lane k = XOR of lanes 0...k (the in-string mask from the quote mask).
    @inline(__always)
    static func prefixXor(_ m: UInt64) -> UInt64 {
        var m = m
        m ^= m << 8
        m ^= m << 16
        m ^= m << 32
        return m
    }

    /// Number of marked lanes.
    @inline(__always)
    static func count(_ m: UInt64) -> Int { m.nonzeroBitCount }

    /// Index of the first marked lane (8 when none).
    @inline(__always)
    static func first(_ m: UInt64) -> Int { m.trailingZeroBitCount >> 3 }

    /// Index of the last marked lane (precondition: one is marked).
    @inline(__always)
    static func last(_ m: UInt64) -> Int { (63 - m.leadingZeroBitCount) >> 3 }
}
