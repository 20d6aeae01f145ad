/// `NumberFormat.appendShortest` for a writer whose values repeat: each text is formatted once and
/// copied after that.
///
/// Measured need: a grid's `p_change` and `q_change` are functions of its cells' (current,
/// previous) counts, and 127k cells at 1M incidents have 13.5k distinct p-values. Formatting every
/// row's two values for grid.csv and again for grid.geojson (most need 17 digits, which take
/// `Double.description` and a String) was ~40 ms of the report's CPU.
///
/// Open addressing over a fixed table; a value whose probe finds no place within a few slots is
/// formatted without being remembered, so no input can make a lookup slow. The slot comes from a
/// multiply by a per-process random odd number.
public struct ShortestTextMemo {
    private static let slotBits = 15
    private static let maxProbe = 8
    private var bits: [UInt64]
    /// Per slot: where its text starts in `texts`, -1 when empty.
    private var starts: [Int32]
    private var lengths: [UInt8]
    private var texts: [UInt8] = []
    private let multiplier = UInt64.random(in: .min ... .max) | 1

    public init() {
        bits = Array(repeating: 0, count: 1 << Self.slotBits)
        starts = Array(repeating: -1, count: 1 << Self.slotBits)
        lengths = Array(repeating: 0, count: 1 << Self.slotBits)
    }

    /// Appends exactly what `NumberFormat.appendShortest(v, to:)` appends.
    public mutating func appendShortest(_ v: Double, to out: inout [UInt8]) {
        let key = v.bitPattern
        let mask = (1 << Self.slotBits) - 1
        var slot = Int(truncatingIfNeeded: (key &* multiplier) >> UInt64(64 - Self.slotBits))
        for _ in 0..<Self.maxProbe {
            let start = Int(starts[slot])
            if start < 0 {
                let before = out.count
                NumberFormat.appendShortest(v, to: &out)
                let length = out.count - before
                if length <= Int(UInt8.max) && texts.count + length <= Int(Int32.max) {
                    bits[slot] = key
                    starts[slot] = Int32(texts.count)
                    lengths[slot] = UInt8(length)
                    texts.append(contentsOf: out[before...])
                }
                return
            }
            if bits[slot] == key {
                texts.withUnsafeBufferPointer { out.append(contentsOf: $0[start..<(start + Int(lengths[slot]))]) }
                return
            }
            slot = (slot + 1) & mask
        }
        NumberFormat.appendShortest(v, to: &out)
    }
}
