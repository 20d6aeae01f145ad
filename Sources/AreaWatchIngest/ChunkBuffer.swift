import AreaWatchCore
import Glibc

/// A sliding window over a `ByteSource`: the readers scan `bytes[start..<end]` and ask for more
/// when a record runs past `end`. Only the unfinished record is kept when refilling, so memory is
/// bounded by the chunk size plus the largest record allowed.
final class ChunkBuffer {
    let source: ByteSource
    /// The window's bytes: `owned`'s storage, or the borrowed block's. Cached here because the
    /// scanners read through it per byte; refreshed whenever `owned` is resized.
    private(set) var storage: UnsafeMutablePointer<UInt8>
    /// The window when the buffer reads a source (`count` is `end`); unused when it borrows.
    private var owned: GrowableBuffer<UInt8>
    /// First byte still needed.
    var start = 0
    /// One past the last byte read.
    private(set) var end = 0
    private(set) var atEOF = false
    /// Content offset of `storage[0]` (decompressed bytes before it).
    private(set) var baseOffset: Int64 = 0
    private let chunkSize: Int
    private let borrowed: UnsafeMutableBufferPointer<UInt8>?

    init(source: ByteSource, chunkSize: Int = 1 << 20) {
        self.source = source
        self.chunkSize = max(1, chunkSize)
        owned = GrowableBuffer(capacity: self.chunkSize * 2)
        storage = owned.unsafeBaseAddress
        borrowed = nil
    }

    /// The whole input already in memory (one block of a parallel parse), read in place: no
    /// refill, no copy. `bytes` must outlive the buffer; `source` names the file in messages.
    init(borrowing bytes: UnsafeMutableBufferPointer<UInt8>, source: ByteSource) {
        self.source = source
        chunkSize = max(1, bytes.count)
        owned = GrowableBuffer(capacity: 1)
        storage = bytes.baseAddress ?? owned.unsafeBaseAddress
        end = bytes.count
        atEOF = true
        borrowed = bytes
    }

    /// Reads more content, keeping `storage[start..<end]`; returns false at the end of the input.
    /// Positions held by callers shift by the returned amount (`shift`), which they must subtract.
    func refill() throws(InputError) -> (more: Bool, shift: Int) {
        guard !atEOF else { return (false, 0) }
        assert(borrowed == nil, "a borrowed block is at its end")
        let shift = start
        if start > 0 {
            owned.removeFirst(start)
            baseOffset += Int64(start)
            end = owned.count
            start = 0
        }
        if owned.capacity - end < chunkSize {
            owned.reserveCapacity(end + chunkSize)
        } else if owned.capacity > chunkSize * 4 && end <= chunkSize {
            // Back to the normal window after an oversized record. Only here, where callers
            // already move their positions by `shift`: the kept bytes stay at the same offsets.
            owned.reallocate(capacity: chunkSize * 2)
        }
        try owned.appendUninitialized(maxCount: owned.capacity - end) { room throws(InputError) in
            try source.read(into: room.baseAddress!, capacity: room.count)
        }
        storage = owned.unsafeBaseAddress
        let n = owned.count - end
        end = owned.count
        if n == 0 {
            atEOF = true
            return (false, shift)
        }
        return (true, shift)
    }

    /// Drops everything before `position` once a caller no longer needs it (at the next refill).
    /// Positions held by callers stay valid until then.
    func release(upTo position: Int) {
        start = position
    }

    @inline(__always)
    subscript(_ i: Int) -> UInt8 { storage[i] }

    func slice(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + from, count: to - from)
    }
}
