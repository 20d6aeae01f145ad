import AreaWatchCore
import Glibc
import Testing

@testable import AreaWatchCore

/// The haversine term exactly as the R-tree's per-point test computes it (query first).
private func term(_ lat: Double, _ lon: Double, _ lat2: Double, _ lon2: Double) -> Double {
    Haversine.halfChordSquared(lat1: lat, lon1: lon, lat2: lat2, lon2: lon2)
}

/// A random box: tiny to huge, anywhere, often touching a pole or an end of the longitude range.
private func randomBox(_ rng: inout SplitMix64) -> GeoBox {
    let size = rng.pick([1e-7, 1e-5, 1e-3, 0.05, 1, 10, 45, 120, 200])
    let h = min(180, size * rng.uniform(0.1, 1)), w = min(360, size * rng.uniform(0.1, 2))
    var minLat = rng.uniform(-90, 90 - h), minLon = rng.uniform(-180, 180 - w)
    switch rng.int(0...9) {
    case 0: minLat = 90 - h // touches the north pole
    case 1: minLat = -90 // touches the south pole
    case 2: minLon = 180 - w // touches +180
    case 3: minLon = -180 // touches −180
    default: break
    }
    return GeoBox(minLat: minLat, minLon: minLon, maxLat: min(90, minLat + h), maxLon: min(180, minLon + w))
}

/// A query point related to the box: inside, just outside one side, across the antimeridian,
/// near a pole, or anywhere.
private func randomQuery(_ rng: inout SplitMix64, _ box: GeoBox) -> (lat: Double, lon: Double) {
    let w = box.maxLon - box.minLon, h = box.maxLat - box.minLat
    var lat = rng.uniform(box.minLat, box.maxLat), lon = rng.uniform(box.minLon, box.maxLon)
    switch rng.int(0...8) {
    case 0: break
    case 1: lon = box.minLon - rng.pick([1e-9, 1e-6, 0.01, 1, 30]) * rng.uniform(0, 1) * max(w, 1e-6) * 10
    case 2: lon = box.maxLon + rng.pick([1e-9, 1e-6, 0.01, 1, 30]) * rng.uniform(0, 1) * max(w, 1e-6) * 10
    case 3: lat = box.minLat - rng.uniform(0, 1) * max(h, 1e-6) * rng.pick([0.001, 1, 10])
    case 4: lat = box.maxLat + rng.uniform(0, 1) * max(h, 1e-6) * rng.pick([0.001, 1, 10])
    case 5: lon = rng.pick([179.999, -179.999, 180, -180, rng.uniform(170, 180), rng.uniform(-180, -170)])
    case 6: lat = rng.pick([90, -90, 89.999_999, -89.999_999, rng.uniform(89, 90), rng.uniform(-90, -89)])
    case 7:
        lon = rng.pick([box.minLon, box.maxLon])
        lat = rng.uniform(-90, 90)
    default:
        lat = rng.uniform(-90, 90)
        lon = rng.uniform(-180, 180)
    }
    return (min(90, max(-90, lat)), wrapLongitude(lon) == -180 && lon == 180 ? 180 : min(180, max(-180, lon)))
}

/// Dense samples of the box: a grid including edges and corners, the points of the box nearest
/// to the query in latitude and longitude, the closest points of both meridian edges (and their
/// neighbouring Doubles), and random interior points.
private func samples(_ rng: inout SplitMix64, _ box: GeoBox, lat: Double, lon: Double) -> [(Double, Double)] {
    var out: [(Double, Double)] = []
    let g = 16
    for i in 0...g {
        let la = i == g ? box.maxLat : box.minLat + (box.maxLat - box.minLat) * Double(i) / Double(g)
        for j in 0...g {
            let lo = j == g ? box.maxLon : box.minLon + (box.maxLon - box.minLon) * Double(j) / Double(g)
            out.append((la, lo))
        }
    }
    let clampedLat = min(box.maxLat, max(box.minLat, lat)), clampedLon = min(box.maxLon, max(box.minLon, lon))
    out.append((clampedLat, clampedLon))
    for edgeLon in [box.minLon, box.maxLon, clampedLon] {
        out.append((clampedLat, edgeLon))
        // The nearest point of the meridian through edgeLon: tan φ* = tan φ / cos Δλ.
        let c = cos((edgeLon - lon) * Double.pi / 180)
        if c > 0 {
            let v = atan(tan(lat * Double.pi / 180) / c) * 180 / Double.pi
            for candidate in [v, v.nextUp, v.nextDown, v + 1e-9, v - 1e-9]
            where candidate >= box.minLat && candidate <= box.maxLat {
                out.append((candidate, edgeLon))
            }
        }
    }
    for edgeLat in [box.minLat, box.maxLat] { out.append((edgeLat, clampedLon)) }
    for _ in 0..<16 { out.append((rng.uniform(box.minLat, box.maxLat), rng.uniform(box.minLon, box.maxLon))) }
    return out
}

/// How far a computed bound may sit on the wrong side of a computed term through rounding alone.
///
/// Both sides are sums of products of sin² and cos of rounded radian arguments: a few ulps
/// relative, plus an absolute ~1e-16·√a from the argument rounding (cos near the poles, sin near
/// ±180° of longitude), plus ~1e-32 where sin(π) stands in for 0. Mathematically the bounds are
/// exact; the R-tree adds a margin of 1e-9·a + 1e-15 to its decisions, which exceeds this
/// tolerance for every a ≤ 1, so a bound within it never changes a radius answer.
private func roundingTolerance(_ a: Double) -> Double {
    1e-13 * a + 1e-15 * a.squareRoot() + 1e-30
}

