import AreaWatchCore
import Glibc

/// The spatial pairs of the near-repeat test (SPEC §16): every unordered pair of incidents at a
/// haversine distance of at most the last band edge, grouped by distance band. The permutations
/// move times and keep places, so this list is built once and counted against every permutation.
///
/// Stored compactly in the R-tree's leaf order (Hilbert order, so the partners of an incident lie
/// near it in memory), one block per distance band: band `s`'s partners of position `p` are
/// `partner[offsets[s * n + p] ..< offsets[s * n + p + 1]]` (n incidents), all greater than `p`,
/// in the R-tree's traversal order. Grouping by band lets the counter keep one band's tallies in registers
/// for a whole pass (`PairCounter`). Four bytes per pair plus eight per incident and band.
public struct NearRepeatPairs: Sendable {
    /// Leaf position → index of the incident in the canonical order.
    public let canonicalIndex: [UInt32]
    /// Distance bands: 0 for the same location (d = 0), k for (e[k−1], e[k]].
    public let bandCount: Int
    public let offsets: [Int]
    public let partner: [UInt32]

    public var count: Int { partner.count }
    public var incidentCount: Int { canonicalIndex.count }
    public var memoryBytes: Int { partner.count * 4 + offsets.count * 8 + canonicalIndex.count * 4 }

    /// The pairs in distance band `s`.
    public func count(inBand s: Int) -> Int {
        offsets[(s + 1) * incidentCount] - offsets[s * incidentCount]
    }

    /// The pairs of the incidents at `latitudes`/`longitudes` (canonical order) for `edges`
    /// (metres, strictly increasing), or `nil` when there are more than `maxPairs`: they are
    /// counted, in parallel, before any is stored. `counted` receives the number either way.
    public static func build(
        latitudes: [Double], longitudes: [Double], edges: [Double], maxPairs: Int,
        threads: Int, counted: (Int) -> Void = { _ in }
    ) -> NearRepeatPairs? {
        let finder = PairFinder(latitudes: latitudes, longitudes: longitudes, edges: edges)
        let n = latitudes.count
        let bandCount = edges.count + 1
        let parts = Self.parts(n, threads: threads)
        // Pass 1: partners per position and band, so the offsets are known before anything is stored.
        let perPart = Concurrency.map(parts.count) { part in
            var counts = [Int](repeating: 0, count: parts[part].count * bandCount)
            for (i, p) in parts[part].enumerated() {
                finder.partners(of: p) { _, b in counts[i * bandCount + Int(b)] += 1 }
            }
            return counts
        }
        let offsets = Self.offsets(perPart: perPart, parts: parts, n: n, bandCount: bandCount)
        let total = offsets[bandCount * n]
        counted(total)
        guard total <= maxPairs else { return nil }
        // Pass 2: each part fills its own ranges of the flat array, one cursor per band.
        var partner = [UInt32](repeating: 0, count: total)
        partner.withUnsafeMutableBufferPointer { partnerBuffer in
            let partners = UnsafeMutableSendableBuffer(partnerBuffer)
            _ = Concurrency.map(parts.count) { part in
                var cursor = [Int](repeating: 0, count: bandCount)
                for p in parts[part] {
                    for s in 0..<bandCount { cursor[s] = offsets[s * n + p] }
                    finder.partners(of: p) { q, b in
                        partners[cursor[Int(b)]] = UInt32(q)
                        cursor[Int(b)] += 1
                    }
                }
            }
        }
        return NearRepeatPairs(
            canonicalIndex: finder.tree.leafIndex, bandCount: bandCount, offsets: offsets, partner: partner)
    }

    /// Band-major running sums of the per-position, per-band counts (`bandCount · n + 1` values).
    static func offsets(perPart: [[Int]], parts: [Range<Int>], n: Int, bandCount: Int) -> [Int] {
        var offsets = [Int](repeating: 0, count: bandCount * n + 1)
        var total = 0
        for s in 0..<bandCount {
            for (part, counts) in zip(parts, perPart) {
                for i in 0..<part.count {
                    offsets[s * n + part.lowerBound + i] = total
                    total += counts[i * bandCount + s]
                }
            }
        }
        offsets[bandCount * n] = total
        return offsets
    }

