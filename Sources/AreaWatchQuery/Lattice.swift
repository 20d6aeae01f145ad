import AreaWatchCore
import Foundation

/// The lattice of cell centres at one precision, and the runs of centres within a radius.
struct Lattice {
    let precision: Int
    let rowCount: Int64
    let columnCount: Int64
    let cellHeight: Double
    /// 1 / cellHeight, rounded (`rows` keeps a row to spare each side).
    let rowsPerDegree: Double
    let cellWidth: Double
    /// 1 / cellWidth, rounded: a run's ends multiply by it (its error, ~1e-16 of a column index, is
    /// far inside the margin `run` keeps from every end it is certain of).
    let columnsPerDegree: Double
    /// Angular radius in degrees.
    let radiusDegrees: Double

    init(precision: Int, radius: Double) {
        self.precision = precision
        rowCount = Int64(1) << Int64(GeohashCell.latBitCount(precision))
        columnCount = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
        cellHeight = GeohashCell.latSpan(precision)
        rowsPerDegree = 1 / cellHeight
        cellWidth = GeohashCell.lonSpan(precision)
        columnsPerDegree = 1 / cellWidth
        radiusDegrees = radius / Haversine.earthRadius * 180 / Double.pi
    }

    /// Rows whose centres may be within the radius (one extra row each side; empty rows are
    /// discarded exactly by `run`).
    func rows(lat: Double) -> (Int64, Int64) {
        guard radiusDegrees < 180 else { return (0, rowCount - 1) }
        let lo = Lattice.floorIndex(((lat - radiusDegrees) + 90) * rowsPerDegree - 0.5) - 1
        let hi = Lattice.ceilIndex(((lat + radiusDegrees) + 90) * rowsPerDegree - 0.5) + 1
        return (max(0, lo), min(rowCount - 1, hi))
    }

    @inline(__always)
    func centreLongitude(_ column: Int64) -> Double {
        let wrapped = ((column % columnCount) + columnCount) % columnCount
        return GeohashCell.centreLongitude(column: wrapped, precision: precision)
    }

