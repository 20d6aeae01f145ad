/// Parquet's RLE / bit-packed hybrid encoding of small unsigned integers (definition levels,
/// dictionary indices) at a fixed bit width.
///
/// A run of at least 8 equal values is an RLE run: the varint `count << 1`, then the value in
/// `ceil(width / 8)` little-endian bytes. Anything else goes into bit-packed runs: the varint
/// `(groups << 1) | 1`, then groups of 8 values packed from the least significant bit of each
/// byte up. A bit-packed run holds whole groups of real values except at the very end of the
/// data, where the last group is padded with zeros (readers stop at the page's value count).
enum RLEHybrid {
    /// The smallest width that holds every value below `count` (at least 1).
    static func bitWidth(forValuesBelow count: Int) -> Int {
        count <= 2 ? 1 : Int.bitWidth - (count - 1).leadingZeroBitCount
    }

    static func encode(_ values: [UInt32], bitWidth: Int, to out: inout [UInt8]) {
        values.withUnsafeBufferPointer { encode($0, bitWidth: bitWidth, to: &out) }
    }

    /// Definition levels (0 or 1 per row) at width 1.
    static func encode(levels: [UInt8], to out: inout [UInt8]) {
        levels.withUnsafeBufferPointer { encode($0, bitWidth: 1, to: &out) }
    }

    /// The encoding is written in place into room reserved for its worst case, then the room
    /// left over is dropped: a page has tens of thousands of values, and an `Array.append` per
    /// byte was most of the encoder's time.
    private static func encode<T: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<T>, bitWidth: Int, to out: inout [UInt8]
    ) {
        precondition(bitWidth >= 1 && bitWidth <= 32)
        let n = values.count
        let start = out.count
        let room = worstCaseBytes(count: n, bitWidth: bitWidth)
        out.append(contentsOf: repeatElement(0, count: room))
        let end = out.withUnsafeMutableBufferPointer { buffer in
            var w = ByteWriter(buffer: buffer, at: start)
            var i = 0
            while i < n {
                let run = runLength(values, from: i, atMost: n)
                if run >= 8 {
                    w.appendRLERun(value: UInt32(values[i]), count: run, bitWidth: bitWidth)
                    i += run
                    continue
                }
                // Groups of 8 until a run of 8 equal values starts or the data ends.
                var end = i
                repeat { end += 8 } while end < n && runLength(values, from: end, atMost: 8) < 8
                w.appendBitPacked(values, from: i, to: min(end, n), groups: (end - i) / 8, bitWidth: bitWidth)
                i = end
            }
            return w.at
        }
        out.removeLast(start + room - end)
    }

    /// Every run takes at least 8 values except the last (a bit-packed tail), and takes at most
    /// a 5-byte header (a count below 2^32, shifted) and, per 8 values, the larger of an RLE
    /// value (at most 4 bytes) and a packed group (`bitWidth` bytes).
    static func worstCaseBytes(count: Int, bitWidth: Int) -> Int {
        (count / 8 + 1) * (5 + max(4, bitWidth))
    }

    /// How many values from `start` equal `values[start]`, counting no further than `limit`.
    @inline(__always)
    private static func runLength<T: FixedWidthInteger>(
        _ values: UnsafeBufferPointer<T>, from start: Int, atMost limit: Int
    ) -> Int {
        let last = min(values.count, start + limit)
        var k = start + 1
        while k < last && values[k] == values[start] { k += 1 }
        return k - start
    }

    /// Bytes written from `at` on into a buffer the caller has made large enough.
    private struct ByteWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var at: Int

        init(buffer: UnsafeMutableBufferPointer<UInt8>, at: Int) {
            self.buffer = buffer
            self.at = at
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            precondition(at < buffer.count, "RLE hybrid past its reserved room")
            buffer[at] = byte
            at += 1
        }

        @inline(__always)
        mutating func append32(_ word: UInt32) {
            precondition(at + 4 <= buffer.count, "RLE hybrid past its reserved room")
            UnsafeMutableRawBufferPointer(buffer).storeBytes(of: word.littleEndian, toByteOffset: at, as: UInt32.self)
            at += 4
        }

        mutating func appendVarint(_ v: UInt64) {
            var v = v
            while v >= 0x80 {
                append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            append(UInt8(v))
        }

        mutating func appendRLERun(value: UInt32, count: Int, bitWidth: Int) {
            appendVarint(UInt64(count) << 1)
            for b in 0..<((bitWidth + 7) / 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(8 * b))) }
        }

        /// `values[start..<end]` bit-packed as `groups` groups of 8, zero-padded past `end`. The
        /// run is one stream of bits, so it is packed 32 bits at a time: a value (below 2^32)
        /// joins fewer than 32 bits waiting, so the accumulator never overflows.
        mutating func appendBitPacked<T: FixedWidthInteger>(
            _ values: UnsafeBufferPointer<T>, from start: Int, to end: Int, groups: Int, bitWidth: Int
        ) {
            appendVarint(UInt64(groups) << 1 | 1)
            var accumulator: UInt64 = 0
            var bits = 0
            for k in start..<(start + groups * 8) {
                let v = k < end ? UInt64(values[k]) : 0
                accumulator |= v << UInt64(bits)
                bits += bitWidth
                if bits >= 32 {
                    append32(UInt32(truncatingIfNeeded: accumulator))
                    accumulator >>= 32
                    bits -= 32
                }
            }
            // 8 values of any width fill whole bytes, so the rest is whole bytes.
            while bits > 0 {
                append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
            assert(bits == 0)
        }
    }
}
