/// Point-in-area test whose cost does not grow with the area's vertex count.
///
/// `NamedArea.contains` walks every edge of every ring for each point: incidents × vertices, too
/// much for a surveyed boundary of 100k+ vertices. Here the edges of all rings are put in latitude buckets once
/// (each edge in every bucket its latitude interval overlaps); a point then walks only the
/// edges of its own bucket. The crossing test is the brute force's, term for term, on the same
/// two vertices in the same order, so the answer — points on edges and vertices included — is
/// bit-for-bit that of `NamedArea.contains` (property-tested against it).
public struct AreaIndex: Sendable {
    /// Edge k runs from (aLon, aLat) = ring[i] to (bLon, bLat) = ring[i − 1], as the brute force
    /// walks it. Horizontal edges never count a crossing and are left out.
    private var aLon: [Double] = [], aLat: [Double] = [], bLon: [Double] = [], bLat: [Double] = []
    private var edgeRing: [Int32] = []
    /// Per ring: its polygon, and whether it is the polygon's exterior (the first ring).
    private var ringPolygon: [Int32] = []
    private var ringIsExterior: [Bool] = []
    private let minLat: Double
    private let maxLat: Double
    private let scale: Double
    private let bucketCount: Int
    /// Bucket b holds the edges `entries[bucketStart[b] ..< bucketStart[b + 1]]`, in ring order.
    private var bucketStart: [Int] = []
    private var entries: [Int32] = []

    /// Bucket entries per edge allowed on average: bounds memory for areas whose edges are long
    /// in latitude (a star), at the price of fuller buckets.
    static let entriesPerEdge = 8.0

    public init(_ area: NamedArea) {
        var lo = Double.infinity, hi = -Double.infinity
        for (p, polygon) in area.polygons.enumerated() {
            for (r, ring) in polygon.rings.enumerated() {
                let ringIndex = Int32(ringPolygon.count)
                ringPolygon.append(Int32(p))
                ringIsExterior.append(r == 0)
                var j = ring.count - 1
                for i in 0..<ring.count {
                    let a = ring[i], b = ring[j]
                    j = i
                    guard a.lat != b.lat else { continue }
                    aLon.append(a.lon)
                    aLat.append(a.lat)
                    bLon.append(b.lon)
                    bLat.append(b.lat)
                    edgeRing.append(ringIndex)
                    lo = min(lo, a.lat, b.lat)
                    hi = max(hi, a.lat, b.lat)
                }
            }
        }
        let n = aLat.count
        guard n > 0, hi > lo else {
            minLat = 0
            maxLat = 0
            scale = 0
            bucketCount = 0
            return
        }
        minLat = lo
        maxLat = hi
        var extent = 0.0
        for k in 0..<n { extent += abs(aLat[k] - bLat[k]) }
        // Σ spans ≈ buckets × extent / range + n; keep it near entriesPerEdge × n.
        let fit = (AreaIndex.entriesPerEdge - 1) * Double(n) * (hi - lo) / max(extent, .leastNormalMagnitude)
        bucketCount = max(1, min(n, Int(min(fit, Double(1 << 26)))))
        scale = Double(bucketCount) / (hi - lo)
        var counts = [Int](repeating: 0, count: bucketCount + 1)
        for k in 0..<n {
            let (x, y) = (bucket(min(aLat[k], bLat[k])), bucket(max(aLat[k], bLat[k])))
            for b in x...y { counts[b + 1] += 1 }
        }
        for b in 0..<bucketCount { counts[b + 1] += counts[b] }
        bucketStart = counts
        var fill = counts
        entries = [Int32](repeating: 0, count: counts[bucketCount])
        // Edges in ring order, so each bucket lists them grouped by ring and rings by polygon.
        for k in 0..<n {
            for b in bucket(min(aLat[k], bLat[k]))...bucket(max(aLat[k], bLat[k])) {
                entries[fill[b]] = Int32(k)
                fill[b] += 1
            }
        }
    }

    /// Monotone in `lat`, so an edge whose interval holds `lat` is in `lat`'s bucket.
    @inline(__always)
    private func bucket(_ lat: Double) -> Int {
        min(bucketCount - 1, max(0, Int((lat - minLat) * scale)))
    }

