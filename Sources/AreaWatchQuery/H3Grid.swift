import AreaWatchCore
import Dispatch
import Glibc
import Synchronization

/// The SPEC §7.2 grid on the H3 cells of a resolution (SPEC §18).
///
/// Radius counts scatter the windowed incidents in groups: those whose cells share an ancestor
/// (`H3GridScatter.groupResolution`). One search per group finds every cell whose centre is
/// within radius + d of the ancestor's centre, d being the farthest of the group's incidents from
/// it (so it holds every cell any of them reaches), and each incident is then decided against
/// each of those centres by the radius test every other "within" uses. In-cell and per-year
/// counts take every incident's own cell. Both are merged in ascending index, the H3 cell order.
extension IncidentIndex {
    func h3Grid(resolution: Int, threads: Int, ownCells: ColumnCells? = nil) -> GridResult {
        let test = RadiusTest(radius: parameters.radius)
        // Every incident's own cell, once (or as the caller found them): the windowed points' are
        // taken from it.
        var own =
            ownCells.map { cells in sourceIndex.map { cells.raw[Int($0)] } }
            ?? H3GridScatter.ownCells(lat: lat, lon: lon, resolution: resolution, threads: threads)
        assert(!own.contains(0), "an incident of the index without its cell")
        let radiusCells = H3GridScatter.radiusCells(
            points: windowedPoints, cells: windowedIncidents.map { own[Int($0)] }, resolution: resolution,
            test: test, threads: threads)
        // In ascending index.
        var order = (0..<UInt32(own.count)).map { $0 }
        RadixSort.sort(keys: &own, values: &order, threads: threads)

        let system = GridSystem.h3(resolution: resolution)
        let thresholds = parameters.thresholds
        var cells: [GridCell] = [], entries: [(year: UInt16, count: UInt32)] = []
        var tally = CellTally()
        var r = 0, b = 0
        while r < radiusCells.count || b < own.count {
            // No H3 index reaches UInt64.max (its top bit is reserved, always 0).
            let id = min(b < own.count ? own[b] : .max, r < radiusCells.count ? radiusCells[r].prefix : .max)
            tally.reset()
            while b < own.count && own[b] == id {
                let i = Int(order[b])
                tally.add(membership: membership[i], yearSlot: UInt16(yearSlots[year[i]]))
                b += 1
            }
            var rc = RadiusCell(prefix: id, current: 0, previous: 0, handled: 0)
            if r < radiusCells.count && radiusCells[r].prefix == id {
                rc = radiusCells[r]
                r += 1
            }
            tally.emit(rc, system: system, thresholds: thresholds, cells: &cells, entries: &entries)
        }
        return GridResult(
            system: system, parameters: parameters, cells: cells, years: yearSlots.years,
            yearEntries: entries)
    }
}

extension IncidentIndex {
    /// The index of the incident each windowed point is: the R-tree's leaves name theirs; without
    /// the tree the windowed points are the current and previous incidents in index order.
    var windowedIncidents: [UInt32] {
        if hasPointIndex { return leafBase }
        let current = WindowMembership.current.rawValue, previous = WindowMembership.previous.rawValue
        var out: [UInt32] = []
        out.reserveCapacity(windowedPoints.lat.count)
        for k in membership.indices where membership[k] == current || membership[k] == previous {
            out.append(UInt32(k))
        }
        return out
    }
}

enum H3GridScatter {
    /// The resolution whose cells group the incidents of a search: the coarsest at most
    /// `resolution` whose average edge is at most half the radius. A coarser group shares one
    /// search among more incidents and widens it by its size; at half the radius the searches
    /// stay about as wide as one cell's while there are several times fewer of them.
    static func groupResolution(_ resolution: Int, radius: Double) -> Int {
        var g = resolution
        while g > 0 && H3.averageEdgeLength(resolution: g - 1) <= radius / 2 { g -= 1 }
        return g
    }

