import Foundation
import Testing

@testable import AreaWatchCore

/// SPEC §7.1 `coverage`: the data's box grown by the radius on the sphere holds every point within
/// the radius of a point of the box (checked against points placed at the radius in every
/// direction), and its longitude edge is exact at the box's latitude nearest a pole.
@Suite("coverage: the box grown by the radius")
struct CoverageTests {
    static func randomBox(_ random: inout SplitMix64) -> GeoBox {
        let lat = random.uniform(-88, 88), lon = random.uniform(-180, 180)
        let height = random.uniform(0, 3), width = random.uniform(0, 5)
        return GeoBox(
            minLat: max(-90, lat - height), minLon: max(-180, lon - width),
            maxLat: min(90, lat + height), maxLon: min(180, lon + width))
    }

    @Test("every point within the radius of a point of the box is covered (brute force, 400 boxes)")
    func holdsEveryPointWithinTheRadius() {
        var random = SplitMix64(seed: 0xC0FE)
        for _ in 0..<400 {
            let box = Self.randomBox(&random)
            let radius = [1.0, 300, 1000, 50_000, 500_000][Int(random.next() % 5)]
            let grown = GrownBox(box, radius: radius)
            for _ in 0..<40 {
                // A point of the box (its corners and edges included), then one within the radius.
                let lat = [box.minLat, box.maxLat, random.uniform(box.minLat, box.maxLat)][Int(random.next() % 3)]
                let lon = [box.minLon, box.maxLon, random.uniform(box.minLon, box.maxLon)][Int(random.next() % 3)]
                let p = destination(
                    lat: lat, lon: lon, bearing: random.uniform(0, 360),
                    distance: radius * random.uniform(0, 0.999_999))
                #expect(
                    grown.contains(lat: p.lat, lon: p.lon),
                    "\(box) r \(radius): (\(p.lat), \(p.lon)) from (\(lat), \(lon))")
                #expect(Coverage.of(lat: p.lat, lon: p.lon, box: box, radius: radius) == .data)
            }
        }
    }

    @Test("the edges are exact: just inside is covered, just outside is not; the reach is the radius")
    func edgesAreExact() {
        let box = GeoBox(minLat: 50.0, minLon: 0.0, maxLat: 50.01, maxLon: 0.02)
        let grown = GrownBox(box, radius: 1000)
        let d = 1000 / Haversine.earthRadius / Haversine.radiansPerDegree
        #expect(grown.contains(lat: 50.01 + d, lon: 0.01) && !grown.contains(lat: 50.01 + d + 1e-9, lon: 0.01))
        #expect(grown.contains(lat: 50.0 - d, lon: 0.01) && !grown.contains(lat: 50.0 - d - 1e-9, lon: 0.01))
        let east = try! #require(grown.east)
        #expect(grown.contains(lat: 50.005, lon: east) && !grown.contains(lat: 50.005, lon: east + 1e-9))
        // The east edge is where a circle of the radius around the box's north-east corner reaches.
        let rad = Haversine.radiansPerDegree
        let tangent = asin(sin(50.01 * rad) / cos(1000 / Haversine.earthRadius)) / rad
        let reach = Haversine.distance(lat1: 50.01, lon1: 0.02, lat2: tangent, lon2: east)
        #expect(abs(reach - 1000) < 1e-6, "\(reach)")
    }

    @Test("across the antimeridian, near a pole, no box")
    func wrapsAndPoles() {
        let fiji = GeoBox(minLat: -18.2, minLon: 179.9, maxLat: -18.0, maxLon: 179.999)
        #expect(Coverage.of(lat: -18.1, lon: -179.995, box: fiji, radius: 1000) == .data)
        #expect(Coverage.of(lat: -18.1, lon: -179.9, box: fiji, radius: 1000) == .none)
        let arctic = GeoBox(minLat: 89.99, minLon: 10, maxLat: 89.995, maxLon: 11)
        #expect(GrownBox(arctic, radius: 1000).west == nil, "a circle reaching the pole covers every longitude")
        #expect(Coverage.of(lat: 89.999, lon: -170, box: arctic, radius: 1000) == .data)
        #expect(Coverage.of(lat: 0, lon: 0, box: nil, radius: 1000) == .none)
        #expect(Coverage.noDataLabel == "No data for this location")
    }
}
