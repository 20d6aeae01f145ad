import AreaWatchCore
import Glibc
import Testing

@testable import AreaWatchCore

/// Twice the signed shoelace area of a closed ring in the lon/lat plane.
private func twiceArea(_ ring: CellPolygons.Ring) -> Double {
    (0..<(ring.count - 1)).reduce(0) { $0 + ring[$1].lon * ring[$1 + 1].lat - ring[$1 + 1].lon * ring[$1].lat }
}

/// A unit vector of a point given in degrees.
private func unit(_ lat: Double, _ lon: Double) -> (Double, Double, Double) {
    let p = lat * .pi / 180, l = lon * .pi / 180
    return (cos(p) * cos(l), cos(p) * sin(l), sin(p))
}

@Suite("Cell polygons (RFC 7946 rings of H3 cells)")
struct CellPolygonsTests {
    @Test("every cell of resolutions 0–2: closed counter-clockwise parts within ±180, split or capped as needed")
    func everyCoarseCell() {
        var split = 0, caps = 0
        for r in 0...2 {
            for cell in H3.allCells(resolution: r) {
                let ring = cell.boundary
                let parts = CellPolygons.parts(of: ring)
                let jumps = (0..<ring.count).filter { abs(ring[($0 + 1) % ring.count].lon - ring[$0].lon) > 180 }.count
                for part in parts {
                    #expect(part.first! == part.last!, "\(cell) closed")
                    #expect(twiceArea(part) > 0, "\(cell) counter-clockwise")
                    #expect(part.allSatisfy { (-180...180).contains($0.lon) && (-90...90).contains($0.lat) })
                }
                let containsPole = [90.0, -90].contains { H3.cell(lat: $0, lon: 0, resolution: r) == cell }
                if containsPole {
                    caps += 1
                    #expect(parts.count == 1, "\(cell) is one polar cap")
                    let pole: Double = cell.centre.lat > 0 ? 90 : -90
                    #expect(parts[0].contains { $0 == (180, pole) } && parts[0].contains { $0 == (-180, pole) })
                    #expect(parts[0].count == ring.count + 5)
                } else if jumps > 0 {
                    split += 1
                    #expect(parts.count == 2, "\(cell) is split at the antimeridian")
                    #expect(Set(parts.map { part in part.contains { $0.lon == 180 } }) == [true, false])
                    #expect(Set(parts.map { part in part.contains { $0.lon == -180 } }) == [true, false])
                    #expect(parts.reduce(0) { $0 + $1.count } == ring.count + 6)
                    // The parts cover the ring's area with its longitudes unwrapped and the two points
                    // where it meets the antimeridian added, no more and no less.
                    let unwrap = { (lon: Double) in lon < 0 ? lon + 360 : lon }
                    let shifted = { (r: CellPolygons.Ring) in r.map { (lon: unwrap($0.lon), lat: $0.lat) } }
                    var closed: CellPolygons.Ring = []
                    for (k, a) in ring.enumerated() {
                        let b = ring[(k + 1) % ring.count]
                        closed.append((a.lon, a.lat))
                        if abs(b.lon - a.lon) > 180 { closed.append((180, CellPolygons.crossingLatitude(a, b))) }
                    }
                    closed.append(closed[0])
                    let whole = shifted(closed)
                    let pieces = parts.reduce(0.0) { $0 + twiceArea(shifted($1)) }
                    #expect(abs(abs(twiceArea(whole)) - pieces) < 1e-9 * pieces, "\(cell) area")
                } else {
                    #expect(parts.count == 1)
                    let expected = ring.map { (lon: $0.lon, lat: $0.lat) } + [(lon: ring[0].lon, lat: ring[0].lat)]
                    #expect(
                        parts[0].elementsEqual(expected, by: ==)
                            || parts[0].elementsEqual(expected.reversed(), by: ==))
                }
            }
        }
        #expect(caps == 6, "one cap per pole and resolution")
        #expect(split >= 10, "the antimeridian crosses cells at every resolution")
    }

    @Test("a crossing point lies on the great circle through the edge's ends")
    func crossingOnGreatCircle() {
        var rng = SplitMix64(seed: testSeed(0xCE11_0001))
        for _ in 0..<500 {
            let a = (lat: rng.uniform(-80, 80), lon: rng.uniform(170, 180))
            let b = (lat: rng.uniform(-80, 80), lon: rng.uniform(-180, -170))
            let lat = CellPolygons.crossingLatitude(a, b)
            let (u, v, w) = (unit(a.lat, a.lon), unit(b.lat, b.lon), unit(lat, 180))
            // Triple product u · (v × w) is zero for three points of one great circle.
            let triple = u.0 * (v.1 * w.2 - v.2 * w.1) - u.1 * (v.0 * w.2 - v.2 * w.0) + u.2 * (v.0 * w.1 - v.1 * w.0)
            #expect(abs(triple) < 1e-12)
            #expect(lat >= min(a.lat, b.lat) - 1e-9 && lat <= max(a.lat, b.lat) + 1e-9)
            #expect(abs(CellPolygons.crossingLatitude(b, a) - lat) < 1e-12, "either way round")
        }
    }

    @Test("the res-2 cell on the equator at 180° is two parts; a pentagon's ring keeps its five corners")
    func knownCells() throws {
        let cell = try #require(H3Cell("827eb7fffffffff"))
        let parts = CellPolygons.parts(of: cell.boundary)
        #expect(parts.count == 2)
        let east = try #require(parts.first { part in part.contains { $0.lon == 180 } })
        let west = try #require(parts.first { part in part.contains { $0.lon == -180 } })
        #expect(east.filter { $0.lon != 180 }.count == 3 && west.filter { $0.lon != -180 }.count == 3)
        for pentagon in H3.pentagons(resolution: 4) {
            let parts = CellPolygons.parts(of: pentagon.boundary)
            #expect(parts.count == 1 && parts[0].count == 6, "\(pentagon): 5 corners, closed")
        }
    }
}
