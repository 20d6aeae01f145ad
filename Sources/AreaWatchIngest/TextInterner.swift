/// Shares one String per distinct short value of a column (categories repeat on every row).
///
/// Measured need: creating a String per row for a category like "Anti-social behaviour" is a heap
/// allocation per record; looking the bytes up in a short list returns a shared String instead.
/// Capped, so a column of unique values costs no more than creating them.
final class TextInterner {
    private var entries: [(bytes: [UInt8], text: String)] = []
    private let capacity: Int
    private var lastHit = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if lastHit < entries.count, Bytes.equal(entries[lastHit].bytes, bytes) { return entries[lastHit].text }
        for (k, entry) in entries.enumerated() where Bytes.equal(entry.bytes, bytes) {
            lastHit = k
            return entry.text
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if entries.count < capacity && bytes.count <= 128 { entries.append((Array(bytes), text)) }
        return text
    }
}
