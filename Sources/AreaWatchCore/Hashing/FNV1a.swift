/// The 64-bit FNV-1a hash: a stable digest (the same bytes give the same value in every run and
/// on every machine, unlike Swift's seeded `Hasher`) for versions and entity tags, never for
/// anything an adversary could choose to collide against (that is `KeyHash`'s SipHash).
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x100_0000_01b3

    public init() {}

    public mutating func combine(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    /// The integer's eight bytes, least significant first.
    public mutating func combine(_ v: Int) {
        for shift in stride(from: 0, to: 64, by: 8) { combine(byte: UInt8(truncatingIfNeeded: v >> shift)) }
    }

    /// The text's UTF-8 bytes, then −1 as an end mark, so that "ab","c" and "a","bc" differ.
    public mutating func combine(_ text: String) {
        for b in text.utf8 { combine(byte: b) }
        combine(-1)
    }

    /// The digest of bytes in memory (no end mark): one loop over the buffer, for files of many
    /// megabytes, where the generic form below is not specialised across modules.
    public static func hash(_ bytes: RawSpan) -> UInt64 {
        var h = FNV1a()
        for i in 0..<bytes.byteCount {
            h.value = (h.value ^ UInt64(bytes.unsafeLoad(fromUncheckedByteOffset: i, as: UInt8.self))) &* prime
        }
        return h.value
    }

    /// The digest of the bytes alone (no end mark).
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var h = FNV1a()
        for b in bytes { h.combine(byte: b) }
        return h.value
    }
}
