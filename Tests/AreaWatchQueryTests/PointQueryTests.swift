import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

/// SPEC §7.1 point answers against brute force (every incident, `Haversine.distance <= radius`).
@Suite("Point answers equal brute force (SPEC §7.1)")
struct PointQueryTests {
    /// Query locations: exactly at incidents, near them (up to 1.3 radii away), at cell centres
    /// near them, and a few anywhere.
    static func locations(_ rows: [TestIncident], radius: Double, count: Int, seed: UInt64) -> [(Double, Double)] {
        var rng = SplitMix64(seed: seed)
        var out: [(Double, Double)] = []
        let metresPerDegree = Haversine.earthRadius * Double.pi / 180
        for k in 0..<count {
            let base = rows[Int(rng.next() % UInt64(rows.count))]
            switch k % 4 {
            case 0:
                out.append((base.lat, base.lon))
            case 1:
                let d = rng.uniform(0...1.3) * radius / metresPerDegree, bearing = rng.uniform(0...(2 * Double.pi))
                var lat = base.lat + d * Foundation.cos(bearing)
                var lon = base.lon + d * Foundation.sin(bearing) / max(0.01, Foundation.cos(base.lat * Double.pi / 180))
                lat = min(90, max(-90, lat))
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                out.append((lat, lon))
            case 2:
                let p = [6, 7, 8][Int(rng.next() % 3)]
                let c = ReferenceGeohash.centre(
                    row: ReferenceGeohash.row(lat: base.lat, precision: p),
                    column: ReferenceGeohash.column(lon: base.lon, precision: p), precision: p)
                out.append(c)
            default:
                out.append(k % 8 == 3 ? (rng.uniform(-90...90), rng.uniform(-180...180)) : (base.lat, -base.lon))
            }
        }
        return out
    }

