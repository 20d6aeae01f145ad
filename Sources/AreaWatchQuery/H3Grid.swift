import AreaWatchCore
import Dispatch
import Glibc
import Synchronization

/// The SPEC §7.2 grid on the H3 cells of a resolution (SPEC §18).
///
/// Radius counts scatter the windowed incidents, grouped by their own cell: one search per
/// occupied cell finds every cell whose centre is within radius + the cell's circumradius of its
/// centre (every incident of the cell lies within the circumradius, so this holds every cell any
/// of them reaches), and each incident is then decided against each of those centres by the
/// radius test every other "within" uses. In-cell and per-year counts take every incident's own
/// cell. Both are merged in ascending index, the H3 cell order.
extension IncidentIndex {
    func h3Grid(resolution: Int, threads: Int) -> GridResult {
        let test = RadiusTest(radius: parameters.radius)
        let radiusCells = H3GridScatter.radiusCells(
            points: windowedPoints, resolution: resolution, test: test,
            threads: threads)
        // Every incident's own cell, in ascending index.
        var own = H3GridScatter.ownCells(lat: lat, lon: lon, resolution: resolution, threads: threads)
        var order = (0..<UInt32(own.count)).map { $0 }
        RadixSort.sort(keys: &own, values: &order, threads: threads)

        let system = GridSystem.h3(resolution: resolution)
        let thresholds = parameters.thresholds
        var cells: [GridCell] = [], entries: [(year: UInt16, count: UInt32)] = []
        var cellYears: [(year: UInt16, count: UInt32)] = []
        var r = 0, b = 0
        while r < radiusCells.count || b < own.count {
            // No H3 index reaches UInt64.max (its top bit is reserved, always 0).
            let id = min(b < own.count ? own[b] : .max, r < radiusCells.count ? radiusCells[r].prefix : .max)
            var nCurrent = 0, nPrevious = 0
            cellYears.removeAll(keepingCapacity: true)
            while b < own.count && own[b] == id {
                let i = Int(order[b])
                switch membership[i] {
                case WindowMembership.current.rawValue: nCurrent += 1
                case WindowMembership.previous.rawValue: nPrevious += 1
                default: break
                }
                let slot = UInt16(yearSlots[year[i]])
                if let k = cellYears.firstIndex(where: { $0.year == slot }) {
                    cellYears[k].count += 1
                } else {
                    cellYears.append((slot, 1))
                }
                b += 1
            }
            var rc = RadiusCell(prefix: id, current: 0, previous: 0, handled: 0)
            if r < radiusCells.count && radiusCells[r].prefix == id {
                rc = radiusCells[r]
                r += 1
            }
            guard rc.current + rc.previous > 0 || nCurrent + nPrevious > 0 else { continue }
            cellYears.sort { $0.year < $1.year }
            cells.append(
                GridCell(
                    id: GridCellID(raw: id), system: system, nCurrent: nCurrent, nPrevious: nPrevious,
                    rCurrent: Int(rc.current), rPrevious: Int(rc.previous), handled: Int(rc.handled),
                    safetyClass: thresholds.classify(Int(rc.current)),
                    yearStart: Int32(entries.count), yearCount: Int32(cellYears.count)))
            entries.append(contentsOf: cellYears)
        }
        return GridResult(
            system: system, parameters: parameters, cells: cells, years: yearSlots.years,
            yearEntries: entries)
    }
}

enum H3GridScatter {
    /// The H3 index of every location's cell, computed in chunks on `threads` cores.
    static func ownCells(lat: [Double], lon: [Double], resolution: Int, threads: Int) -> [UInt64] {
        let chunks = IncidentIndex.chunks(lat.count, threads)
        return Concurrency.map(chunks.count) { c in
            chunks[c].map { H3.cell(lat: lat[$0], lon: lon[$0], resolution: resolution).index }
        }.flatMap { $0 }
    }

    /// Radius counts of every cell some windowed incident reaches, in ascending index.
    static func radiusCells(
        points: GridScatter.Points, resolution: Int, test: RadiusTest,
        threads: Int
    ) -> [RadiusCell] {
        let n = points.lat.count
        guard n > 0, test.threshold >= 0 else { return [] }
        var keys = ownCells(lat: points.lat, lon: points.lon, resolution: resolution, threads: threads)
        var order = (0..<UInt32(n)).map { $0 }
        RadixSort.sort(keys: &keys, values: &order, threads: threads)
        var ranges: [Range<Int>] = []
        var start = 0
        for k in 1...n where k == n || keys[k] != keys[start] {
            ranges.append(start..<k)
            start = k
        }
        let groups = ranges
        let cosLat = points.lat.map { cos($0 * Haversine.radiansPerDegree) }
        var results = [[RadiusCell]](repeating: [], count: groups.count)
        let next = Atomic<Int>(0)
        let (sortedKeys, members) = (keys, order)
        results.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: max(1, min(threads, groups.count))) { _ in
                let geometry = H3Geometry()
                while true {
                    let g = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard g < groups.count else { break }
                    let cell = H3Cell(index: sortedKeys[groups[g].lowerBound])!
                    output[g] = scatterGroup(
                        cell, members: members[groups[g]], points: points, cosLat: cosLat,
                        test: test, geometry: geometry)
                }
            }
        }
        return merged(results)
    }

    /// The counts one cell's incidents add to every cell whose centre is within their radius.
    private static func scatterGroup(
        _ cell: H3Cell, members: ArraySlice<UInt32>, points: GridScatter.Points,
        cosLat: [Double], test: RadiusTest, geometry: H3Geometry
    ) -> [RadiusCell] {
        let centre = geometry.centre(of: cell)
        let circumradius = geometry.circumradius(of: cell)
        // The margin covers the haversine's rounding between the two distances added here.
        let reach = RadiusTest(radius: test.radius + circumradius + 1e-6 * (test.radius + circumradius) + 1e-3)
        let candidates = H3.cellsAndCentres(
            withCentreWithin: reach, ofLat: centre.lat, lon: centre.lon,
            resolution: cell.resolution, geometry: geometry)
        var out: [RadiusCell] = []
        for (candidate, c) in candidates {
            let cosC = cos(c.lat * Haversine.radiansPerDegree)
            var current: UInt32 = 0, previous: UInt32 = 0, handled: UInt32 = 0
            for m in members {
                let i = Int(m)
                let a = Haversine.halfChordSquared(
                    lat1: points.lat[i], lon1: points.lon[i], cosLat1: cosLat[i],
                    lat2: c.lat, lon2: c.lon, cosLat2: cosC)
                guard a <= test.threshold else { continue }
                let f = points.flags[i]
                current &+= UInt32(f.currentCount)
                previous &+= 1 &- UInt32(f.currentCount)
                handled &+= UInt32(f.handledCount)
            }
            if current + previous > 0 {
                out.append(RadiusCell(prefix: candidate.index, current: current, previous: previous, handled: handled))
            }
        }
        return out
    }

    /// The groups' counts summed per cell, in ascending index.
    private static func merged(_ results: [[RadiusCell]]) -> [RadiusCell] {
        var all = results.flatMap { $0 }
        all.sort { $0.prefix < $1.prefix }
        var cells: [RadiusCell] = []
        cells.reserveCapacity(all.count)
        for c in all {
            if let last = cells.last, last.prefix == c.prefix {
                cells[cells.count - 1].current += c.current
                cells[cells.count - 1].previous += c.previous
                cells[cells.count - 1].handled += c.handled
            } else {
                cells.append(c)
            }
        }
        return cells
    }
}
