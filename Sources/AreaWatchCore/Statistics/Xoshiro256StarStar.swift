/// xoshiro256** (Blackman and Vigna), seeded as SPEC §16 fixes it: the four state words are four
/// successive outputs of SplitMix64 started at the seed. Every implementation of the near-repeat
/// test draws the same numbers from the same seed, so its p-values are reproducible anywhere.
///
/// Inlinable: the near-repeat test draws n − 1 numbers per permutation from another module, and
/// an unspecialised generic shuffle there would cost more than counting the pairs.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    public init(seed: UInt64) {
        var seeder = SplitMix64(seed: seed)
        s0 = seeder.next()
        s1 = seeder.next()
        s2 = seeder.next()
        s3 = seeder.next()
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = Self.rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotateLeft(s3, 45)
        return result
    }

    /// ⌊m · bound / 2⁵³⌋ with m = next() >> 11, in exact integer arithmetic: the index SPEC §16's
    /// Fisher–Yates step draws (bound = i + 1).
    @inlinable @inline(__always)
    public mutating func index(below bound: Int) -> Int {
        let m = next() >> 11
        let product = m.multipliedFullWidth(by: UInt64(bound))
        return Int(truncatingIfNeeded: (product.high << 11) | (product.low >> 53))
    }

    @inlinable @inline(__always)
    static func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

extension Xoshiro256StarStar {
    /// SPEC §16's shuffle: Fisher–Yates from the last index down to 1, each step swapping index i
    /// with `index(below: i + 1)`.
    @inlinable
    public mutating func shuffle<T>(_ values: inout [T]) {
        guard values.count > 1 else { return }
        for i in stride(from: values.count - 1, through: 1, by: -1) {
            values.swapAt(i, index(below: i + 1))
        }
    }
}
