/// Shares one String per distinct short value of a column (categories repeat on every row).
///
/// Measured need: creating a String per row for a category like "Anti-social behaviour" is a heap
/// allocation per record; looking the bytes up in a short list returns a shared String instead.
/// Capped, so a column of unique values costs no more than creating them.
public final class TextInterner {
    private var entries: [(bytes: [UInt8], text: String)] = []
    private let capacity: Int
    private var lastHit = 0

    public init(capacity: Int = 256) {
        self.capacity = capacity
    }

    public func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let k = entry(bytes) { return entries[k].text }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The position of the bytes' entry (entries are numbered from 0 in the order first seen), or
    /// nil when the value is not kept (too long, or the interner is full).
    public func entry(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if lastHit < entries.count, Bytes.equal(entries[lastHit].bytes, bytes) { return lastHit }
        for (k, entry) in entries.enumerated() where Bytes.equal(entry.bytes, bytes) {
            lastHit = k
            return k
        }
        guard entries.count < capacity && bytes.count <= 128 else { return nil }
        entries.append((Array(bytes), String(decoding: bytes, as: UTF8.self)))
        return entries.count - 1
    }

    /// The text of entry `k`.
    public func text(ofEntry k: Int) -> String { entries[k].text }
}