    /// The H3 index of every location's cell, computed in chunks on `threads` cores.
    static func ownCells(lat: [Double], lon: [Double], resolution: Int, threads: Int) -> [UInt64] {
        let chunks = IncidentIndex.chunks(lat.count, threads)
        return Concurrency.map(chunks.count) { c in
            chunks[c].map { H3.cell(lat: lat[$0], lon: lon[$0], resolution: resolution).index }
        }.flatMap { $0 }
    }

    /// Radius counts of every cell some windowed incident reaches, in ascending index;
    /// `cells[p]` is point p's own cell at `resolution`.
    static func radiusCells(
        points: GridScatter.Points, cells: [UInt64], resolution: Int, test: RadiusTest,
        threads: Int
    ) -> [RadiusCell] {
        let n = points.lat.count
        guard n > 0, test.threshold >= 0 else { return [] }
        let g = groupResolution(resolution, radius: test.radius)
        var keys = cells.map { H3Cell(validIndex: $0).parent(resolution: g).index }
        var order = (0..<UInt32(n)).map { $0 }
        RadixSort.sort(keys: &keys, values: &order, threads: threads)
        var ranges: [Range<Int>] = []
        var start = 0
        for k in 1...n where k == n || keys[k] != keys[start] {
            ranges.append(start..<k)
            start = k
        }
        let groups = ranges
        let vectors = unitVectors(points, threads: threads)
        var results = [[RadiusCell]](repeating: [], count: groups.count)
        let next = Atomic<Int>(0)
        let (sortedKeys, members) = (keys, order)
        results.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: max(1, min(threads, groups.count))) { _ in
                let geometry = H3Geometry()
                while true {
                    let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard k < groups.count else { break }
                    output[k] = scatterGroup(
                        around: H3Cell(validIndex: sortedKeys[groups[k].lowerBound]), members: members[groups[k]],
                        points: points, vectors: vectors, resolution: resolution, test: test, geometry: geometry)
                }
            }
        }
        return merged(results)
    }

    /// The counts one group's incidents add to every cell of `resolution` whose centre is within
    /// their radius; `ancestor` is the cell of the group resolution they share.
    private static func scatterGroup(
        around ancestor: H3Cell, members: ArraySlice<UInt32>, points: GridScatter.Points,
        vectors: [UnitVector], resolution: Int, test: RadiusTest, geometry: H3Geometry
    ) -> [RadiusCell] {
        let centre = ancestor.centre
        // Children of an H3 cell may reach past its edges: measure the group, not the cell.
        var farthest = 0.0
        for m in members {
            let i = Int(m)
            farthest = max(
                farthest,
                Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: points.lat[i], lon2: points.lon[i]))
        }
        // The margin covers the haversine's rounding between the two distances added here.
        let reach = RadiusTest(radius: test.radius + farthest + 1e-6 * (test.radius + farthest) + 1e-3)
        let candidates = H3.cellsAndCentres(
            withCentreWithin: reach, ofLat: centre.lat, lon: centre.lon,
            resolution: resolution, geometry: geometry)
        let band = test.chordBand
        var out: [RadiusCell] = []
        for (candidate, c) in candidates {
            let v = c.vector
            var current: UInt32 = 0, previous: UInt32 = 0, handled: UInt32 = 0
            for m in members {
                let i = Int(m)
                let q = vectors[i].quarterChordSquared(to: v)
                guard
                    q <= band.certainlyWithin
                        || (q <= band.certainlyBeyond
                            && Haversine.halfChordSquared(
                                lat1: points.lat[i], lon1: points.lon[i], lat2: c.lat, lon2: c.lon)
                                <= test.threshold)
                else { continue }
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

    /// Every point's unit vector, computed in chunks on `threads` cores.
    private static func unitVectors(_ points: GridScatter.Points, threads: Int) -> [UnitVector] {
        let chunks = IncidentIndex.chunks(points.lat.count, threads)
        return Concurrency.map(chunks.count) { c in
            chunks[c].map { UnitVector(lat: points.lat[$0], lon: points.lon[$0]) }
        }.flatMap { $0 }
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
