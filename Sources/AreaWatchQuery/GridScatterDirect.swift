import AreaWatchCore
import Foundation

extension GridScatter {
    /// The usual band (one city, no antimeridian, away from the poles): each run goes straight
    /// into the difference arrays of one dense window, so no run is stored.
    ///
    /// Measured need (docs/PERFORMANCE.md): at 5M incidents a band held ~4M runs (128 MB),
    /// written and read back once; the window is a few hundred kB and stays in cache.
    ///
    /// The window is bounded from the members' extent before any run is computed; a run outside
    /// it (not expected: the bound is generous) abandons the band to the general path, nil.
    static func scatterBandDirect(
        _ band: Band, points: Points, lattice: Lattice, test: RadiusTest,
        rowLow: [Int64], rowHigh: [Int64], rows: [LatitudeTerms],
        scratch: inout BandScratch
    ) -> [RadiusCell]? {
        guard let (firstColumn, lastColumn) = window(of: band, points: points, lattice: lattice) else { return nil }
        let width = Int(lastColumn - firstColumn + 2)
        guard width * Int(bandRows) <= maxDenseWindowCells else { return nil }
        var cells: [RadiusCell] = []
        let complete = scratch.withZeroedWindow(width: width, rows: Int(bandRows)) {
            window, current, previous, handled in
            let inside = forEachRun(
                of: band, points: points, lattice: lattice, test: test, rowLow: rowLow, rowHigh: rowHigh,
                rows: rows
            ) { k, first, last, flags in
                guard first >= firstColumn && last <= lastColumn else { return false }
                window.add(
                    row: k, from: Int(first - firstColumn), through: Int(last - firstColumn), flags: flags,
                    current: &current, previous: &previous, handled: &handled)
                return true
            }
            guard inside else { return false }
            window.sweep(
                current: current.span, previous: previous.span, handled: handled.span, firstRow: band.firstRow,
                firstColumn: firstColumn, lattice: lattice, into: &cells)
            return true
        }
        return complete ? cells : nil
    }

    /// Columns that can hold the runs of the band's members: their longitudes widened by the
    /// circle's largest longitude half-width at their latitudes, plus slack; nil when that reaches
    /// a pole or wraps around the antimeridian.
    private static func window(of band: Band, points: Points, lattice: Lattice) -> (Int64, Int64)? {
        var minLon = Double.infinity, maxLon = -Double.infinity, maxAbsLat = 0.0
        for member in band.members {
            let i = Int(member)
            minLon = min(minLon, points.lon[i])
            maxLon = max(maxLon, points.lon[i])
            maxAbsLat = max(maxAbsLat, abs(points.lat[i]))
        }
        guard minLon <= maxLon, maxAbsLat + lattice.radiusDegrees < 80 else { return nil }
        let rad = Haversine.radiansPerDegree
        let ratio = sin(lattice.radiusDegrees * rad) / cos(maxAbsLat * rad)
        guard ratio < 0.5 else { return nil }
        let halfWidth = asin(ratio) / rad * 1.01 + 2 * lattice.cellWidth
        let first = Int64(((minLon + 180 - halfWidth) / lattice.cellWidth).rounded(.down)) - 2
        let last = Int64(((maxLon + 180 + halfWidth) / lattice.cellWidth).rounded(.up)) + 2
        guard first >= 0 && last < lattice.columnCount else { return nil }
        return (first, last)
    }
}
