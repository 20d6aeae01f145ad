import AreaWatchCore
import Dispatch
import Glibc

/// The alternative grid strategy: enumerate candidate cell centres (those inside the lat/lon
/// bounding box of some incident's circle) and count each with the R-tree. Kept to measure
/// against the scatter (docs/PERFORMANCE.md) and as an independent check in the tests.
extension IncidentIndex {
    func perCellRadiusCounts(precision: Int, test: RadiusTest, threads: Int) -> [RadiusCell] {
        let candidates = candidateCells(precision: precision)
        var counts = [RadiusCell](
            repeating: RadiusCell(prefix: 0, current: 0, previous: 0, handled: 0), count: candidates.count)
        let workers = max(1, threads)
        counts.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var k = worker
                while k < candidates.count {
                    let cell = GeohashCell(prefix: candidates[k], precision: precision)
                    let centre = cell.centre
                    let c = radiusCounts(lat: centre.lat, lon: centre.lon, test: test)
                    output[k] = RadiusCell(
                        prefix: candidates[k], current: UInt32(c.current),
                        previous: UInt32(c.previous), handled: UInt32(c.handled))
                    k += workers
                }
            }
        }
        return counts.filter { $0.current + $0.previous > 0 }
    }

    /// Cell prefixes whose centres lie in the bounding box of at least one windowed incident's
    /// circle, sorted and unique.
    private func candidateCells(precision: Int) -> [UInt64] {
        precondition(hasPointIndex, "the per-cell grid on an index built without point queries")
        let lattice = Lattice(precision: precision, radius: parameters.radius)
        var intervals: [(row: Int64, first: Int64, last: Int64)] = []
        for p in 0..<rtree.count {
            let lat = rtree.leafLat[p], lon = rtree.leafLon[p]
            let (lo, hi) = lattice.rows(lat: lat)
            // Longitude half-width of a spherical cap: asin(sin δ / cos φ), or the whole row.
            let delta = lattice.radiusDegrees * Haversine.radiansPerDegree
            let ratio = sin(delta) / cos(lat * Haversine.radiansPerDegree)
            let halfWidth = (delta < Double.pi / 2 && ratio < 1) ? asin(ratio) / Haversine.radiansPerDegree : 180
            var first = Int64(((lon - halfWidth + 180) / lattice.cellWidth - 0.5).rounded(.down)) - 1
            var last = Int64(((lon + halfWidth + 180) / lattice.cellWidth - 0.5).rounded(.up)) + 1
            if last - first + 1 >= lattice.columnCount {
                first = 0
                last = lattice.columnCount - 1
            }
            for row in lo...hi { intervals.append((row, first, last)) }
        }
        intervals.sort { ($0.row, $0.first) < ($1.row, $1.first) }
        var prefixes: [UInt64] = []
        var k = 0
        while k < intervals.count {
            let row = intervals[k].row
            var first = intervals[k].first, last = intervals[k].last
            k += 1
            func emit() {
                for x in first...last {
                    let column = ((x % lattice.columnCount) + lattice.columnCount) % lattice.columnCount
                    prefixes.append(
                        GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: precision).prefix)
                }
            }
            while k < intervals.count && intervals[k].row == row {
                if intervals[k].first <= last + 1 {
                    last = max(last, intervals[k].last)
                } else {
                    emit()
                    first = intervals[k].first
                    last = intervals[k].last
                }
                k += 1
            }
            emit()
        }
        prefixes.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(prefixes.count)
        for p in prefixes where unique.last != p { unique.append(p) }
        return unique
    }
}
