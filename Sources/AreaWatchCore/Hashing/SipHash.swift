/// SipHash-c-d with a 128-bit output (Aumasson & Bernstein, the reference implementation's
/// `siphash` with `outlen` 16), keyed by two 64-bit words.
///
/// Why: `KeyHash` needs 128 bits, and the standard library's hasher is not inlined and gives 64
/// bits a pass, so it took two seeded `Hasher`s per key. One pass of SipHash-1-3 (the rounds
/// Swift's and Rust's hash tables use) gives the 128 bits at once, inlined. Checked against the
/// reference test vectors with 2-4 rounds.
public struct SipHash128: Sendable {
    public let k0: UInt64
    public let k1: UInt64

    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The two output words (the reference's 16 output bytes are each little-endian, in order).
    @inline(__always)
    public func hash(
        _ bytes: RawSpan, compressionRounds c: Int = 1,
        finalizationRounds d: Int = 3
    ) -> (UInt64, UInt64) {
        var v0: UInt64 = 0x736F_6D65_7073_6575 ^ k0
        var v1: UInt64 = 0x646F_7261_6E64_6F6D ^ k1 ^ 0xEE
        var v2: UInt64 = 0x6C79_6765_6E65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1

        @inline(__always)
        func rounds(_ n: Int) {
            for _ in 0..<n {
                v0 &+= v1
                v1 = v1.rotatedLeft(13)
                v1 ^= v0
                v0 = v0.rotatedLeft(32)
                v2 &+= v3
                v3 = v3.rotatedLeft(16)
                v3 ^= v2
                v0 &+= v3
                v3 = v3.rotatedLeft(21)
                v3 ^= v0
                v2 &+= v1
                v1 = v1.rotatedLeft(17)
                v1 ^= v2
                v2 = v2.rotatedLeft(32)
            }
        }
        @inline(__always)
        func absorb(_ m: UInt64) {
            v3 ^= m
            rounds(c)
            v0 ^= m
        }

        let count = bytes.byteCount
        let whole = count & ~7
        var offset = 0
        while offset < whole {
            absorb(UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromUncheckedByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        for k in 0..<(count - whole) {
            last |= UInt64(bytes.unsafeLoad(fromUncheckedByteOffset: whole + k, as: UInt8.self)) << UInt64(8 * k)
        }
        absorb(last)
        v2 ^= 0xEE
        rounds(d)
        let first = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xDD
        rounds(d)
        return (first, v0 ^ v1 ^ v2 ^ v3)
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ n: UInt64) -> UInt64 { self << n | self >> (64 - n) }
}
