import AreaWatchCore
import Foundation
import Testing

@testable import AreaWatchCore

/// One line of Fixtures/h3-golden.tsv: h3-py's answer for a point and a resolution.
private struct GoldenCase {
    let lat: Double, lon: Double, resolution: Int
    let cell: String
    let centre: (lat: Double, lon: Double)
    let boundary: [(lat: Double, lon: Double)]
}

private func goldenCases() throws -> [GoldenCase] {
    let base = try #require(Bundle.module.resourceURL, "the test bundle has no resources")
    let url = base.appendingPathComponent("Fixtures").appendingPathComponent("h3-golden.tsv")
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: "\t").map(String.init)
        try #require(f.count == 7, "a golden line has 7 fields: \(line)")
        let ring = try f[6].split(separator: ";").map { vertex in
            let v = vertex.split(separator: " ")
            return (lat: try #require(Double(String(v[0]))), lon: try #require(Double(String(v[1]))))
        }
        return GoldenCase(
            lat: try #require(Double(f[0])), lon: try #require(Double(f[1])),
            resolution: try #require(Int(f[2])), cell: f[3],
            centre: (try #require(Double(f[4])), try #require(Double(f[5]))), boundary: ring)
    }
}

/// The box around a location that holds every point within `radius` metres (latitude below 80°).
private func boxAround(lat: Double, lon: Double, radius: Double) -> GeoBox {
    let delta = radius / Haversine.earthRadius / Haversine.radiansPerDegree * 1.01 + 1e-7
    let widest = min(89, abs(lat) + delta) * Haversine.radiansPerDegree
    let reach = delta / cos(widest) * 1.01 + 1e-7
    return GeoBox(minLat: lat - delta, minLon: lon - reach, maxLat: lat + delta, maxLon: lon + reach)
}

/// The exhaustive answer: every cell of `cells` whose centre `RadiusTest` accepts.
private func bruteForce(_ cells: [H3Cell], lat: Double, lon: Double, test: RadiusTest) -> [H3Cell] {
    cells.filter {
        let c = $0.centre
        return test.contains(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon)
    }
}

@Suite("H3 (vendored library and wrapper)")
struct H3Tests {
    @Test("cells, centres and boundaries equal h3-py's for the 200 golden points, bit for bit")
    func matchesH3Py() throws {
        let cases = try goldenCases()
        #expect(cases.count == 200)
        for g in cases {
            let cell = H3.cell(lat: g.lat, lon: g.lon, resolution: g.resolution)
            #expect(cell.text == g.cell, "(\(g.lat), \(g.lon)) at resolution \(g.resolution)")
            #expect(cell.resolution == g.resolution)
            #expect(cell.centre.lat == g.centre.lat && cell.centre.lon == g.centre.lon, "centre of \(g.cell)")
            let ring = cell.boundary
            #expect(ring.count == g.boundary.count, "vertices of \(g.cell)")
            for (mine, theirs) in zip(ring, g.boundary) {
                #expect(mine.lat == theirs.lat && mine.lon == theirs.lon, "a vertex of \(g.cell)")
            }
        }
    }

    @Test("the id text is 15 lowercase hex digits and reads back; anything else is refused")
    func textRoundTrip() throws {
        var rng = SplitMix64(seed: testSeed(0x4833_0001))
        for _ in 0..<500 {
            let cell = H3.cell(lat: rng.uniform(-90, 90), lon: rng.uniform(-180, 180), resolution: rng.int(0...15))
            let text = cell.text
            #expect(text.utf8.count == 15)
            #expect(text == String(cell.index, radix: 16))
            #expect(H3Cell(text) == cell)
            #expect(H3Cell(text.uppercased()) == cell)
            var bytes: [UInt8] = []
            cell.appendCharacters(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == text)
        }
        #expect(H3Cell("8928308280fffff") != nil)
        #expect(H3Cell("8928308280ffff") == nil, "14 digits")
        #expect(H3Cell("08928308280fffff") == nil, "16 digits")
        #expect(H3Cell("8928308280fffzf") == nil, "not hex")
        #expect(H3Cell("000000000000000") == nil, "not a cell")
        #expect(H3Cell(index: 0x1142_8308_280f_ffff) == nil, "a directed edge is not a cell")
    }

    @Test("every resolution has twelve pentagons with five neighbours; hexagons have six")
    func pentagonsAndNeighbours() {
        var rng = SplitMix64(seed: testSeed(0x4833_0002))
        for r in 0...15 {
            let pentagons = H3.pentagons(resolution: r)
            #expect(pentagons.count == 12 && Set(pentagons).count == 12)
            for p in pentagons {
                #expect(p.isPentagon && p.resolution == r)
                #expect(p.neighbours.count == 5, "pentagon \(p) at \(r)")
                #expect(p.neighbours.allSatisfy { $0.neighbours.contains(p) })
                // Class II resolutions: five corners; class III adds one where each edge crosses
                // an edge of the icosahedron.
                #expect(p.boundary.count == (r % 2 == 0 ? 5 : 10))
            }
            let cell = H3.cell(lat: rng.uniform(-60, 60), lon: rng.uniform(-180, 180), resolution: r)
            if !cell.isPentagon {
                #expect(cell.neighbours.count == 6)
                #expect(cell.neighbours.allSatisfy { $0.neighbours.contains(cell) }, "neighbours are mutual")
                #expect(cell.disk(1) == (cell.neighbours + [cell]).sorted())
            }
        }
    }

    @Test("radius cells equal an exhaustive search of every cell of the globe (resolutions 0–3)")
    func radiusCellsEqualGlobalSearch() {
        let seed = testSeed(0x4833_0003)
        var rng = SplitMix64(seed: seed)
        for r in 0...3 {
            let all = H3.allCells(resolution: r)
            #expect(all.count == [122, 842, 5_882, 41_162][r])
            let edge = H3.averageEdgeLength(resolution: r)
            // Uniform points plus the poles and the antimeridian, where lattices break.
            var points = (0..<6).map { _ in
                (lat: asin(rng.uniform(-1, 1)) / Haversine.radiansPerDegree, lon: rng.uniform(-180, 180))
            }
            points += [(90, 0), (-90, 45), (0, 180), (0, -180), (65, 179.9), (-65, -179.99)]
            for (lat, lon) in points {
                let test = RadiusTest(radius: edge * rng.uniform(0, 6))
                let engine = H3.cells(withCentreWithin: test, ofLat: lat, lon: lon, resolution: r)
                #expect(
                    engine == bruteForce(all, lat: lat, lon: lon, test: test),
                    "seed \(seed): (\(lat), \(lon)) resolution \(r) radius \(test.radius)")
            }
        }
    }

    @Test("radius cells equal an exhaustive search of a box around the point (resolutions 4–13)")
    func radiusCellsEqualBoxSearch() {
        let seed = testSeed(0x4833_0004)
        var rng = SplitMix64(seed: seed)
        var nonEmpty = 0
        for r in 4...13 {
            let edge = H3.averageEdgeLength(resolution: r)
            for _ in 0..<6 {
                let lat = rng.uniform(-75, 75), lon = rng.uniform(-170, 170)
                let test = RadiusTest(radius: edge * rng.uniform(0, 8))
                let box = boxAround(lat: lat, lon: lon, radius: test.radius)
                let region = H3.cells(withCentreInside: box, resolution: r)
                let expected = bruteForce(region, lat: lat, lon: lon, test: test)
                let engine = H3.cells(withCentreWithin: test, ofLat: lat, lon: lon, resolution: r)
                #expect(engine == expected, "seed \(seed): (\(lat), \(lon)) resolution \(r) radius \(test.radius)")
                if !expected.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > 40, "the search found cells in most cases")
    }

    @Test("radius cells around all twelve pentagons equal an exhaustive search (resolutions 2, 5, 8, 9)")
    func radiusCellsAtPentagons() {
        let seed = testSeed(0x4833_0005)
        var rng = SplitMix64(seed: seed)
        for r in [2, 5, 8, 9] {
            let edge = H3.averageEdgeLength(resolution: r)
            let all = r == 2 ? H3.allCells(resolution: 2) : nil
            for pentagon in H3.pentagons(resolution: r) {
                // On the pentagon's centre and a little off it, toward a random bearing.
                let c = pentagon.centre
                let off = destination(
                    lat: c.lat, lon: c.lon, bearing: rng.uniform(0, 360),
                    distance: edge * rng.uniform(0, 1.5))
                for (lat, lon) in [c, off] {
                    let test = RadiusTest(radius: edge * rng.uniform(0.5, 5))
                    let engine = H3.cells(withCentreWithin: test, ofLat: lat, lon: lon, resolution: r)
                    let region =
                        all
                        ?? H3.cells(
                            withCentreInside: boxAround(lat: lat, lon: lon, radius: test.radius),
                            resolution: r)
                    #expect(
                        engine == bruteForce(region, lat: lat, lon: lon, test: test),
                        "seed \(seed): near pentagon \(pentagon), (\(lat), \(lon)) radius \(test.radius)")
                    #expect(engine.contains(pentagon) || !test.contains(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon))
                }
            }
        }
    }

    @Test("the box search itself finds every cell of a region (it is the reference above)")
    func boxSearchIsExhaustive() {
        // At resolution 3 every cell of the globe is known: the box search must return exactly
        // those whose centre lies in the box.
        let all = H3.allCells(resolution: 3)
        for box in [
            GeoBox(minLat: 40, minLon: -10, maxLat: 55, maxLon: 20),
            GeoBox(minLat: -30, minLon: 100, maxLat: -5, maxLon: 140)
        ] {
            let expected = all.filter {
                let c = $0.centre
                return box.contains(lat: c.lat, lon: c.lon)
            }
            #expect(H3.cells(withCentreInside: box, resolution: 3) == expected)
            #expect(expected.count > 50)
        }
    }
}