@Suite("SphericalBounds")
struct SphericalBoundsTests {
    @Test("minHalfChord ≤ a ≤ maxHalfChord (up to rounding) for every sampled point of the box")
    func boundsHoldOnSamples() {
        let seed = testSeed(0x5B0_0001)
        var rng = SplitMix64(seed: seed)
        var withUpper = 0
        for k in 0..<3000 {
            let box = randomBox(&rng)
            let q = randomQuery(&rng, box)
            let cosLat = cos(q.lat * Haversine.radiansPerDegree)
            let lower = SphericalBounds.minHalfChord(lat: q.lat, lon: q.lon, cosLat: cosLat, box: box)
            let upper = SphericalBounds.maxHalfChord(lat: q.lat, lon: q.lon, cosLat: cosLat, box: box)
            if upper != nil { withUpper += 1 }
            var worstLow: (Double, Double, Double)? = nil, worstHigh: (Double, Double, Double)? = nil
            for (la, lo) in samples(&rng, box, lat: q.lat, lon: q.lon) {
                let a = term(q.lat, q.lon, la, lo)
                if lower > a + roundingTolerance(a) && (worstLow == nil || a < worstLow!.2) { worstLow = (la, lo, a) }
                if let u = upper, u < a - roundingTolerance(a) && (worstHigh == nil || a > worstHigh!.2) {
                    worstHigh = (la, lo, a)
                }
            }
            #expect(
                worstLow == nil,
                "seed \(seed) #\(k): q=(\(q.lat), \(q.lon)) \(box) minHalfChord \(lower) > a \(worstLow!.2) at (\(worstLow!.0), \(worstLow!.1))"
            )
            #expect(
                worstHigh == nil,
                "seed \(seed) #\(k): q=(\(q.lat), \(q.lon)) \(box) maxHalfChord \(upper ?? 0) < a \(worstHigh!.2) at (\(worstHigh!.0), \(worstHigh!.1))"
            )
            #expect(lower >= 0)
        }
        #expect(withUpper > 500, "seed \(seed): the upper bound was rarely available (\(withUpper))")
    }

    @Test("the bounds are tight: the lower bound is the nearest point's term, the upper a corner's")
    func boundsAreTight() {
        let seed = testSeed(0x5B0_0002)
        var rng = SplitMix64(seed: seed)
        for k in 0..<1500 {
            let box = randomBox(&rng)
            let q = randomQuery(&rng, box)
            let cosLat = cos(q.lat * Haversine.radiansPerDegree)
            let lower = SphericalBounds.minHalfChord(lat: q.lat, lon: q.lon, cosLat: cosLat, box: box)
            if box.contains(lat: q.lat, lon: q.lon) {
                #expect(lower == 0, "seed \(seed) #\(k): inside but lower bound \(lower)")
            }
            // The smallest sampled term is at least the true minimum; the bound should be close to it.
            let sampled = samples(&rng, box, lat: q.lat, lon: q.lon).map { term(q.lat, q.lon, $0.0, $0.1) }
            let smallest = sampled.min()!
            #expect(
                lower >= smallest * (1 - 1e-6) - 1e-300,
                "seed \(seed) #\(k): q=(\(q.lat), \(q.lon)) \(box) lower \(lower) far below the nearest sample \(smallest)"
            )
            if let upper = SphericalBounds.maxHalfChord(lat: q.lat, lon: q.lon, cosLat: cosLat, box: box) {
                let corners = [
                    (box.minLat, box.minLon), (box.minLat, box.maxLon), (box.maxLat, box.minLon),
                    (box.maxLat, box.maxLon)
                ]
                let largestCorner = corners.map { term(q.lat, q.lon, $0.0, $0.1) }.max()!
                #expect(
                    upper <= largestCorner * (1 + 1e-12) + 1e-300,
                    "seed \(seed) #\(k): q=(\(q.lat), \(q.lon)) \(box) upper \(upper) above every corner (\(largestCorner))"
                )
            }
        }
    }

    @Test("known cases")
    func knownCases() {
        let box = GeoBox(minLat: 10, minLon: 20, maxLat: 11, maxLon: 21)
        let rad = Haversine.radiansPerDegree
        func lower(_ lat: Double, _ lon: Double, _ b: GeoBox = box) -> Double {
            SphericalBounds.minHalfChord(lat: lat, lon: lon, cosLat: cos(lat * rad), box: b)
        }
        func upper(_ lat: Double, _ lon: Double, _ b: GeoBox = box) -> Double? {
            SphericalBounds.maxHalfChord(lat: lat, lon: lon, cosLat: cos(lat * rad), box: b)
        }
        #expect(lower(10.5, 20.5) == 0)
        #expect(lower(10, 20) == 0 && lower(11, 21) == 0)
        // Due south: the nearest point is straight north, on the box's south edge.
        #expect(lower(9, 20.5) == term(9, 20.5, 10, 20.5))
        #expect(lower(12, 20.5) == term(12, 20.5, 11, 20.5))
        // Across the antimeridian: a box at the east end and a point just west of −180.
        let east = GeoBox(minLat: -1, minLon: 179.9, maxLat: 1, maxLon: 180)
        let d = lower(0, -179.95, east)
        #expect(d > 0 && d <= term(0, -179.95, 0, 180) * (1 + 1e-12))
        #expect(Haversine.distance(halfChordSquared: d) < 5600)
        // Upper bound: too large boxes give nil; a small one gives the farthest corner.
        #expect(upper(0, 0, GeoBox(minLat: -10, minLon: -100, maxLat: 10, maxLon: 100)) == nil)
        #expect(upper(0, 0, GeoBox(minLat: -70, minLon: 0, maxLat: 0, maxLon: 1)) == nil)
        let u = upper(9, 20.5)!
        #expect(abs(u - max(term(9, 20.5, 11, 20), term(9, 20.5, 11, 21))) <= u * 1e-12)
    }
}
