import Testing

@testable import AreaWatchCore

/// The indexed point-in-area test against the brute force (`NamedArea.contains`), which stays
/// the definition: random polygons with holes, MultiPolygons, self-intersecting rings, and
/// points exactly on vertices, on edges and on the horizontal lines through vertices.
@Suite("AreaIndex: indexed point in polygon")
struct AreaIndexTests {
    struct Random {
        var g: SplitMix64
        mutating func unit() -> Double { Double(g.next() >> 11) / Double(1 << 53) }
        mutating func int(_ n: Int) -> Int { Int(g.next() % UInt64(n)) }
        /// On a lattice of 1/8 degree half the time, so vertices, edges and test points coincide.
        mutating func coordinate(_ low: Double, _ high: Double) -> Double {
            let v = low + unit() * (high - low)
            return int(2) == 0 ? (v * 8).rounded() / 8 : v
        }
    }

    /// A ring around a centre: star-shaped (sorted angles) or, one time in four, vertices in
    /// random order (self-intersecting).
    static func ring(_ r: inout Random, centre: (Double, Double), radius: Double, vertices: Int) -> [(
        lon: Double, lat: Double
    )] {
        var angles = (0..<vertices).map { _ in r.unit() * 2 * Double.pi }
        if r.int(4) != 0 { angles.sort() }
        var points = angles.map { a -> (lon: Double, lat: Double) in
            let d = radius * (0.3 + 0.7 * r.unit())
            let lon = centre.0 + d * cosine(a), lat = centre.1 + d * sine(a)
            return r.int(2) == 0 ? ((lon * 8).rounded() / 8, (lat * 8).rounded() / 8) : (lon, lat)
        }
        if r.int(2) == 0, let first = points.first { points.append(first) } // closed or not
        return points
    }

    static func area(_ r: inout Random, vertices: Int) -> NamedArea {
        var polygons: [GeoPolygon] = []
        for _ in 0..<(1 + r.int(3)) {
            let centre = (r.coordinate(-3, 3), r.coordinate(-3, 3))
            var rings = [ring(&r, centre: centre, radius: 2, vertices: vertices)]
            for _ in 0..<r.int(3) {
                let hole = (centre.0 + r.coordinate(-1, 1), centre.1 + r.coordinate(-1, 1))
                rings.append(ring(&r, centre: hole, radius: 0.6, vertices: max(3, vertices / 4)))
            }
            polygons.append(GeoPolygon(rings: rings))
        }
        return NamedArea(id: "a", polygons: polygons)
    }

    /// Vertices, edge midpoints and points along edges, lattice points, horizontal lines through
    /// vertices, and random points.
    static func probes(_ r: inout Random, _ area: NamedArea) -> [(lat: Double, lon: Double)] {
        var out: [(lat: Double, lon: Double)] = []
        for ring in area.polygons.flatMap(\.rings) {
            for (i, p) in ring.enumerated() {
                let q = ring[(i + 1) % ring.count]
                out.append((p.lat, p.lon))
                out.append(((p.lat + q.lat) / 2, (p.lon + q.lon) / 2))
                let t = r.unit()
                out.append((p.lat + t * (q.lat - p.lat), p.lon + t * (q.lon - p.lon)))
                out.append((p.lat, r.coordinate(-6, 6)))
            }
        }
        for _ in 0..<400 { out.append((r.coordinate(-6, 6), r.coordinate(-6, 6))) }
        return out
    }

