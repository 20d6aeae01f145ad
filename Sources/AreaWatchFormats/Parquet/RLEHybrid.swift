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
        precondition(bitWidth >= 1 && bitWidth <= 32)
        let n = values.count
        var i = 0
        while i < n {
            let run = runLength(values, from: i)
            if run >= 8 {
                appendRLERun(value: values[i], count: run, bitWidth: bitWidth, to: &out)
                i += run
                continue
            }
            // Groups of 8 until a run of 8 equal values starts or the data ends.
            var end = i
            repeat { end += 8 } while end < n && runLength(values, from: end) < 8
            appendBitPacked(values, from: i, to: min(end, n), groups: (end - i) / 8, bitWidth: bitWidth, out: &out)
            i = end
        }
    }

    /// How many values from `start` equal `values[start]`.
    private static func runLength(_ values: [UInt32], from start: Int) -> Int {
        var k = start + 1
        while k < values.count && values[k] == values[start] { k += 1 }
        return k - start
    }

    private static func appendRLERun(value: UInt32, count: Int, bitWidth: Int, to out: inout [UInt8]) {
        ThriftCompactWriter.appendVarint(UInt64(count) << 1, to: &out)
        for b in 0..<((bitWidth + 7) / 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(8 * b))) }
    }

    /// `values[start..<end]` bit-packed as `groups` groups of 8, zero-padded past `end`.
    private static func appendBitPacked(
        _ values: [UInt32], from start: Int, to end: Int, groups: Int,
        bitWidth: Int, out: inout [UInt8]
    ) {
        ThriftCompactWriter.appendVarint(UInt64(groups) << 1 | 1, to: &out)
        var accumulator: UInt64 = 0
        var bits = 0
        for k in start..<(start + groups * 8) {
            let v = k < end ? UInt64(values[k]) : 0
            accumulator |= v << UInt64(bits)
            bits += bitWidth
            while bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
        }
        // 8 values of any width fill whole bytes, so nothing is left over.
        assert(bits == 0)
    }
}
