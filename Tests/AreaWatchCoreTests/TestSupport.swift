import AreaWatchCore
import Glibc

/// Distributions the property tests draw from, on Core's seeded generator: every property test
/// draws the same data on every machine and every run. Failure messages print the seed; set the
/// environment variable `AREAWATCH_TEST_SEED` to rerun the property tests with another seed.
extension SplitMix64 {
    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// Uniform in the closed integer range (modulo bias is irrelevant here).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    mutating func bool(_ probability: Double = 0.5) -> Bool { unit() < probability }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = 1 - unit() // (0, 1]
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// The seed of a property test: its fixed default, unless `AREAWATCH_TEST_SEED` overrides it
/// (the override is mixed with the default so different tests still draw different data).
func testSeed(_ fallback: UInt64) -> UInt64 {
    guard let raw = getenv("AREAWATCH_TEST_SEED"), let value = UInt64(String(cString: raw)) else {
        return fallback
    }
    return value ^ fallback
}

/// Longitude wrapped into [−180, 180).
func wrapLongitude(_ lon: Double) -> Double {
    var l = lon.truncatingRemainder(dividingBy: 360)
    if l >= 180 { l -= 360 }
    if l < -180 { l += 360 }
    return l
}

/// The point `distance` metres from (lat, lon) along an initial `bearing` (degrees) on the
/// haversine sphere, longitude wrapped into [−180, 180).
func destination(lat: Double, lon: Double, bearing: Double, distance: Double) -> (lat: Double, lon: Double) {
    let rad = Double.pi / 180
    let delta = distance / 6_371_008.8
    let phi1 = lat * rad, lambda1 = lon * rad, theta = bearing * rad
    let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
    let phi2 = asin(min(1, max(-1, sinPhi2)))
    let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sinPhi2)
    return (phi2 / rad, wrapLongitude(lambda2 / rad))
}