    /// Inside the exterior and outside every hole of at least one polygon, by the even-odd
    /// crossing rule of `GeoPolygon.contains`.
    public func contains(lat: Double, lon: Double) -> Bool {
        // No edge's interval [low, high) holds a latitude outside [minLat, maxLat) (or NaN).
        guard bucketCount > 0, lat >= minLat, lat < maxLat else { return false }
        let b = bucket(lat)
        var k = bucketStart[b]
        let end = bucketStart[b + 1]
        var polygon: Int32 = -1
        var insideExterior = false, insideHole = false
        while k < end {
            let ring = edgeRing[Int(entries[k])]
            var odd = false
            while k < end, edgeRing[Int(entries[k])] == ring {
                let e = Int(entries[k])
                if (aLat[e] > lat) != (bLat[e] > lat) {
                    let crossLon = aLon[e] + (lat - aLat[e]) / (bLat[e] - aLat[e]) * (bLon[e] - aLon[e])
                    if lon < crossLon { odd.toggle() }
                }
                k += 1
            }
            let p = ringPolygon[Int(ring)]
            if p != polygon {
                if insideExterior && !insideHole { return true }
                polygon = p
                insideExterior = false
                insideHole = false
            }
            if odd {
                if ringIsExterior[Int(ring)] { insideExterior = true } else { insideHole = true }
            }
        }
        return insideExterior && !insideHole
    }

    /// Bucket entries, for the benchmark and the memory bound's test.
    public var entryCount: Int { entries.count }
    public var edgeCount: Int { aLat.count }
}

extension NamedArea {
    /// Why the area cannot be measured, or nil: a ring that crosses the antimeridian (a step of
    /// more than 180° in longitude; RFC 7946 §3.1.9 asks for such rings to be split), a position
    /// outside the lon/lat ranges, a part with zero area or no part at all (its density would be
    /// infinite).
    /// Self-intersecting rings are accepted: membership follows the even-odd rule and the area
    /// the signed sum of the ring as given (docs/DECISIONS.md).
    public var problem: String? {
        // `"MultiPolygon", "coordinates": []`: no part at all is zero area too.
        if polygons.isEmpty { return "a MultiPolygon without any polygon has zero area" }
        for (p, polygon) in polygons.enumerated() {
            let part = polygons.count > 1 ? "part \(p + 1): " : ""
            for (r, ring) in polygon.rings.enumerated() {
                let name = r == 0 ? "exterior ring" : "hole \(r)"
                for (i, point) in ring.enumerated() {
                    guard (-180...180).contains(point.lon), (-90...90).contains(point.lat) else {
                        return
                            "\(part)\(name), position \(i): [\(point.lon), \(point.lat)] is outside [-180, 180] × [-90, 90]"
                    }
                    // The closing edge too (from the last position back to the first).
                    let previous = i > 0 ? i - 1 : ring.count - 1
                    if abs(point.lon - ring[previous].lon) > 180 {
                        return "\(part)\(name) crosses the antimeridian between positions \(previous) and \(i); "
                            + "split it at ±180° into a MultiPolygon (RFC 7946 §3.1.9)"
                    }
                }
            }
            // Zero in the lon/lat plane, where membership is decided (a ring folded onto a line has
            // a tiny spherical "area" from the formula alone), or on the sphere.
            if !(polygon.sphericalArea > 0) || polygon.planarArea <= 1e-12 * polygon.bounds.planarArea {
                return "\(part)the polygon has zero area (its density would be infinite)"
            }
        }
        return nil
    }
}

extension GeoPolygon {
    /// Exterior minus holes in square degrees (shoelace, lon/lat plane).
    var planarArea: Double {
        func ring(_ r: [(lon: Double, lat: Double)]) -> Double {
            var twice = 0.0
            for i in 0..<r.count {
                let a = r[i], b = r[(i + 1) % r.count]
                twice += a.lon * b.lat - b.lon * a.lat
            }
            return abs(twice) / 2
        }
        guard let exterior = rings.first else { return 0 }
        return ring(exterior) - rings.dropFirst().reduce(0) { $0 + ring($1) }
    }
}

extension GeoBox {
    var planarArea: Double { max(0, maxLon - minLon) * max(0, maxLat - minLat) }
}
