import AreaWatchCore
import Glibc
import Testing

@testable import AreaWatchCore

@Suite("Haversine and RadiusTest")
struct HaversineTests {
    @Test("known distances")
    func knownDistances() {
        // One degree of the equator: R · π / 180.
        let oneDegree = Haversine.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 1)
        #expect(abs(oneDegree - 111_195.080_233_532_9) < 1e-6)
        // Big Ben → Statue of Liberty (5574.840 km with R = 6371 km; R here is 6371.0088 km).
        let d = Haversine.distance(lat1: 51.5007, lon1: -0.1246, lat2: 40.6892, lon2: -74.0445)
        #expect(abs(d - 5_574_848.157_146_156) < 1e-3)
        // Antipodes and poles: half the circumference.
        #expect(abs(Haversine.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 180) - Double.pi * 6_371_008.8) < 1e-6)
        #expect(abs(Haversine.distance(lat1: 90, lon1: 0, lat2: -90, lon2: 0) - Double.pi * 6_371_008.8) < 1e-6)
        #expect(Haversine.distance(lat1: 12.5, lon1: 7.25, lat2: 12.5, lon2: 7.25) == 0)
        // Symmetric, and periodic in longitude.
        #expect(
            Haversine.distance(lat1: 10, lon1: 179.5, lat2: 10, lon2: -179.5)
                == Haversine.distance(lat1: 10, lon1: -179.5, lat2: 10, lon2: 179.5))
        #expect(
            abs(
                Haversine.distance(lat1: 10, lon1: 179.5, lat2: 10, lon2: -179.5)
                    - Haversine.distance(lat1: 10, lon1: -0.5, lat2: 10, lon2: 0.5)) < 1e-6)
        #expect(Haversine.earthRadius == 6_371_008.8)
    }

    @Test(
        "the threshold is the largest haversine term within the radius",
        arguments: [
            0, 1e-9, 1e-3, 0.5, 1, 100, 999.999_999, 1000, 1000.000_003_8, 1609.344, 5000, 50_000,
            1_000_000, 20_015_114, 20_015_114.442_035_9, 25_000_000
        ])
    func thresholdIsExact(radius: Double) {
        let test = RadiusTest(radius: radius)
        #expect(test.radius == radius)
        if test.threshold.isInfinite {
            #expect(Haversine.distance(halfChordSquared: 1) <= radius)
            return
        }
        #expect(test.threshold >= 0)
        #expect(Haversine.distance(halfChordSquared: test.threshold) <= radius)
        #expect(Haversine.distance(halfChordSquared: test.threshold.nextUp) > radius)
    }

    @Test("a negative radius contains nothing; a huge one everything")
    func degenerateRadii() {
        let none = RadiusTest(radius: -1)
        #expect(!none.contains(lat1: 1, lon1: 1, lat2: 1, lon2: 1))
        let all = RadiusTest(radius: 30_000_000)
        #expect(all.contains(lat1: 0, lon1: 0, lat2: 0, lon2: 180))
        #expect(all.contains(lat1: 90, lon1: 0, lat2: -90, lon2: 0))
        let zero = RadiusTest(radius: 0)
        #expect(zero.contains(lat1: 51.1, lon1: -1.2, lat2: 51.1, lon2: -1.2))
        #expect(!zero.contains(lat1: 51.1, lon1: -1.2, lat2: 51.1, lon2: (-1.2).nextUp))
    }

    @Test("RadiusTest.contains ≡ distance ≤ radius on random pairs")
    func randomPairs() {
        let seed = testSeed(0x4A7E_0001)
        var rng = SplitMix64(seed: seed)
        let radii: [Double] = [0, 1, 10, 250, 1000, 1609.344, 5000, 50_000]
        let tests = radii.map { RadiusTest(radius: $0) }
        for _ in 0..<20_000 {
            let k = rng.int(0...(radii.count - 1))
            let lat1 = rng.uniform(-90, 90), lon1 = rng.uniform(-180, 180)
            let dest = destination(
                lat: lat1, lon: lon1, bearing: rng.uniform(0, 360),
                distance: radii[k] * rng.uniform(0.9, 1.1))
            let d = Haversine.distance(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon)
            #expect(
                tests[k].contains(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon) == (d <= radii[k]),
                "seed \(seed): (\(lat1), \(lon1)) → (\(dest.lat), \(dest.lon)) r \(radii[k]) d \(d)")
        }
    }

    /// Bisects the parameter t of the straight (in degrees) path from the centre to a point
    /// beyond the radius until the two ends are adjacent Doubles, then checks every nearby
    /// coordinate pair: computed distances within nanometres of the radius, on both sides.
    @Test("RadiusTest.contains ≡ distance ≤ radius right at the boundary")
    func boundaryPairs() {
        let seed = testSeed(0x4A7E_0002)
        var rng = SplitMix64(seed: seed)
        var onBoundary = 0
        var checked = 0
        for i in 0..<600 {
            let radius: Double =
                i % 3 == 0 ? 1000 : rng.pick([1, 37.5, 1000, 1000.000_003_8, 2500, 50_000, rng.uniform(0, 50_000)])
            let test = RadiusTest(radius: radius)
            var lat1 = rng.uniform(-89, 89), lon1 = rng.uniform(-180, 180)
            if i % 10 == 0 { lat1 = rng.uniform(-89.999, -89.9) * (rng.bool() ? 1 : -1) }
            if i % 10 == 1 { lon1 = rng.bool() ? 179.999 : -179.999 }
            let far = destination(lat: lat1, lon: lon1, bearing: rng.uniform(0, 360), distance: radius * 1.5 + 1)
            var dLon = far.lon - lon1
            if dLon > 180 { dLon -= 360 }
            if dLon < -180 { dLon += 360 }
            let dLat = far.lat - lat1
            func point(_ t: Double) -> (Double, Double) { (lat1 + t * dLat, lon1 + t * dLon) }
            func dist(_ p: (Double, Double)) -> Double {
                Haversine.distance(lat1: lat1, lon1: lon1, lat2: p.0, lon2: p.1)
            }
            guard dist(point(1)) > radius else { continue }
            var lo = 0.0, hi = 1.0
            for _ in 0..<80 {
                let mid = (lo + hi) / 2
                if mid == lo || mid == hi { break }
                if dist(point(mid)) <= radius { lo = mid } else { hi = mid }
            }
            for base in [point(lo), point(hi)] {
                var lat = base.0
                for _ in 0..<3 { lat = lat.nextDown }
                for _ in 0..<7 {
                    var lon = base.1
                    for _ in 0..<3 { lon = lon.nextDown }
                    for _ in 0..<7 {
                        let d = Haversine.distance(lat1: lat1, lon1: lon1, lat2: lat, lon2: lon)
                        if d == radius { onBoundary += 1 }
                        checked += 1
                        #expect(
                            test.contains(lat1: lat1, lon1: lon1, lat2: lat, lon2: lon) == (d <= radius),
                            "seed \(seed): (\(lat1), \(lon1)) → (\(lat), \(lon)) r \(radius) d \(d)")
                        lon = lon.nextUp
                    }
                    lat = lat.nextUp
                }
            }
        }
        #expect(checked > 50_000, "seed \(seed): only \(checked) pairs, \(onBoundary) exactly on the radius")
    }

    @Test("a pair exactly at the radius is inside; with the next smaller radius it is outside")
    func radiusEqualToDistance() {
        let seed = testSeed(0x4A7E_0003)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1500 {
            let lat1 = rng.uniform(-90, 90), lon1 = rng.uniform(-180, 180)
            let dest = destination(
                lat: lat1, lon: lon1, bearing: rng.uniform(0, 360),
                distance: rng.pick([1e-6, 1, 100, 1000, 50_000, rng.uniform(0, 60_000)]))
            let d = Haversine.distance(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon)
            #expect(
                RadiusTest(radius: d).contains(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon),
                "seed \(seed): (\(lat1), \(lon1)) → (\(dest.lat), \(dest.lon)) r = d = \(d)")
            #expect(
                !RadiusTest(radius: d.nextDown).contains(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon),
                "seed \(seed): (\(lat1), \(lon1)) → (\(dest.lat), \(dest.lon)) r = \(d.nextDown) < d")
        }
    }

    @Test("the term with precomputed cosines equals the term bit for bit on random pairs")
    func precomputedCosines() {
        var rng = SplitMix64(seed: 0xC05)
        for _ in 0..<100_000 {
            let lat1 = rng.uniform(-89, 89), lon1 = rng.uniform(-180, 180)
            let lat2 = lat1 + rng.uniform(-0.05, 0.05), lon2 = lon1 + rng.uniform(-0.05, 0.05)
            let plain = Haversine.halfChordSquared(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            let given = Haversine.halfChordSquared(
                lat1: lat1, lon1: lon1, cosLat1: cos(lat1 * Haversine.radiansPerDegree),
                lat2: lat2, lon2: lon2, cosLat2: cos(lat2 * Haversine.radiansPerDegree))
            #expect(plain.bitPattern == given.bitPattern, "(\(lat1), \(lon1)) → (\(lat2), \(lon2))")
        }
    }

    /// The chord decides alone only outside its band, and its decisions are the haversine's: on
    /// pairs at random distances from a millimetre to 60 km, and on pairs put exactly at the
    /// radius (where the band must hand over to the haversine), at radii from 1 cm to 50 km.
    @Test("UnitVector's chord band decides every pair as RadiusTest does", arguments: [3, 17, 2024])
    func chordBand(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var handedOver = 0
        for _ in 0..<20_000 {
            let lat1 = rng.uniform(-90, 90), lon1 = rng.uniform(-180, 180)
            let radius = rng.pick([0.01, 1, 100, 1000, 50_000, rng.uniform(0, 60_000)])
            let atRadius = rng.uniform(0, 1) < 0.5
            let distance = atRadius ? radius : rng.uniform(0, 2) * radius
            let dest = destination(lat: lat1, lon: lon1, bearing: rng.uniform(0, 360), distance: distance)
            let test = RadiusTest(
                radius: atRadius ? Haversine.distance(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon) : radius)
            let q = UnitVector(lat: lat1, lon: lon1).quarterChordSquared(to: UnitVector(lat: dest.lat, lon: dest.lon))
            let exact = test.contains(lat1: lat1, lon1: lon1, lat2: dest.lat, lon2: dest.lon)
            let band = test.chordBand
            if q <= band.certainlyWithin {
                #expect(exact, "seed \(seed): (\(lat1), \(lon1)) → (\(dest.lat), \(dest.lon)), r \(test.radius)")
            } else if q > band.certainlyBeyond {
                #expect(!exact, "seed \(seed): (\(lat1), \(lon1)) → (\(dest.lat), \(dest.lon)), r \(test.radius)")
            } else {
                handedOver += 1
            }
        }
        // Pairs exactly at the radius fall in the band: it is there, and it is narrow.
        #expect(handedOver > 5_000 && handedOver < 12_000, "\(handedOver) of 20,000 pairs handed to the haversine")
    }

    @Test("the chord band of an empty, a zero and an everything radius")
    func chordBandEdges() {
        let here = UnitVector(lat: 53.7, lon: -1.86)
        #expect(here.quarterChordSquared(to: here) > RadiusTest(radius: -1).chordBand.certainlyBeyond)
        let zero = RadiusTest(radius: 0).chordBand
        #expect(zero.certainlyWithin < 0 && zero.certainlyBeyond >= 0, "the same point goes to the haversine")
        let all = RadiusTest(radius: 3e7).chordBand
        #expect(UnitVector(lat: -53.7, lon: 178.14).quarterChordSquared(to: here) <= all.certainlyWithin)
    }
}
