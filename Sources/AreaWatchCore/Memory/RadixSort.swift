import Dispatch

/// Stable LSD radix sort of (UInt64 key, UInt32 value) pairs.
///
/// Why: the index sorts every incident's geohash code per run and the R-tree their Hilbert
/// values; a comparison sort of tuples through a closure costs O(n log n) calls, this a few
/// sequential passes. 16-bit digits, four passes at most; a pass whose digit is the same for every key
/// (the high bits of codes in one city) is skipped.
///
/// With `threads` > 1 each pass splits the pairs into contiguous parts: every part counts its
/// digits, the parts' output offsets follow from the counts in part order, and every part moves
/// its own pairs. Pairs with equal digits keep their order across parts, so the result is the
/// one-thread result exactly (on one core the sort was serial time with the other cores idle).
public enum RadixSort {
    /// Below this many pairs a part's bookkeeping (65,536 counters a pass) outweighs the work.
    static let pairsPerThread = 100_000

    /// Sorts `keys` ascending, permuting `values` alongside; equal keys keep their order.
    public static func sort(keys: inout [UInt64], values: inout [UInt32], threads: Int = 1) {
        precondition(keys.count == values.count, "one value per key")
        let n = keys.count
        guard n > 1 else { return }
        let parts = max(1, min(threads, n / pairsPerThread))
        let bounds = (0...parts).map { n * $0 / parts }
        var keyScratch = [UInt64](repeating: 0, count: n)
        var valueScratch = [UInt32](repeating: 0, count: n)
        // Part p's counters (then its output offsets) for the pass's digit.
        var slots = [Int](repeating: 0, count: parts << 16)
        for pass in 0..<4 {
            let shift = UInt64(16 * pass)
            var skip = false
            keys.withUnsafeBufferPointer { src in
                slots.withUnsafeMutableBufferPointer { slot in
                    let (src, slot) = (SendableBuffer(src), UnsafeMutableSendableBuffer(slot))
                    forEachPart(parts) { p in
                        let base = p << 16
                        for k in 0..<(1 << 16) { slot[base + k] = 0 }
                        for i in bounds[p]..<bounds[p + 1] { slot[base + Int((src[i] >> shift) & 0xFFFF)] += 1 }
                    }
                    let firstDigit = Int((src[0] >> shift) & 0xFFFF)
                    skip = (0..<parts).reduce(0) { $0 + slot[$1 << 16 + firstDigit] } == n
                    guard !skip else { return }
                    // Offsets: digit by digit, part by part within a digit.
                    var offset = 0
                    for digit in 0..<(1 << 16) {
                        for p in 0..<parts {
                            let c = slot[p << 16 + digit]
                            slot[p << 16 + digit] = offset
                            offset += c
                        }
                    }
                }
            }
            if skip { continue }
            keys.withUnsafeBufferPointer { srcKeys in
                values.withUnsafeBufferPointer { srcValues in
                    keyScratch.withUnsafeMutableBufferPointer { dstKeys in
                        valueScratch.withUnsafeMutableBufferPointer { dstValues in
                            slots.withUnsafeMutableBufferPointer { slot in
                                let (srcKeys, srcValues) = (SendableBuffer(srcKeys), SendableBuffer(srcValues))
                                let (dstKeys, dstValues) = (
                                    UnsafeMutableSendableBuffer(dstKeys), UnsafeMutableSendableBuffer(dstValues)
                                )
                                let slot = UnsafeMutableSendableBuffer(slot)
                                forEachPart(parts) { p in
                                    let base = p << 16
                                    for i in bounds[p]..<bounds[p + 1] {
                                        let key = srcKeys[i]
                                        let digit = base + Int((key >> shift) & 0xFFFF)
                                        let at = slot[digit]
                                        slot[digit] = at + 1
                                        dstKeys[at] = key
                                        dstValues[at] = srcValues[i]
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&keys, &keyScratch)
            swap(&values, &valueScratch)
        }
    }

    private static func forEachPart(_ parts: Int, _ body: @Sendable (Int) -> Void) {
        if parts == 1 { body(0) } else { DispatchQueue.concurrentPerform(iterations: parts, execute: body) }
    }
}