    @Test("many random locations, radii 250, 1000, 2500 m", arguments: DataKind.allCases)
    func randomLocations(kind: DataKind) throws {
        let rows = try TestData.incidents(kind)
        let windows = TestData.windows
        for (r, radius) in [250.0, 1000, 2500].enumerated() {
            let index = IncidentIndex(
                columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: radius))
            var mismatches: [String] = []
            var nonZero = 0
            let spots = Self.locations(
                rows, radius: radius, count: kind == .calderdale ? 120 : 200, seed: UInt64(1000 + r))
            for (lat, lon) in spots {
                let expected = referencePoint(rows, windows: windows, lat: lat, lon: lon, radius: radius)
                let a = index.pointAnswer(lat: lat, lon: lon)
                if expected.current + expected.previous > 0 { nonZero += 1 }
                let got = ReferencePoint(current: a.current, previous: a.previous, handled: a.handled)
                if got != expected, mismatches.count < 5 {
                    mismatches.append("(\(lat), \(lon)): \(got), expected \(expected)")
                }
                #expect(a.safetyClass.rawValue == referenceClass(expected.current))
                #expect(a.delta == expected.current - expected.previous)
                #expect(
                    a.pct
                        == (expected.previous == 0
                            ? nil : Double(expected.current - expected.previous) / Double(expected.previous)))
                #expect(a.lat == lat && a.lon == lon && a.radius == radius && a.asOf == TestData.asOf)
            }
            #expect(mismatches.isEmpty, "\(kind) r\(radius): \(mismatches.joined(separator: "; "))")
            #expect(nonZero > spots.count / 3, "\(kind) r\(radius): most locations have incidents around")
        }
    }

    @Test(
        "a batch over two threads gives, in order, the answers of single queries (equal to brute force)",
        arguments: DataKind.allCases)
    func batchOverThreads(kind: DataKind) throws {
        let rows = try TestData.incidents(kind)
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: 1000))
        // Over 2,000 locations, so that the batch is split between both threads.
        let spots = Self.locations(rows, radius: 1000, count: 2_400, seed: 77).map { (lat: $0.0, lon: $0.1) }
        let batch = index.pointAnswers(spots, threads: 2)
        #expect(batch.count == spots.count)
        var mismatches = 0
        for (k, spot) in spots.enumerated() where batch[k] != index.pointAnswer(lat: spot.lat, lon: spot.lon) {
            mismatches += 1
        }
        #expect(mismatches == 0, "\(kind): \(mismatches) batched answers differ")
        for k in stride(from: 0, to: spots.count, by: 97) {
            let expected = referencePoint(
                rows, windows: TestData.windows, lat: spots[k].lat, lon: spots[k].lon, radius: 1000)
            #expect(
                ReferencePoint(current: batch[k].current, previous: batch[k].previous, handled: batch[k].handled)
                    == expected)
        }
    }

    @Test("the listed incidents (query --list) are the counted ones, nearest first", arguments: DataKind.allCases)
    func listedIncidents(kind: DataKind) throws {
        let rows = try TestData.incidents(kind)
        let windows = TestData.windows
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: 1000))
        for (lat, lon) in Self.locations(rows, radius: 1000, count: 24, seed: 77) {
            let listed = index.windowedWithin(lat: lat, lon: lon)
            let sources = listed.map { Int(index.sourceIndex[$0]) }
            let expected = rows.indices.filter { i in
                let w = windows.window(rows[i].time)
                return (w == .current || w == .previous)
                    && Haversine.distance(lat1: lat, lon1: lon, lat2: rows[i].lat, lon2: rows[i].lon) <= 1000
            }
            #expect(sources.sorted() == expected, "(\(lat), \(lon))")
            let distances = sources.map {
                Haversine.distance(lat1: lat, lon1: lon, lat2: rows[$0].lat, lon2: rows[$0].lon)
            }
            #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 <= $1 }, "nearest first")
        }
    }

    /// Poles, the antimeridian, and R-tree shapes from 2 to 64 entries a node.
    @Test("at the poles and ±180°, with any R-tree node size", arguments: [2, 3, 16, 64])
    func edgesAndNodeSizes(nodeSize: Int) throws {
        var rows = TestData.synthetic(.pole) + TestData.synthetic(.antimeridian)
        var rng = SplitMix64(seed: UInt64(nodeSize))
        for _ in 0..<200 {
            rows.append(TestData.incident(&rng, lat: rng.uniform(-90...(-89.9)), lon: rng.uniform(-180...180)))
        }
        let spots: [(Double, Double)] =
            [
                (90, 0), (90, 180), (90, -180), (90, 45.5), (89.999, 0), (-90, 0), (-90, -180),
                (-89.95, 100), (-17.8, 180), (-17.8, -180), (-17.8, 179.9999), (-17.81, -179.99999),
                (0, 180), (0, -180)
            ] + Self.locations(rows, radius: 2500, count: 80, seed: 3)
        for radius in [250.0, 2500, 20_000] {
            let index = IncidentIndex(
                columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: radius),
                nodeSize: nodeSize)
            for (lat, lon) in spots {
                let expected = referencePoint(rows, windows: TestData.windows, lat: lat, lon: lon, radius: radius)
                let a = index.pointAnswer(lat: lat, lon: lon)
                #expect(
                    ReferencePoint(current: a.current, previous: a.previous, handled: a.handled) == expected,
                    "(\(lat), \(lon)) r\(radius) node size \(nodeSize)")
            }
        }
    }

    @Test("incidents one Double inside and outside the radius of the query location", arguments: [6, 7, 8])
    func radiusEdges(precision: Int) throws {
        for radius in [250.0, 1000, 2500] {
            let data = TestData.boundary(precision: precision, radius: radius, pairs: 80)
            let index = IncidentIndex(
                columns: data.incidents.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: radius))
            for c in data.centres {
                let expected = referencePoint(
                    data.incidents, windows: TestData.windows, lat: c.lat, lon: c.lon, radius: radius)
                let a = index.pointAnswer(lat: c.lat, lon: c.lon)
                #expect(
                    ReferencePoint(current: a.current, previous: a.previous, handled: a.handled) == expected,
                    "(\(c.lat), \(c.lon)) r\(radius)")
            }
        }
    }

    @Test("texts, labels and classes at the class bounds")
    func texts() {
        let here = (lat: 40.0, lon: -3.7)
        for (current, previous) in [(0, 0), (4, 0), (5, 2), (9, 9), (10, 12), (3, 7)] {
            var rows: [TestIncident] = []
            for _ in 0..<current {
                rows.append(TestIncident(lat: here.lat, lon: here.lon, time: TestData.asOf - 10, handled: nil))
            }
            for _ in 0..<previous {
                rows.append(
                    TestIncident(lat: here.lat, lon: here.lon, time: TestData.windows.currentStart, handled: nil))
            }
            let a = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf)).pointAnswer(
                lat: here.lat, lon: here.lon)
            #expect(a.current == current && a.previous == previous)
            let label = current < 5 ? "Safe Area" : current < 10 ? "Medium Safety Area" : "Dangerous Area"
            #expect(a.label == label)
            let delta = current - previous
            #expect(
                a.text
                    == (delta >= 0
                        ? "\(delta) event(s) more than previous year" : "\(-delta) event(s) less than previous year"))
        }
    }

    /// Exactly at the radius: an incident placed at the largest Double latitude still within
    /// 1000 m of a location is counted, the next Double is not.
    @Test("the radius boundary to the last bit")
    func boundaryBits() throws {
        let centre = (lat: 53.734818, lon: -1.877975)
        var lat = centre.lat + 1000 / (Haversine.earthRadius * Double.pi / 180)
        while Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: lat, lon2: centre.lon) > 1000 {
            lat = lat.nextDown
        }
        while Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: lat.nextUp, lon2: centre.lon) <= 1000 {
            lat = lat.nextUp
        }
        let inside = lat, outside = lat.nextUp
        #expect(Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: inside, lon2: centre.lon) <= 1000)
        #expect(Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: outside, lon2: centre.lon) > 1000)
        var rows: [TestIncident] = []
        // The boundary pair plus a crowd nearby (so R-tree nodes are accepted whole around it).
        rows.append(TestIncident(lat: inside, lon: centre.lon, time: TestData.asOf, handled: true))
        rows.append(TestIncident(lat: outside, lon: centre.lon, time: TestData.asOf, handled: true))
        var rng = SplitMix64(seed: 5)
        for _ in 0..<300 {
            rows.append(
                TestData.incident(
                    &rng, lat: centre.lat + rng.uniform(-0.012...0.012), lon: centre.lon + rng.uniform(-0.02...0.02)))
        }
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: 1000))
        let a = index.pointAnswer(lat: centre.lat, lon: centre.lon)
        let expected = referencePoint(rows, windows: TestData.windows, lat: centre.lat, lon: centre.lon, radius: 1000)
        #expect(ReferencePoint(current: a.current, previous: a.previous, handled: a.handled) == expected)
        let without = IncidentIndex(
            columns: Array(rows.dropFirst()).columns, parameters: QueryParameters(asOf: TestData.asOf, radius: 1000))
        #expect(
            without.pointAnswer(lat: centre.lat, lon: centre.lon).current == a.current - 1,
            "the incident just inside counts")
        let withoutOutside = IncidentIndex(
            columns: ([rows[0]] + rows.dropFirst(2)).columns,
            parameters: QueryParameters(asOf: TestData.asOf, radius: 1000))
        #expect(
            withoutOutside.pointAnswer(lat: centre.lat, lon: centre.lon).current == a.current,
            "the one just outside does not")
    }
}