    /// The columns (unwrapped: may run below 0 or past the last column) whose centres in `row`
    /// are within the radius of the incident at (`point`, lon); nil when none is.
    @inline(__always)
    func run(point: LatitudeTerms, lon: Double, row: LatitudeTerms, test: RadiusTest) -> (Int64, Int64)? {
        let rad = Haversine.radiansPerDegree
        let threshold = test.threshold
        // a0 = sin²(Δφ/2), the part of the haversine term that is the same for the whole row. The
        // angle-difference identity gives it from sines and cosines computed once per row and per
        // incident, off from the formula `RadiusTest` evaluates by ~1e-16 × |sin(Δφ/2)|. Where a
        // decision could turn on that (`slack` from the threshold, a run so narrow its width is
        // sensitive to it, a column tested one by one), the exact term is used instead: the grid
        // stays equal to the brute force bit for bit, with a sine per row only in those cases.
        let estimateSin = row.sinHalf * point.cosHalf - row.cosHalf * point.sinHalf
        var a0 = estimateSin * estimateSin
        var exact = false
        @inline(__always) func makeExact() {
            guard !exact else { return }
            let s = sin((row.degrees - point.degrees) * rad / 2)
            a0 = s * s
            exact = true
        }
        // The estimate's error is below 2·|sin|·δ + δ² with δ ~1e-16 (a few ulps of ½): 100× that.
        let slack = 1e-13 * abs(estimateSin) + 1e-30
        // a = a0 + c·sin²(Δλ/2) never drops below a0: past the threshold, no centre of the row is in.
        if a0 > threshold + slack { return nil }
        if a0 >= threshold - slack { makeExact() }
        guard a0 <= threshold else { return nil }
        let c = point.cos * row.cos
        // Exactly the test `RadiusTest.contains(lat, lon, rowLat, centre)` makes, with its
        // row-constant parts computed once.
        @inline(__always) func inside(_ column: Int64) -> Bool {
            makeExact()
            let s = sin((centreLongitude(column) - lon) * rad / 2)
            return a0 + c * s * s <= threshold
        }
        let near = Lattice.floorIndex((lon + 180) * columnsPerDegree)
        // By the two latitudes' reciprocal cosines, not a division per run: q is off by a few ulps,
        // far inside the margin below.
        var q = c > 0 ? (threshold - a0) * (point.inverseCos * row.inverseCos) : .infinity
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
        // The half-width's error from the estimate, ~(1/rad)·δa0 / (c·√(q(1−q))) degrees, must stay
        // below a tenth of the margin (1e-9) added next: a run where it might not (q small against
        // the estimate's error) takes the exact term.
        if !exact && q * (1 - q) * c * c < 1e-6 * a0 + 1e-36 {
            makeExact()
            guard a0 <= threshold else { return nil } // not expected: the slack above keeps it in
            q = (threshold - a0) / c
        }
        let columns = bounds(lon: lon, q: q)
        let firstMaybe = columns.firstMaybe, lastMaybe = columns.lastMaybe
        var first = columns.first, last = columns.last
        if last < first {
            // No centre is certainly in: at most the few columns around the point.
            var any: Int64?
            for x in firstMaybe...max(firstMaybe, lastMaybe) where inside(x) {
                any = x
                break
            }
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

    /// The columns of a run with q = sin²(half-width / 2) around `lon`: those certainly in
    /// (half-width − margin) and those possibly in (+ margin); only the latter are tested.
    /// Two divisions and four calls to `floor` and `ceil` were a third of `run`'s time.
    @inline(__always)
    private func bounds(lon: Double, q: Double) -> (
        first: Int64, firstMaybe: Int64, last: Int64, lastMaybe: Int64
    ) {
        // Half-width of the run in degrees of longitude.
        let halfWidth = 2 * Lattice.arcsine(q.squareRoot()) * (1 / Haversine.radiansPerDegree)
        let margin = 1e-9 * (1 + halfWidth)
        let offset = lon + 180
        let last = Lattice.floorIndex((offset + halfWidth - margin) * columnsPerDegree - 0.5)
        let lastMaybe = Lattice.floorIndex((offset + halfWidth + margin) * columnsPerDegree - 0.5)
        let first = Lattice.ceilIndex((offset - halfWidth + margin) * columnsPerDegree - 0.5)
        let firstMaybe = Lattice.ceilIndex((offset - halfWidth - margin) * columnsPerDegree - 0.5)
        return (first, firstMaybe, last, lastMaybe)
    }

    /// ⌊x⌋ and ⌈x⌉ for the finite column indices of a run, inline (`rounded` calls the C library).
    @inline(__always)
    static func floorIndex(_ x: Double) -> Int64 {
        guard abs(x) < 0x1p62 else { return Int64(x.rounded(.down)) }
        let t = Int64(x)
        return Double(t) > x ? t - 1 : t
    }

    @inline(__always)
    static func ceilIndex(_ x: Double) -> Int64 {
        guard abs(x) < 0x1p62 else { return Int64(x.rounded(.up)) }
        let t = Int64(x)
        return Double(t) < x ? t + 1 : t
    }

    /// asin(x) for 0 ≤ x ≤ 1: below 0.01 (every city-scale radius) by its series to x⁵, whose
    /// relative error 5x⁶/112 < 5e-14 is far inside the margin the caller adds; else `asin`.
    @inline(__always)
    static func arcsine(_ x: Double) -> Double {
        guard x < 0.01 else { return asin(x) }
        let x2 = x * x
        return x * (1 + x2 * (1.0 / 6 + x2 * (3.0 / 40)))
    }
}

/// A latitude's trigonometry, computed once for every row (or incident) that uses it.
struct LatitudeTerms {
    let degrees: Double
    let cos: Double
    let inverseCos: Double
    /// sin and cos of half the latitude in radians (for sin(Δφ/2) by the angle-difference identity).
    let sinHalf: Double
    let cosHalf: Double

    init(_ degrees: Double) {
        let radians = degrees * Haversine.radiansPerDegree
        self.degrees = degrees
        cos = Foundation.cos(radians)
        inverseCos = 1 / cos
        sinHalf = sin(radians / 2)
        cosHalf = Foundation.cos(radians / 2)
    }
}
