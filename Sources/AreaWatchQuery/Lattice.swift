import AreaWatchCore
import Foundation

/// The lattice of cell centres at one precision, and the runs of centres within a radius.
struct Lattice {
    let precision: Int
    let rowCount: Int64
    let columnCount: Int64
    let cellHeight: Double
    let cellWidth: Double
    /// Angular radius in degrees.
    let radiusDegrees: Double

    init(precision: Int, radius: Double) {
        self.precision = precision
        rowCount = Int64(1) << Int64(GeohashCell.latBitCount(precision))
        columnCount = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
        cellHeight = GeohashCell.latSpan(precision)
        cellWidth = GeohashCell.lonSpan(precision)
        radiusDegrees = radius / Haversine.earthRadius * 180 / Double.pi
    }

    /// Rows whose centres may be within the radius (one extra row each side; empty rows are
    /// discarded exactly by `run`).
    func rows(lat: Double) -> (Int64, Int64) {
        guard radiusDegrees < 180 else { return (0, rowCount - 1) }
        let lo = (((lat - radiusDegrees) + 90) / cellHeight - 0.5).rounded(.down) - 1
        let hi = (((lat + radiusDegrees) + 90) / cellHeight - 0.5).rounded(.up) + 1
        return (Int64(max(0, lo)), Int64(min(Double(rowCount - 1), hi)))
    }

    @inline(__always)
    func centreLongitude(_ column: Int64) -> Double {
        let wrapped = ((column % columnCount) + columnCount) % columnCount
        return GeohashCell.centreLongitude(column: wrapped, precision: precision)
    }

    /// The columns (unwrapped: may run below 0 or past the last column) whose centres in `row`
    /// are within the radius of (lat, lon); nil when none is.
    @inline(__always)
    func run(lat: Double, lon: Double, cosLat: Double, rowLat: Double, cosRowLat: Double, test: RadiusTest) -> (Int64, Int64)? {
        let rad = Haversine.radiansPerDegree
        let sinHalfDLat = sin((rowLat - lat) * rad / 2)
        let a0 = sinHalfDLat * sinHalfDLat
        let threshold = test.threshold
        // a = a0 + c·sin²(Δλ/2) never drops below a0: past the threshold, no centre of the row is in.
        guard a0 <= threshold else { return nil }
        let c = cosLat * cosRowLat
        // Exactly the test `RadiusTest.contains(lat, lon, rowLat, centre)` makes, with its
        // row-constant parts computed once.
        @inline(__always) func inside(_ column: Int64) -> Bool {
            let s = sin((centreLongitude(column) - lon) * rad / 2)
            return a0 + c * s * s <= threshold
        }
        let near = Int64(((lon + 180) / cellWidth).rounded(.down))
        let q = c > 0 ? (threshold - a0) / c : .infinity
        if q >= 0.98 {
            // The run nears half the globe (polar rows, huge radii): decide column by column
            // outward from the nearest centre.
            guard inside(near) || inside(near - 1) || inside(near + 1) else { return nil }
            var first = inside(near) ? near : (inside(near - 1) ? near - 1 : near + 1)
            var last = first
            while last - first + 1 < columnCount && inside(last + 1) { last += 1 }
            while last - first + 1 < columnCount && inside(first - 1) { first -= 1 }
            return (first, last)
        }
        // Half-width of the run in degrees of longitude, then the columns certainly in
        // (half-width − margin) and possibly in (+ margin); only the latter are tested.
        let halfWidth = 2 * asin(q.squareRoot()) / rad
        let margin = 1e-9 * (1 + halfWidth)
        let offset = lon + 180
        var last = Int64(((offset + halfWidth - margin) / cellWidth - 0.5).rounded(.down))
        let lastMaybe = Int64(((offset + halfWidth + margin) / cellWidth - 0.5).rounded(.down))
        var first = Int64(((offset - halfWidth + margin) / cellWidth - 0.5).rounded(.up))
        let firstMaybe = Int64(((offset - halfWidth - margin) / cellWidth - 0.5).rounded(.up))
        if last < first {
            // No centre is certainly in: at most the few columns around the point.
            var any: Int64?
            for x in firstMaybe...max(firstMaybe, lastMaybe) where inside(x) { any = x; break }
            guard let seed = any else { return nil }
            first = seed
            last = seed
            while last < lastMaybe && inside(last + 1) { last += 1 }
            return (first, last)
        }
        while last < lastMaybe && inside(last + 1) { last += 1 }
        while first > firstMaybe && inside(first - 1) { first -= 1 }
        return (first, last)
    }
}
