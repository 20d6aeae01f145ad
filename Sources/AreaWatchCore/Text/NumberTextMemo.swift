/// `NumberFormat`'s text of Doubles for a writer whose values repeat: each text is formatted once
/// and copied after that.
///
/// Why: a grid's `p_change` and `q_change` are functions of its cells' (current, previous)
/// counts, so far fewer distinct values than cells, most needing 17 digits through
/// `Double.description`, written by both grid.csv and grid.geojson;
/// and its cells' centres and edges are a few hundred latitudes and longitudes, formatted ten
/// times a cell per file.
///
/// Open addressing over a fixed table; a value whose probe finds no place within a few slots is
/// formatted without being remembered, so no input can make a lookup slow. The slot comes from a
/// multiply by a per-process random odd number.
public struct NumberTextMemo {
    public enum Style: Sendable {
        /// `NumberFormat.appendShortest`.
        case shortest
        /// `NumberFormat.appendFixed` with this many decimals.
        case fixed(decimals: Int)
    }

    public let style: Style
    private static let slotBits = 15
    private static let maxProbe = 8
    private var bits: [UInt64]
    /// Per slot: where its text starts in `texts`, -1 when empty.
    private var starts: [Int32]
    private var lengths: [UInt8]
    private var texts: [UInt8] = []
    private let multiplier = UInt64.random(in: .min ... .max) | 1

    public init(_ style: Style) {
        self.style = style
        bits = Array(repeating: 0, count: 1 << Self.slotBits)
        starts = Array(repeating: -1, count: 1 << Self.slotBits)
        lengths = Array(repeating: 0, count: 1 << Self.slotBits)
    }

    /// Appends exactly what the style's `NumberFormat` function appends.
    public mutating func append(_ v: Double, to out: inout [UInt8]) {
        let key = v.bitPattern
        let mask = (1 << Self.slotBits) - 1
        var slot = Int(truncatingIfNeeded: (key &* multiplier) >> UInt64(64 - Self.slotBits))
        for _ in 0..<Self.maxProbe {
            let start = Int(starts[slot])
            if start < 0 {
                let before = out.count
                format(v, to: &out)
                let length = out.count - before
                if length <= Int(UInt8.max) && texts.count + length <= Int(Int32.max) {
                    bits[slot] = key
                    starts[slot] = Int32(texts.count)
                    lengths[slot] = UInt8(length)
                    texts.append(span: out.span.extracting(unchecked: before..<out.count))
                }
                return
            }
            if bits[slot] == key {
                let length = Int(lengths[slot])
                out.append(span: texts.span.extracting(unchecked: start..<(start + length)))
                return
            }
            slot = (slot + 1) & mask
        }
        format(v, to: &out)
    }

    @inline(__always)
    private func format(_ v: Double, to out: inout [UInt8]) {
        switch style {
        case .shortest: NumberFormat.appendShortest(v, to: &out)
        case .fixed(let decimals): NumberFormat.appendFixed(v, decimals: decimals, to: &out)
        }
    }
}