    @Test("same answer as the brute force, boundary points included", arguments: Array(UInt64(1)...40))
    func agreesWithBruteForce(_ seed: UInt64) {
        var r = Random(g: SplitMix64(seed: seed))
        let area = Self.area(&r, vertices: [3, 4, 7, 20, 200, 1000][r.int(6)])
        let index = AreaIndex(area)
        var mismatches: [String] = []
        var inside = 0
        // At most 3,000 probes: the brute force is slow in debug builds.
        let all = Self.probes(&r, area)
        let probes = all.count <= 3000 ? all : (0..<3000).map { _ in all[r.int(all.count)] }
        for p in probes {
            let expected = area.contains(lat: p.lat, lon: p.lon)
            if expected { inside += 1 }
            if index.contains(lat: p.lat, lon: p.lon) != expected {
                mismatches.append("(\(p.lat), \(p.lon)) expected \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.prefix(5))")
        #expect(inside > 0 && inside < probes.count, "seed \(seed): the probes must fall on both sides")
    }

    @Test("points outside the latitude range, NaN and empty areas are outside")
    func edgeCases() {
        let square = NamedArea(id: "s", polygons: [GeoPolygon(rings: [[(0, 0), (1, 0), (1, 1), (0, 1)]])])
        let index = AreaIndex(square)
        for (lat, lon) in [(1.0, 0.5), (-0.1, 0.5), (2, 0.5), (Double.nan, 0.5), (0.5, Double.nan)] {
            #expect(index.contains(lat: lat, lon: lon) == square.contains(lat: lat, lon: lon))
        }
        #expect(index.contains(lat: 0, lon: 0.5) == square.contains(lat: 0, lon: 0.5))
        #expect(index.contains(lat: 0.5, lon: 0.5))
        #expect(!AreaIndex(NamedArea(id: "e", polygons: [])).contains(lat: 0, lon: 0))
        let flat = NamedArea(id: "f", polygons: [GeoPolygon(rings: [[(0, 0), (1, 0), (2, 0)]])])
        #expect(!AreaIndex(flat).contains(lat: 0, lon: 0.5))
    }

    @Test("memory stays bounded for edges long in latitude (a star of 5,000 spikes)")
    func boundedEntries() {
        var ring: [(lon: Double, lat: Double)] = []
        for k in 0..<10_000 {
            let a = Double(k) / 10_000 * 2 * Double.pi
            let d = k % 2 == 0 ? 1.0 : 0.01
            ring.append((d * cosine(a), d * sine(a)))
        }
        let area = NamedArea(id: "star", polygons: [GeoPolygon(rings: [ring])])
        let index = AreaIndex(area)
        #expect(index.entryCount <= Int(AreaIndex.entriesPerEdge + 1) * index.edgeCount, "\(index.entryCount) entries")
        var r = Random(g: SplitMix64(seed: 99))
        for _ in 0..<500 {
            let lat = r.coordinate(-1, 1), lon = r.coordinate(-1, 1)
            #expect(index.contains(lat: lat, lon: lon) == area.contains(lat: lat, lon: lon))
        }
    }

    @Test("degenerate areas are named, not measured: zero area, antimeridian, out of range")
    func degenerateAreas() {
        let ok = NamedArea(id: "ok", polygons: [GeoPolygon(rings: [[(0, 0), (1, 0), (1, 1), (0, 1)]])])
        #expect(ok.problem == nil)
        let line = NamedArea(id: "line", polygons: [GeoPolygon(rings: [[(0, 0), (1, 1), (2, 2), (0, 0)]])])
        #expect(line.problem?.contains("zero area") == true)
        let filled = NamedArea(
            id: "filled",
            polygons: [GeoPolygon(rings: [[(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 0), (0, 1), (1, 1), (1, 0)]])])
        #expect(filled.problem?.contains("zero area") == true)
        let dateline = NamedArea(
            id: "fiji", polygons: [GeoPolygon(rings: [[(179, -17), (-179, -17), (-179, -16), (179, -16)]])])
        #expect(dateline.problem?.contains("antimeridian") == true)
        let outside = NamedArea(id: "far", polygons: [GeoPolygon(rings: [[(0, 0), (1, 0), (1, 95), (0, 1)]])])
        #expect(outside.problem?.contains("outside") == true)
    }
}

// Foundation-free trigonometry for the generators (AreaWatchCore has no Foundation either).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
func sine(_ x: Double) -> Double { sin(x) }
func cosine(_ x: Double) -> Double { cos(x) }
