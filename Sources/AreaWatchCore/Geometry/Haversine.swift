import Glibc

/// Great-circle distance exactly as SPEC §7 states it.
///
/// Every "within the radius" decision in the engine goes through `distance` or through a test
/// proven equivalent to it (see `RadiusTest`), so the point query, the grid, the R-tree and a
/// brute-force scan agree to the last bit.
public enum Haversine {
    /// Mean Earth radius (IUGG), metres.
    public static let earthRadius = 6_371_008.8
    public static let radiansPerDegree = Double.pi / 180

    /// Distance in metres between two WGS84 points given in degrees.
    @inline(__always)
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let a = halfChordSquared(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        return distance(halfChordSquared: a)
    }

    /// The haversine term `a = sin²(Δφ/2) + cos φ1 · cos φ2 · sin²(Δλ/2)`.
    @inline(__always)
    public static func halfChordSquared(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let sinHalfDLat = sin((lat2 - lat1) * radiansPerDegree / 2)
        let sinHalfDLon = sin((lon2 - lon1) * radiansPerDegree / 2)
        return sinHalfDLat * sinHalfDLat
            + cos(lat1 * radiansPerDegree) * cos(lat2 * radiansPerDegree) * sinHalfDLon * sinHalfDLon
    }

    /// The same term with cos φ1 and cos φ2 given (each `cos(lat * radiansPerDegree)`), evaluated
    /// in the same order, so it equals `halfChordSquared(lat1:lon1:lat2:lon2:)` bit for bit.
    @inline(__always)
    public static func halfChordSquared(
        lat1: Double, lon1: Double, cosLat1: Double, lat2: Double, lon2: Double,
        cosLat2: Double
    ) -> Double {
        let sinHalfDLat = sin((lat2 - lat1) * radiansPerDegree / 2)
        let sinHalfDLon = sin((lon2 - lon1) * radiansPerDegree / 2)
        return sinHalfDLat * sinHalfDLat + cosLat1 * cosLat2 * sinHalfDLon * sinHalfDLon
    }

    @inline(__always)
    public static func distance(halfChordSquared a: Double) -> Double {
        2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}

/// "Is this point within `radius` metres?" as a comparison of the haversine term.
///
/// `Haversine.distance(halfChordSquared:)` is monotone in `a`, so `distance ≤ radius` holds
/// exactly when `a ≤ threshold`, where `threshold` is the largest Double for which the computed
/// distance is still within the radius. Finding it once by bisection over the Doubles lets the
/// hot loops skip `asin` and `sqrt` without changing a single decision.
public struct RadiusTest: Sendable {
    public let radius: Double
    /// The largest `a` whose computed distance is ≤ radius (−1 when none is, i.e. radius < 0).
    public let threshold: Double

    public init(radius: Double) {
        self.radius = radius
        guard radius >= 0 else {
            threshold = -1
            return
        }
        if Haversine.distance(halfChordSquared: 1) <= radius {
            threshold = .infinity
            return
        }
        // Invariant: distance(lo) ≤ radius < distance(hi). Bisect on the bit patterns, which
        // order non-negative Doubles like their values.
        var lo: UInt64 = 0, hi = Double(1).bitPattern
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if Haversine.distance(halfChordSquared: Double(bitPattern: mid)) <= radius { lo = mid } else { hi = mid }
        }
        threshold = Double(bitPattern: lo)
    }

    @inline(__always)
    public func contains(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Bool {
        Haversine.halfChordSquared(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) <= threshold
    }
}

/// A location as a point on the unit sphere. For two of them a quarter of the squared chord is
/// the haversine term `a` in exact arithmetic, at no trigonometry per pair: a loop that tests
/// many pairs decides by the chord, and by the haversine only where the two can disagree.
public struct UnitVector: Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inline(__always)
    public init(lat: Double, lon: Double) {
        let phi = lat * Haversine.radiansPerDegree, lambda = lon * Haversine.radiansPerDegree
        let c = cos(phi)
        x = c * cos(lambda)
        y = c * sin(lambda)
        z = sin(phi)
    }

    /// A quarter of the squared chord to `other`: the haversine term up to rounding.
    @inline(__always)
    public func quarterChordSquared(to other: UnitVector) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        return (dx * dx + dy * dy + dz * dz) * 0.25
    }
}

extension RadiusTest {
    /// Where the chord decides alone: a quarter squared chord at most `certainlyWithin` has a
    /// haversine term within `threshold`, one above `certainlyBeyond` has not; in between (a
    /// millionth of the threshold either side) only the haversine decides.
    ///
    /// Invariant: both computations are within 5e-16 / √a of the true term, relatively (the
    /// chord's components carry ~1 ulp of 1 each), which is under the band's 1e-6 for any
    /// distance over a centimetre; below that the band's absolute 1e-20 is 60,000 times the
    /// error. So every decision equals the haversine's, bit for bit.
    @inline(__always)
    public var chordBand: (certainlyWithin: Double, certainlyBeyond: Double) {
        guard threshold >= 0 else { return (-1, -1) }
        guard threshold.isFinite else { return (.infinity, .infinity) }
        let margin = threshold * 1e-6 + 1e-20
        return (threshold - margin, threshold + margin)
    }
}
