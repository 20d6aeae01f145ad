import AreaWatchCore
import Dispatch
import Glibc
import Synchronization

/// The SPEC §7.2 grid on the H3 cells of a resolution (SPEC §18).
///
/// Radius counts scatter the windowed incidents in blocks: those whose cells share an ancestor
/// (`H3GridScatter.groupResolution`), and the blocks whose ancestors share a coarser one
/// (`searchResolution`) share one search. It finds every cell whose centre is within radius + d
/// of that cell's centre, d being the farthest of its incidents from it (so it holds every cell
/// any of them reaches); each block keeps those its own incidents may reach, and each incident is
/// then decided against each of them by the radius test every other "within" uses. In-cell and
/// per-year counts take every incident's own cell. Both are merged in ascending index, the H3
/// cell order.
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
    /// The resolution whose cells group the incidents into blocks decided together: the coarsest
    /// at most `resolution` whose average edge is at most half the radius. A block's candidates
    /// are the cells within radius + its extent, so at half the radius each incident is tested
    /// against not many more cells than it reaches.
    static func groupResolution(_ resolution: Int, radius: Double) -> Int {
        var g = resolution
        while g > 0 && H3.averageEdgeLength(resolution: g - 1) <= radius / 2 { g -= 1 }
        return g
    }

    /// The resolution whose cells share one search among their blocks: the coarsest at most
    /// `group` whose average edge is at most twice the radius. One search per block would ask H3
    /// for nearly the same cells as its neighbours' do; a coarser search is found once, and each
    /// block keeps its own candidates from it by a dot product each.
    static func searchResolution(_ group: Int, radius: Double) -> Int {
        var s = group
        while s > 0 && H3.averageEdgeLength(resolution: s - 1) <= 2 * radius { s -= 1 }
        return s
    }

    /// The H3 index of every location's cell, computed in chunks on `threads` cores.
    static func ownCells(lat: [Double], lon: [Double], resolution: Int, threads: Int) -> [UInt64] {
        let chunks = IncidentIndex.chunks(lat.count, threads)
        return Concurrency.map(chunks.count) { c in
            chunks[c].map { H3.cell(lat: lat[$0], lon: lon[$0], resolution: resolution).index }
        }.flatMap { $0 }
    }

    /// The windowed points sorted by their cell at the group resolution: `blocks` are the runs of
    /// one group cell (positions in `members`), `searches` the runs of blocks sharing a cell at
    /// the search resolution (H3 numbers a cell's descendants consecutively, so both are runs).
    struct Partition {
        var members: [UInt32]
        var blocks: [Range<Int>]
        var searches: [(cell: H3Cell, blocks: Range<Int>)]

        init(cells: [UInt64], group: Int, search: Int, threads: Int) {
            let n = cells.count
            var keys = cells.map { H3Cell(validIndex: $0).parent(resolution: group).index }
            var order = (0..<UInt32(n)).map { $0 }
            RadixSort.sort(keys: &keys, values: &order, threads: threads)
            members = order
            blocks = []
            var start = 0
            for k in 1...n where k == n || keys[k] != keys[start] {
                blocks.append(start..<k)
                start = k
            }
            searches = []
            var first = 0, parent = H3Cell(validIndex: keys[0]).parent(resolution: search)
            for b in 1...blocks.count {
                let next =
                    b < blocks.count ? H3Cell(validIndex: keys[blocks[b].lowerBound]).parent(resolution: search) : nil
                if next != parent {
                    searches.append((parent, first..<b))
                    if let next { (first, parent) = (b, next) }
                }
            }
        }
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
        let partition = Partition(
            cells: cells, group: g, search: searchResolution(g, radius: test.radius), threads: threads)
        let vectors = unitVectors(points, threads: threads)
        let searches = partition.searches
        var results = [[RadiusCell]](repeating: [], count: searches.count)
        let next = Atomic<Int>(0)
        results.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: max(1, min(threads, searches.count))) { _ in
                let geometry = H3Geometry()
                var block = BlockScratch()
                while true {
                    let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard k < searches.count else { break }
                    output[k] = scatterSearch(
                        around: searches[k].cell, blocks: partition.blocks[searches[k].blocks],
                        members: partition.members, points: points, vectors: vectors, resolution: resolution,
                        test: test, geometry: geometry, block: &block)
                }
            }
        }
        return merged(results, threads: threads)
    }

    /// One block's points gathered in a row, so the loop over candidates reads them in order.
    struct BlockScratch {
        var vectors: [UnitVector] = []
        var lat: [Double] = []
        var lon: [Double] = []
        var flags: [LeafFlags] = []

        mutating func gather(_ members: ArraySlice<UInt32>, points: GridScatter.Points, vectors all: [UnitVector]) {
            vectors.removeAll(keepingCapacity: true)
            lat.removeAll(keepingCapacity: true)
            lon.removeAll(keepingCapacity: true)
            flags.removeAll(keepingCapacity: true)
            for m in members {
                let i = Int(m)
                vectors.append(all[i])
                lat.append(points.lat[i])
                lon.append(points.lon[i])
                flags.append(points.flags[i])
            }
        }
    }

    /// The counts the blocks of one search cell add to every cell of `resolution` whose centre is
    /// within their radius.
    ///
    /// Completeness: a pair within the radius has its cell's centre within radius + d of the
    /// search cell's centre, d being the farthest of the blocks' points from it, so the search
    /// holds it. A block then keeps the candidates whose chord to its points' mean (any point of
    /// space serves) is at most the sum of its farthest point's and the radius band's chords:
    /// chords obey the triangle inequality, and every pair the radius test accepts has its
    /// quarter squared chord at most `certainlyBeyond`.
    private static func scatterSearch(
        around cell: H3Cell, blocks: ArraySlice<Range<Int>>, members: [UInt32], points: GridScatter.Points,
        vectors: [UnitVector], resolution: Int, test: RadiusTest, geometry: H3Geometry, block: inout BlockScratch
    ) -> [RadiusCell] {
        let centre = cell.centre
        let here = UnitVector(lat: centre.lat, lon: centre.lon)
        var farthestChord = 0.0
        for m in members[blocks.first!.lowerBound..<blocks.last!.upperBound] {
            farthestChord = max(farthestChord, vectors[Int(m)].quarterChordSquared(to: here))
        }
        // The margin covers the chord's and the haversine's rounding between the distances added here.
        let farthest = Haversine.distance(halfChordSquared: farthestChord)
        let reach = RadiusTest(radius: test.radius + farthest + 1e-6 * (test.radius + farthest) + 1e-3)
        let candidates = H3.cellsAndCentres(
            withCentreWithin: reach, ofLat: centre.lat, lon: centre.lon,
            resolution: resolution, geometry: geometry)
        let bandChord = test.chordBand.certainlyBeyond.squareRoot()
        var out: [RadiusCell] = []
        for range in blocks {
            block.gather(members[range], points: points, vectors: vectors)
            let mean = meanVector(block.vectors)
            var spread = 0.0
            for v in block.vectors { spread = max(spread, v.quarterChordSquared(to: mean)) }
            // Half chords add (the triangle inequality); the slack is far above their rounding.
            let sum = (spread.squareRoot() + bandChord) * (1 + 1e-9) + 1e-12
            let keep = sum * sum
            for (candidate, c) in candidates where c.vector.quarterChordSquared(to: mean) <= keep {
                let counts = counts(of: c, block: block, test: test)
                if counts.current + counts.previous > 0 {
                    out.append(
                        RadiusCell(
                            prefix: candidate.index, current: counts.current, previous: counts.previous,
                            handled: counts.handled))
                }
            }
        }
        return out
    }

    /// The mean of some unit vectors (not normalised: it is only a point to measure from).
    private static func meanVector(_ vectors: [UnitVector]) -> UnitVector {
        var mean = UnitVector(lat: 0, lon: 0)
        (mean.x, mean.y, mean.z) = (0, 0, 0)
        for v in vectors { (mean.x, mean.y, mean.z) = (mean.x + v.x, mean.y + v.y, mean.z + v.z) }
        let scale = 1 / Double(max(1, vectors.count))
        (mean.x, mean.y, mean.z) = (mean.x * scale, mean.y * scale, mean.z * scale)
        return mean
    }

    /// The block's points within the radius of one centre, each decided by the radius test (by
    /// the chord where it is certain, else by the haversine, as every other "within").
    @inline(__always)
    private static func counts(
        of c: H3Geometry.Centre, block: BlockScratch, test: RadiusTest
    ) -> (current: UInt32, previous: UInt32, handled: UInt32) {
        let band = test.chordBand
        let v = c.vector
        var current: UInt32 = 0, previous: UInt32 = 0, handled: UInt32 = 0
        for j in block.vectors.indices {
            let q = block.vectors[j].quarterChordSquared(to: v)
            guard
                q <= band.certainlyWithin
                    || (q <= band.certainlyBeyond
                        && Haversine.halfChordSquared(lat1: block.lat[j], lon1: block.lon[j], lat2: c.lat, lon2: c.lon)
                            <= test.threshold)
            else { continue }
            let f = block.flags[j]
            current &+= UInt32(f.currentCount)
            previous &+= 1 &- UInt32(f.currentCount)
            handled &+= UInt32(f.handledCount)
        }
        return (current, previous, handled)
    }

    /// Every point's unit vector, computed in chunks on `threads` cores.
    private static func unitVectors(_ points: GridScatter.Points, threads: Int) -> [UnitVector] {
        let chunks = IncidentIndex.chunks(points.lat.count, threads)
        return Concurrency.map(chunks.count) { c in
            chunks[c].map { UnitVector(lat: points.lat[$0], lon: points.lon[$0]) }
        }.flatMap { $0 }
    }

    /// The searches' counts summed per cell, in ascending index.
    private static func merged(_ results: [[RadiusCell]], threads: Int) -> [RadiusCell] {
        let all = results.flatMap { $0 }
        var keys = all.map(\.prefix)
        var order = (0..<UInt32(all.count)).map { $0 }
        RadixSort.sort(keys: &keys, values: &order, threads: threads)
        var cells: [RadiusCell] = []
        cells.reserveCapacity(all.count)
        for k in order.indices {
            let c = all[Int(order[k])]
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
