import AreaWatchCore
import Glibc

/// The spatial pairs of the near-repeat test (SPEC §16): every unordered pair of incidents at a
/// haversine distance of at most the last band edge, with its distance band. The permutations move
/// times and keep places, so this list is built once and counted against every permutation.
///
/// Stored compactly in the R-tree's leaf order (Hilbert order, so the partners of an incident lie
/// near it in memory): position `p`'s partners are `partner[offsets[p] ..< offsets[p + 1]]`, all
/// greater than `p`, each with its band in `band`. Five bytes per pair plus eight per incident.
public struct NearRepeatPairs: Sendable {
    /// Leaf position → index of the incident in the canonical order.
    public let canonicalIndex: [UInt32]
    public let offsets: [Int]
    public let partner: [UInt32]
    /// Distance band: 0 for the same location (d = 0), k for (e[k−1], e[k]].
    public let band: [UInt8]

    public var count: Int { partner.count }
    public var incidentCount: Int { canonicalIndex.count }
    public var memoryBytes: Int { partner.count * 5 + offsets.count * 8 + canonicalIndex.count * 4 }

    /// The pairs of the incidents at `latitudes`/`longitudes` (canonical order) for `edges`
    /// (metres, strictly increasing), or `nil` when there are more than `maxPairs`: they are
    /// counted, in parallel, before any is stored. `counted` receives the number either way.
    public static func build(
        latitudes: [Double], longitudes: [Double], edges: [Double], maxPairs: Int,
        threads: Int, counted: (Int) -> Void = { _ in }
    ) -> NearRepeatPairs? {
        let finder = PairFinder(latitudes: latitudes, longitudes: longitudes, edges: edges)
        let n = latitudes.count
        let parts = Self.parts(n, threads: threads)
        // Pass 1: partners per position, so the offsets are known before anything is stored.
        let perPart = Concurrency.map(parts.count) { part in
            parts[part].map { p in finder.partners(of: p) { _, _ in } }
        }
        var offsets = [Int](repeating: 0, count: n + 1)
        var total = 0
        var p = 0
        for counts in perPart {
            for c in counts {
                total += c
                p += 1
                offsets[p] = total
            }
        }
        counted(total)
        guard total <= maxPairs else { return nil }
        let starts = offsets
        // Pass 2: each part fills its own range of the flat arrays.
        var partner = [UInt32](repeating: 0, count: total)
        var band = [UInt8](repeating: 0, count: total)
        partner.withUnsafeMutableBufferPointer { partnerBuffer in
            band.withUnsafeMutableBufferPointer { bandBuffer in
                let partners = UnsafeMutableSendableBuffer(partnerBuffer)
                let bands = UnsafeMutableSendableBuffer(bandBuffer)
                _ = Concurrency.map(parts.count) { part in
                    for p in parts[part] {
                        var e = starts[p]
                        _ = finder.partners(of: p) { q, b in
                            partners[e] = UInt32(q)
                            bands[e] = b
                            e += 1
                        }
                    }
                }
            }
        }
        return NearRepeatPairs(canonicalIndex: finder.tree.leafIndex, offsets: offsets, partner: partner, band: band)
    }

    /// Contiguous position ranges, several per thread (the work per position varies with density).
    static func parts(_ n: Int, threads: Int) -> [Range<Int>] {
        let k = min(n, max(1, threads) * 8)
        guard k > 0 else { return [] }
        return (0..<k).map { i in (n * i / k)..<(n * (i + 1) / k) }
    }
}

/// Finds one position's partners: candidates from the R-tree, decided by the exact haversine
/// term (the thresholds of `RadiusTest`, one per edge), always computed with the incident that
/// comes first in the canonical order as the first point, so a pair's band never depends on
/// which of its two incidents asked.
struct PairFinder: Sendable {
    let tree: PackedHilbertRTree
    /// Per edge, the largest haversine term within it.
    let thresholds: [Double]
    /// A slightly larger radius for the R-tree's candidates: the exact test decides.
    let candidates: RadiusTest
    /// cos(latitude) per leaf position, computed once instead of twice per candidate pair.
    let leafCosLat: [Double]

    init(latitudes: [Double], longitudes: [Double], edges: [Double]) {
        tree = PackedHilbertRTree(latitudes: latitudes, longitudes: longitudes)
        thresholds = edges.map { RadiusTest(radius: $0).threshold }
        candidates = RadiusTest(radius: (edges.last ?? 0) * (1 + 1e-6) + 1e-3)
        leafCosLat = tree.leafLat.map { cos($0 * Haversine.radiansPerDegree) }
    }

    /// Calls `found(q, band)` for every partner q > p (leaf positions), in increasing q; returns
    /// how many there were.
    @discardableResult
    func partners(of p: Int, _ found: (Int, UInt8) -> Void) -> Int {
        var list: [Int] = []
        tree.forEachWithin(
            lat: tree.leafLat[p], lon: tree.leafLon[p], test: candidates,
            range: { r in list.append(contentsOf: r.lowerBound < p + 1 ? (p + 1)..<max(p + 1, r.upperBound) : r) },
            point: { q in if q > p { list.append(q) } })
        list.sort()
        var count = 0
        for q in list {
            if let b = band(p, q) {
                found(q, b)
                count += 1
            }
        }
        return count
    }

    /// The distance band of positions p and q, or nil beyond the last edge.
    @inline(__always)
    func band(_ p: Int, _ q: Int) -> UInt8? {
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
