import AreaWatchCore
import CAreaWatchKernels

/// Counts the Knox table (SPEC §16) for eight assignments of times at once: lane j of a
/// `Lanes` value is permutation j of a batch.
///
/// The loop over the pairs is the whole cost of the test (pairs × permutations). Why lanes of
/// permutations: a pair's partners and its distance band are then read once for eight counts,
/// and since the pairs are grouped by distance band (`NearRepeatPairs`), every count of a pass
/// goes to the same few tallies, kept in registers, instead of a histogram in memory. For a time
/// band edge k·w the tally adds −1 per lane where |Δt| > k·w (the comparison's mask), so the
/// band counts are differences of these "beyond" counts; four edges are taken per pass over a
/// band's pairs. Times are 32-bit offsets from the earliest (the span is below 2³¹, so no
/// difference overflows).
struct PairCounter: Sendable {
    typealias Lanes = SIMD8<Int32>
    static let lanes = 8
    static let edgesPerPass = 4

    let pairs: NearRepeatPairs
    let bands: NearRepeatBands
    /// The most pairs one run of positions adds to the 32-bit tallies before they are folded into
    /// `Int` totals (below 2³², so no tally wraps; smaller in tests, to exercise the folding).
    var tallyLimit = Int(UInt32.max)
    /// Which loop counts: the same loop in portable Swift or, where the CPU has AVX2, in C compiled
    /// for it (`aw_knox_tally_avx2`). Why a second: the loop is the test's whole cost, and AVX2 holds
    /// a pair's eight lanes in one register with a one-instruction absolute value, where the
    /// baseline x86-64 the program is built for needs two halves and three instructions each.
    var kernel = Kernel.best

    enum Kernel: CaseIterable {
        case portable, avx2

        static let best: Kernel = aw_knox_avx2_supported() != 0 ? .avx2 : .portable
        /// The kernels this CPU runs.
        static var available: [Kernel] { best == .avx2 ? [.portable, .avx2] : [.portable] }
    }

    /// Leaf-order times for a batch: lane j holds `assignments[j]` (canonical order), unused
    /// lanes zero.
    func gather(_ assignments: [[UInt32]]) -> [Lanes] {
        var times = [Lanes](repeating: .zero, count: pairs.incidentCount)
        for (j, canonical) in assignments.enumerated() {
            for (p, i) in pairs.canonicalIndex.enumerated() { times[p][j] = Int32(bitPattern: canonical[Int(i)]) }
        }
        return times
    }

    /// The table's counts per lane (`counts[j]`, distance band first, then time band) for
    /// leaf-order times.
    func count(_ times: [Lanes]) -> [[Int]] {
        let k = bands.timeBands
        var counts = [[Int]](repeating: [Int](repeating: 0, count: bands.cellCount), count: Self.lanes)
        let times = times.span
        for s in 0..<bands.distanceBandCount {
            let inBand = pairs.count(inBand: s)
            // beyond[e][j]: pairs of band s with |Δt| > (e + 1)·w in lane j.
            var beyond: [[Int]] = []
            for first in stride(from: 1, through: k, by: Self.edgesPerPass) {
                beyond += beyondCounts(times, band: s, firstEdge: first)
            }
            for j in 0..<Self.lanes {
                var within = 0
                for band in 1...k {
                    let upTo = inBand - beyond[band - 1][j]
                    counts[j][s * k + band - 1] = upTo - within
                    within = upTo
                }
            }
        }
        return counts
    }

    /// For edges firstEdge…firstEdge + 3 (those beyond the last band never match): per edge and
    /// lane, the pairs of band `s` with |Δt| above the edge.
    private func beyondCounts(_ times: Span<Lanes>, band s: Int, firstEdge: Int) -> [[Int]] {
        let edges = (0..<Self.edgesPerPass).map { e in
            let k = firstEdge + e
            return Lanes(repeating: k <= bands.timeBands ? Int32(Int64(k) * bands.bandSeconds) : .max)
        }
        var totals = [[Int]](repeating: [Int](repeating: 0, count: Self.lanes), count: Self.edgesPerPass)
        let n = pairs.incidentCount
        let partner = pairs.partner.span
        let band = pairs.offsets.span.extracting((s * n)...((s + 1) * n))
        var p = 0
        while p < n {
            let end = Self.runEnd(band, from: p, limit: band[p] + tallyLimit)
            let tallies =
                kernel == .avx2
                ? Self.tallyAVX2(times, partner, band, positions: p..<end, edges: edges)
                : Self.tally(times, partner, band, positions: p..<end, edges: edges)
            for (e, a) in [tallies.0, tallies.1, tallies.2, tallies.3].enumerated() {
                for j in 0..<Self.lanes { totals[e][j] += Int(UInt32(bitPattern: 0 &- a[j])) }
            }
            p = end
        }
        return Array(totals.prefix(min(Self.edgesPerPass, bands.timeBands - firstEdge + 1)))
    }