    /// Contiguous position ranges, several per thread (the work per position varies with density).
    static func parts(_ n: Int, threads: Int) -> [Range<Int>] {
        let k = min(n, max(1, threads) * 8)
        guard k > 0 else { return [] }
        return (0..<k).map { i in (n * i / k)..<(n * (i + 1) / k) }
    }
}

/// Finds one position's partners: candidates from the R-tree, each decided by its chord where
/// the chord alone decides (`RadiusTest.chordBand`), otherwise by the exact haversine term (the
/// thresholds of `RadiusTest`, one per edge) computed with the incident that comes first in the
/// canonical order as the first point, so a pair's band never depends on which of its two
/// incidents asked, and always equals the haversine's.
struct PairFinder: Sendable {
    let tree: PackedHilbertRTree
    /// Per edge, the largest haversine term within it.
    let thresholds: [Double]
    /// Per edge, the quarter squared chords at or below which a pair is certainly within it, and
    /// above which it is certainly beyond.
    let chordBands: [(certainlyWithin: Double, certainlyBeyond: Double)]
    /// A slightly larger radius for the R-tree's candidates: the exact test decides.
    let candidates: RadiusTest
    /// cos(latitude) per leaf position, computed once instead of twice per candidate pair.
    let leafCosLat: [Double]
    /// Each leaf position on the unit sphere: most pairs are banded without trigonometry.
    let leafUnit: [UnitVector]
    /// Below this quarter squared chord (well under a millimetre) two points may have a haversine
    /// term of exactly 0, the same location: the haversine decides. Above it the term is positive.
    static let coincident = 1e-20

    init(latitudes: [Double], longitudes: [Double], edges: [Double]) {
        tree = PackedHilbertRTree(latitudes: latitudes, longitudes: longitudes)
        let tests = edges.map { RadiusTest(radius: $0) }
        thresholds = tests.map(\.threshold)
        chordBands = tests.map(\.chordBand)
        candidates = RadiusTest(radius: (edges.last ?? 0) * (1 + 1e-6) + 1e-3)
        leafCosLat = tree.leafLat.map { cos($0 * Haversine.radiansPerDegree) }
        leafUnit = zip(tree.leafLat, tree.leafLon).map { UnitVector(lat: $0, lon: $1) }
    }

    /// Calls `found(q, band)` for every partner q > p (leaf positions), in the tree's traversal
    /// order.
    func partners(of p: Int, _ found: (Int, UInt8) -> Void) {
        tree.forEachWithin(
            lat: tree.leafLat[p], lon: tree.leafLon[p], test: candidates,
            range: { r in
                for q in max(p + 1, r.lowerBound)..<max(p + 1, r.upperBound) {
                    if let b = band(p, q) { found(q, b) }
                }
            },
            point: { q in
                if q > p, let b = band(p, q) { found(q, b) }
            })
    }

    /// The distance band of positions p and q, or nil beyond the last edge.
    @inline(__always)
    func band(_ p: Int, _ q: Int) -> UInt8? {
        let c = leafUnit[p].quarterChordSquared(to: leafUnit[q])
        guard c >= Self.coincident else { return haversineBand(p, q) }
        for (k, edge) in chordBands.enumerated() {
            if c <= edge.certainlyWithin { return UInt8(k + 1) }
            if c <= edge.certainlyBeyond { return haversineBand(p, q) }
        }
        return nil
    }

    /// The band by the haversine term alone.
    func haversineBand(_ p: Int, _ q: Int) -> UInt8? {
        let (first, second) = tree.leafIndex[p] < tree.leafIndex[q] ? (p, q) : (q, p)
        let a = Haversine.halfChordSquared(
            lat1: tree.leafLat[first], lon1: tree.leafLon[first],
            cosLat1: leafCosLat[first], lat2: tree.leafLat[second],
            lon2: tree.leafLon[second], cosLat2: leafCosLat[second])
        if a == 0 { return 0 }
        for (k, threshold) in thresholds.enumerated() where a <= threshold { return UInt8(k + 1) }
        return nil
    }
}
