import AreaWatchCore

/// Bytes captured by one reader and read by another (a JSON value captured by the stream, parsed
/// by the record source; a file read whole, then walked through its tape): one owned
/// `GrowableBuffer` shared by reference. `bytes` stays valid until the next mutation.
final class ByteBuffer {
    // Unchecked exclusivity: one reader at a time holds the buffer; a class's stored property is
    // otherwise checked at run time on every access.
    @exclusivity(unchecked) private var storage: GrowableBuffer<UInt8>

    init(capacity: Int = 4096) {
        storage = GrowableBuffer(capacity: max(16, capacity))
    }

    var bytes: UnsafeBufferPointer<UInt8> { storage.unsafeElements }
    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    func removeAll() { storage.removeAll() }

    func append(_ data: Span<UInt8>) { storage.append(span: data) }

    func append(_ array: [UInt8]) { storage.append(span: array.span) }

    /// Drops the first `n` bytes.
    func removeFirst(_ n: Int) { storage.removeFirst(n) }

    /// Appends what `fill` reads into room for `maxCount` more bytes; returns how many it read.
    func append<E: Error>(
        readingAtMost maxCount: Int,
        _ fill: (UnsafeMutableBufferPointer<UInt8>) throws(E) -> Int
    ) throws(E) -> Int {
        let before = storage.count
        try storage.appendUninitialized(maxCount: maxCount, fill)
        return storage.count - before
    }
}
