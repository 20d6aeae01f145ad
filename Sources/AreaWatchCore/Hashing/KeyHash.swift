/// What tells SPEC §4 keys apart where their text is not kept (the ad-hoc path's key table): a
/// SipHash-1-3 of the key's UTF-8 bytes, 128 bits. Bytes, as the store compares keys (SQLite
/// TEXT), not the String: Swift's String hashing follows canonical equivalence, so two keys the
/// store keeps apart would merge. The SipHash key is random per process, so keys cannot be
/// crafted to collide; all hashes compared with each other are made in one process.
public struct KeyHash: Hashable, Sendable {
    public var a: UInt64
    public var b: UInt64

    private static let sipHash = SipHash128(k0: .random(in: .min ... .max), k1: .random(in: .min ... .max))

    public init(a: UInt64, b: UInt64) {
        self.a = a
        self.b = b
    }

    public init(bytes: RawSpan) {
        (a, b) = KeyHash.sipHash.hash(bytes)
    }

    /// The hash of a key's text.
    public init(_ key: String) {
        // Read in place (`withUTF8` on a copy retained and released the key); a key that is not
        // stored contiguously (never from the readers) is copied first.
        if let hash = key.utf8.withContiguousStorageIfAvailable({ KeyHash(bytes: $0.span.bytes) }) {
            self = hash
            return
        }
        self = KeyHash(bytes: Array(key.utf8).span.bytes)
    }
}