    /// The last position `end` after `p` with `offsets[end] <= limit`, and at least p + 1 (one
    /// position has fewer than 2³² partners).
    private static func runEnd(_ offsets: Span<Int>, from p: Int, limit: Int) -> Int {
        var (low, high) = (p + 1, offsets.count - 1)
        while low < high {
            let mid = (low + high + 1) / 2
            if offsets[mid] <= limit { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The hot loop: per lane, minus the pairs of `positions` with |Δt| above each edge. Indexed
    /// unchecked: the offsets ascend and their last is checked against `partner` once per call,
    /// and every partner is a leaf position below `times.count` (`NearRepeatPairs` makes them so).
    @inline(__always)
    private static func tally(
        _ times: Span<Lanes>, _ partner: Span<UInt32>,
        _ offsets: Span<Int>, positions: Range<Int>, edges: [Lanes]
    ) -> (Lanes, Lanes, Lanes, Lanes) {
        precondition(positions.upperBound < offsets.count && offsets[positions.upperBound] <= partner.count)
        let (e0, e1, e2, e3) = (edges[0], edges[1], edges[2], edges[3])
        var (a0, a1, a2, a3) = (Lanes.zero, Lanes.zero, Lanes.zero, Lanes.zero)
        for p in positions {
            let tp = times[p]
            for e in offsets[unchecked: p]..<offsets[unchecked: p + 1] {
                let d = times[unchecked: Int(partner[unchecked: e])] &- tp
                let sign = d &>> 31
                let dt = (d ^ sign) &- sign
                a0 &+= Lanes.zero.replacing(with: -1, where: dt .> e0)
                a1 &+= Lanes.zero.replacing(with: -1, where: dt .> e1)
                a2 &+= Lanes.zero.replacing(with: -1, where: dt .> e2)
                a3 &+= Lanes.zero.replacing(with: -1, where: dt .> e3)
            }
        }
        return (a0, a1, a2, a3)
    }

    /// `tally` in the AVX2 kernel (C: the spans' memory is handed over at the call).
    private static func tallyAVX2(
        _ times: Span<Lanes>, _ partner: Span<UInt32>,
        _ offsets: Span<Int>, positions: Range<Int>, edges: [Lanes]
    ) -> (Lanes, Lanes, Lanes, Lanes) {
        precondition(positions.upperBound < offsets.count && offsets[positions.upperBound] <= partner.count)
        var tally = [Int32](repeating: 0, count: edgesPerPass * Self.lanes)
        let edgeValues = edges.map { $0[0] }
        times.withUnsafeBufferPointer { times in
            partner.withUnsafeBufferPointer { partner in
                offsets.withUnsafeBufferPointer { offsets in
                    times.withMemoryRebound(to: Int32.self) { times in
                        offsets.withMemoryRebound(to: Int64.self) { offsets in
                            aw_knox_tally_avx2(
                                times.baseAddress, partner.baseAddress, offsets.baseAddress,
                                Int64(positions.lowerBound), Int64(positions.upperBound), edgeValues, &tally)
                        }
                    }
                }
            }
        }
        func edge(_ e: Int) -> Lanes { Lanes(tally[(e * Self.lanes)..<((e + 1) * Self.lanes)]) }
        return (edge(0), edge(1), edge(2), edge(3))
    }

    /// The sums and the at-least-observed counts of the permutations in `range`, in batches of
    /// eight: the generator is run from the seed through every earlier permutation's draws, so
    /// each worker shuffles exactly what one sequential run would.
    func permuted(
        _ canonical: [UInt32], seed: UInt64, permutations range: Range<Int>, observed: [Int]
    ) -> (sums: [Int], atLeast: [Int]) {
        var generator = Xoshiro256StarStar(seed: seed)
        let n = canonical.count
        if n > 1 {
            for _ in 0..<(range.lowerBound * (n - 1)) { _ = generator.next() }
        }
        var sums = [Int](repeating: 0, count: bands.cellCount)
        var atLeast = [Int](repeating: 0, count: bands.cellCount)
        for batch in stride(from: range.lowerBound, to: range.upperBound, by: Self.lanes) {
            let width = min(Self.lanes, range.upperBound - batch)
            let assignments = (0..<width).map { _ in
                var shuffled = canonical
                generator.shuffle(&shuffled)
                return shuffled
            }
            let counts = count(gather(assignments))
            for lane in counts.prefix(width) {
                for i in 0..<lane.count {
                    sums[i] += lane[i]
                    if lane[i] >= observed[i] { atLeast[i] += 1 }
                }
            }
        }
        return (sums, atLeast)
    }
}
