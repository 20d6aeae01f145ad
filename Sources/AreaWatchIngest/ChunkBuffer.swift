import Glibc

/// A sliding window over a `ByteSource`: the readers scan `bytes[start..<end]` and ask for more
/// when a record runs past `end`. Only the unfinished record is kept when refilling, so memory is
/// bounded by the chunk size plus the largest record allowed.
final class ChunkBuffer {
    let source: ByteSource
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// First byte still needed.
    var start = 0
    /// One past the last byte read.
    private(set) var end = 0
    private(set) var atEOF = false
    /// Content offset of `storage[0]` (decompressed bytes before it).
    private(set) var baseOffset: Int64 = 0
    private let chunkSize: Int
    private let ownsStorage: Bool

    init(source: ByteSource, chunkSize: Int = 1 << 20) {
        self.source = source
        self.chunkSize = max(1, chunkSize)
        capacity = self.chunkSize * 2
        storage = .allocate(capacity: capacity)
        ownsStorage = true
    }

    /// The whole input already in memory (one block of a parallel parse), read in place: no
    /// refill, no copy. `bytes` must outlive the buffer; `source` names the file in messages.
    init(borrowing bytes: UnsafeMutableBufferPointer<UInt8>, source: ByteSource) {
        self.source = source
        chunkSize = max(1, bytes.count)
        capacity = bytes.count
        storage = bytes.baseAddress ?? .allocate(capacity: 1)
        end = bytes.count
        atEOF = true
        ownsStorage = bytes.baseAddress == nil
    }

    deinit {
        if ownsStorage { storage.deallocate() }
    }

    /// Reads more content, keeping `storage[start..<end]`; returns false at the end of the input.
    /// Positions held by callers shift by the returned amount (`shift`), which they must subtract.
    func refill() throws(InputError) -> (more: Bool, shift: Int) {
        guard !atEOF else { return (false, 0) }
        let shift = start
        if start > 0 {
            let kept = end - start
            if kept > 0 { memmove(storage, storage + start, kept) }
            baseOffset += Int64(start)
            end = kept
            start = 0
        }
        if capacity - end < chunkSize {
            resize(to: max(capacity * 2, end + chunkSize))
        } else if capacity > chunkSize * 4 && end <= chunkSize {
            // Back to the normal window after an oversized record. Only here, where callers
            // already move their positions by `shift`: the kept bytes stay at the same offsets.
            resize(to: chunkSize * 2)
        }
        let n = try source.read(into: storage + end, capacity: capacity - end)
        if n == 0 {
            atEOF = true
            return (false, shift)
        }
        end += n
        return (true, shift)
    }

    /// Drops everything before `position` once a caller no longer needs it (at the next refill).
    /// Positions held by callers stay valid until then.
    func release(upTo position: Int) {
        start = position
    }

    private func resize(to newCapacity: Int) {
        let resized = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        resized.update(from: storage, count: end)
        storage.deallocate()
        storage = resized
        capacity = newCapacity
    }

    @inline(__always)
    subscript(_ i: Int) -> UInt8 { storage[i] }

    func slice(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + from, count: to - from)
    }
}
