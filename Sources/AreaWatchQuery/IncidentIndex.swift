import AreaWatchCore
import CAreaWatchSystem
import Dispatch

/// The query stage's in-memory index for one set of parameters (SPEC §6), built once per run.
///
/// - **Geohash buckets**: every incident that passes the filters and is not after the as-of,
///   sorted by its 64-bit geohash code, so any cell at any precision is one contiguous range.
/// - **Packed Hilbert R-tree** over the incidents of the current and previous windows (the only
///   ones radius counts look at), with prefix sums of the current-window and handled flags in
///   leaf order: a node the radius covers whole is counted in O(1). Built only for point queries
///   (`pointQueries`); the grid's scatter needs the windowed incidents alone.
///
/// Pure: a function of the columns and the parameters, nothing else (the unit a sharded run
/// would compute per geohash prefix plus halo).
public struct IncidentIndex: Sendable {
    public let parameters: QueryParameters
    public let windows: TimeWindows
    /// Incidents after the as-of, not counted anywhere (SPEC §7 `excluded_future`).
    public let excludedFuture: Int

    // Geohash buckets (base order).
    public let codes: [UInt64]
    public let lat: [Double]
    public let lon: [Double]
    /// `WindowMembership` raw values: current, previous or older.
    public let membership: [UInt8]
    /// 1 true, 0 false, -1 unknown.
    public let handled: [Int8]
    /// UTC calendar year.
    public let year: [Int16]
    /// UTC calendar month of the year, 1…12 (the monthly series of SPEC §8).
    public let month: [UInt8]
    /// The years present in `year` and each one's index among them (grid, totals, areas, breakdown).
    let yearSlots: YearSlots
    /// Index of the incident in the columns the index was built from.
    public let sourceIndex: [UInt32]

    /// The current and previous windows' incidents the grid scatters: the R-tree's leaves when
    /// there is one, else the same incidents in geohash order (the counts do not depend on it).
    let windowedPoints: GridScatter.Points
    /// Whether the R-tree was built: point queries (`radiusCounts`, `windowedWithin`) and the
    /// per-cell grid need it; a report without points of interest does not.
    public let hasPointIndex: Bool

    // Radius counting over the windowed incidents.
    public let rtree: PackedHilbertRTree
    /// Per R-tree leaf: current window, handled.
    let leafFlags: [LeafFlags]
    /// Prefix sums over leaves of the current flag and of the current-and-handled flag.
    let cumCurrent: [UInt32]
    let cumHandled: [UInt32]
    /// R-tree leaf → base index.
    let leafBase: [UInt32]

    public var count: Int { codes.count }

    /// - Parameter threads: cores for the per-incident work (results do not depend on it).
    /// - Parameter columns: released once gathered, before the R-tree is built, when the caller
    ///   holds no other copy (the 10M job's peak memory).
    /// - Parameter pointQueries: build the R-tree (false when only grids, areas, totals, the
    ///   breakdown and the hot-spot cube are asked for: none of them queries points, and the
    ///   grid then scatters the incidents in geohash order).
    public init(
        columns: consuming IncidentColumns, parameters: QueryParameters, nodeSize: Int = 16, threads: Int = 2,
        pointQueries: Bool = true
    ) {
        self.parameters = parameters
        let windows = parameters.windows
        self.windows = windows
        // The columns are read only while gathering: the caller's copy (if it gave it up) is freed
        // before the R-tree is built.
        var gathered = IncidentIndex.gather(columns, parameters: parameters, threads: threads)
        columns = IncidentColumns()
        excludedFuture = gathered.excludedFuture
        codes = gathered.codes
        lat = gathered.lat
        lon = gathered.lon
        membership = gathered.membership
        handled = gathered.handled
        year = gathered.year
        month = gathered.month
        sourceIndex = gathered.order
        gathered = Gathered()
        yearSlots = YearSlots(year)
        let windowed = IncidentIndex.windowed(
            lat: self.lat, lon: self.lon, membership: self.membership, handled: self.handled, threads: threads)
        let (windowedLat, windowedLon) = (windowed.lat, windowed.lon)
        let (windowedBase, windowedFlags) = (windowed.base, windowed.flags)

        hasPointIndex = pointQueries
        guard pointQueries else {
            windowedPoints = GridScatter.Points(lat: windowedLat, lon: windowedLon, flags: windowedFlags)
            rtree = PackedHilbertRTree(latitudes: [], longitudes: [], nodeSize: nodeSize)
            leafFlags = []
            leafBase = []
            cumCurrent = [0]
            cumHandled = [0]
            return
        }
        let tree = PackedHilbertRTree(latitudes: windowedLat, longitudes: windowedLon, nodeSize: nodeSize)
        var flags = [LeafFlags](repeating: [], count: tree.count)
        var leafBase = [UInt32](repeating: 0, count: tree.count)
        var cumCurrent = [UInt32](repeating: 0, count: tree.count + 1)
        var cumHandled = [UInt32](repeating: 0, count: tree.count + 1)
        for p in 0..<tree.count {
            let w = Int(tree.leafIndex[p])
            leafBase[p] = windowedBase[w]
            let f = windowedFlags[w]
            flags[p] = f
            cumCurrent[p + 1] = cumCurrent[p] + UInt32(f.currentCount)
            cumHandled[p + 1] = cumHandled[p] + UInt32(f.handledCount)
        }
        rtree = tree
        windowedPoints = GridScatter.Points(lat: tree.leafLat, lon: tree.leafLon, flags: flags)
        leafFlags = flags
        self.leafBase = leafBase
        self.cumCurrent = cumCurrent
        self.cumHandled = cumHandled
    }

    /// The two windows' incidents for the R-tree, in index order.
    private struct Windowed {
        var lat: [Double], lon: [Double], base: [UInt32], flags: [LeafFlags]
    }

    /// The two windows' incidents, in the same order, straight into arrays of their exact size
    /// (per-chunk lists joined afterwards held them twice): each chunk counts its own, then
    /// copies them to its offset, on `threads` cores.
    private static func windowed(
        lat: [Double], lon: [Double], membership: [UInt8], handled: [Int8], threads: Int
    ) -> Windowed {
        let n = lat.count
        let current = WindowMembership.current.rawValue, previous = WindowMembership.previous.rawValue
        let windowChunks = IncidentIndex.chunks(n, threads)
        let chunkCounts = Concurrency.map(windowChunks.count) { c in
            windowChunks[c].reduce(0) { $0 + (membership[$1] == current || membership[$1] == previous ? 1 : 0) }
        }
        let windowedCount = chunkCounts.reduce(0, +)
        var offsets = [0]
        for count in chunkCounts.dropLast() { offsets.append(offsets[offsets.count - 1] + count) }
        let chunkOffsets = offsets
        var windowedLat = [Double](repeating: 0, count: windowedCount),
            windowedLon = [Double](repeating: 0, count: windowedCount)
        var windowedBase = [UInt32](repeating: 0, count: windowedCount)
        var windowedFlags = [LeafFlags](repeating: [], count: windowedCount)
        withUnsafeMutableSendableBuffers(&windowedLat, &windowedLon) { latOut, lonOut in
            withUnsafeMutableSendableBuffers(&windowedBase, &windowedFlags) { baseOut, flagsOut in
                DispatchQueue.concurrentPerform(iterations: windowChunks.count) { c in
                    var w = chunkOffsets[c]
                    for k in windowChunks[c] where membership[k] == current || membership[k] == previous {
                        latOut[w] = lat[k]
                        lonOut[w] = lon[k]
                        baseOut[w] = UInt32(k)
                        flagsOut[w] = LeafFlags(current: membership[k] == current, handled: handled[k])
                        w += 1
                    }
                }
            }
        }

        return Windowed(lat: windowedLat, lon: windowedLon, base: windowedBase, flags: windowedFlags)
    }

    /// The filtered incidents in geohash order.
    private struct Gathered {
        var excludedFuture = 0
        var codes: [UInt64] = [], order: [UInt32] = [], lat: [Double] = [], lon: [Double] = []
        var membership: [UInt8] = [], handled: [Int8] = [], year: [Int16] = [], month: [UInt8] = []
    }

    private static func gather(_ columns: IncidentColumns, parameters: QueryParameters, threads: Int) -> Gathered {
        let windows = parameters.windows
        let allowed = parameters.allowedCategories(in: columns)

        // Keep what passes the filters and is not in the future, sorted by geohash code. The
        // codes are computed in contiguous chunks on several cores, concatenated in order.
        let chunks = IncidentIndex.chunks(columns.count, threads)
        var parts = Concurrency.map(chunks.count) { c in
            var codes: [UInt64] = [], order: [UInt32] = [], future = 0
            codes.reserveCapacity(chunks[c].count)
            order.reserveCapacity(chunks[c].count)
            for i in chunks[c] where parameters.passes(columns, i, allowedCategories: allowed) {
                if windows.membership(columns.time[i]) == .future {
                    future += 1
                    continue
                }
                codes.append(Geohash.code(lat: columns.lat[i], lon: columns.lon[i]))
                order.append(UInt32(i))
            }
            return (codes: codes, order: order, future: future)
        }
        let excludedFuture = parts.reduce(0) { $0 + $1.future }
        var sortedCodes = parts.flatMap(\.codes), order = parts.flatMap(\.order)
        parts = []
        RadixSort.sort(keys: &sortedCodes, values: &order, threads: threads)

        // Gather the columns into geohash order on every core: a random read per incident and
        // column, which waits on memory more than it computes, so every core's loads overlap.
        // Chunks write disjoint ranges.
        let n = order.count
        var lat = [Double](repeating: 0, count: n)
        var lon = [Double](repeating: 0, count: n), membership = [UInt8](repeating: 0, count: n)
        var handled = [Int8](repeating: 0, count: n), year = [Int16](repeating: 0, count: n)
        var month = [UInt8](repeating: 0, count: n)
        let gatherChunks = IncidentIndex.chunks(n, threads)
        withUnsafeMutableSendableBuffers(&lat, &lon, &membership) { latOut, lonOut, membershipOut in
            withUnsafeMutableSendableBuffers(&handled, &year, &month) { handledOut, yearOut, monthOut in
                let rows = GatherOutputs(
                    lat: latOut, lon: lonOut, membership: membershipOut, handled: handledOut,
                    year: yearOut, month: monthOut)
                let order = order
                DispatchQueue.concurrentPerform(iterations: gatherChunks.count) { c in
                    gatherRows(gatherChunks[c], order: order, columns: columns, windows: windows, into: rows)
                }
            }
        }
        return Gathered(
            excludedFuture: excludedFuture, codes: sortedCodes, order: order, lat: lat, lon: lon,
            membership: membership, handled: handled, year: year, month: month)

    }

    /// Where the gather writes, each chunk its own rows.
    private struct GatherOutputs: Sendable {
        let lat: UnsafeMutableSendableBuffer<Double>, lon: UnsafeMutableSendableBuffer<Double>
        let membership: UnsafeMutableSendableBuffer<UInt8>, handled: UnsafeMutableSendableBuffer<Int8>
        let year: UnsafeMutableSendableBuffer<Int16>, month: UnsafeMutableSendableBuffer<UInt8>
    }

    /// Copies rows `range` of the geohash order from the columns.
    @inline(__always)
    private static func gatherRows(
        _ range: Range<Int>, order: [UInt32], columns: IncidentColumns, windows: TimeWindows, into out: GatherOutputs
    ) {
        for k in range {
            // The rows a few ahead start loading now: each is a cache miss in four columns, which
            // the loop's own work cannot hide.
            if k + gatherPrefetchDistance < range.upperBound {
                columns.prefetchRow(Int(order[k + gatherPrefetchDistance]))
            }
            let i = Int(order[k])
            let (y, x, t) = (columns.lat[i], columns.lon[i], columns.time[i])
            out.lat[k] = y
            out.lon[k] = x
            out.membership[k] = windows.membership(t).rawValue
            out.handled[k] = columns.handled[i]
            let (calendarYear, calendarMonth) = UTCTime.yearMonth(of: t)
            out.year[k] = Int16(calendarYear)
            out.month[k] = UInt8(calendarMonth)
        }
    }

    /// How many rows ahead of the one it copies the gather prefetches.
    static let gatherPrefetchDistance = 16

    /// `n` items split into at most `threads` contiguous ranges.
    static func chunks(_ n: Int, _ threads: Int) -> [Range<Int>] {
        let k = max(1, min(threads, n / 50_000 + 1))
        return (0..<k).map { c in (n * c / k)..<(n * (c + 1) / k) }
    }

    /// Bytes held by the index's arrays.
    public var memoryBytes: Int {
        count * (8 + 8 + 8 + 1 + 1 + 2 + 1 + 4) + rtree.memoryBytes + rtree.count * (1 + 4 + 4 + 4)
            + (hasPointIndex ? 0 : windowedPoints.lat.count * (8 + 8 + 1))
    }

    /// Counts within the radius of a location: current, previous, current-and-handled.
    public func radiusCounts(lat: Double, lon: Double, test: RadiusTest) -> (current: Int, previous: Int, handled: Int)
    {
        precondition(hasPointIndex, "a radius count on an index built without point queries")
        var total = 0, current = 0, handledCount = 0
        rtree.forEachWithin(
            lat: lat, lon: lon, test: test,
            range: { r in
                total += r.count
                current += Int(cumCurrent[r.upperBound] &- cumCurrent[r.lowerBound])
                handledCount += Int(cumHandled[r.upperBound] &- cumHandled[r.lowerBound])
            },
            point: { p in
                total += 1
                let f = leafFlags[p]
                current += Int(f.currentCount)
                handledCount += Int(f.handledCount)
            })
        return (current, total - current, handledCount)
    }

    /// Base indices of the windowed incidents within the radius, nearest first.
    public func windowedWithin(lat: Double, lon: Double) -> [Int] {
        precondition(hasPointIndex, "a radius search on an index built without point queries")
        return rtree.positionsWithin(lat: lat, lon: lon, radius: parameters.radius)
            .map { Int(leafBase[$0]) }
            .sorted {
                (Haversine.distance(lat1: lat, lon1: lon, lat2: self.lat[$0], lon2: self.lon[$0]), $0)
                    < (Haversine.distance(lat1: lat, lon1: lon, lat2: self.lat[$1], lon2: self.lon[$1]), $1)
            }
    }

    /// The base range of the incidents inside a geohash cell (binary search over the codes).
    public func range(of cell: GeohashCell) -> Range<Int> {
        let lower = lowerBound(cell.lowerCode)
        let upper = cell.upperCode == .max ? count : lowerBound(cell.upperCode + 1)
        return lower..<upper
    }

    private func lowerBound(_ code: UInt64) -> Int {
        IncidentIndex.firstIndex(in: count) { codes[$0] >= code }
    }

    /// The first of `0..<n` for which `holds` is true, where it is false up to some index and
    /// true from there on (binary search); `n` when it never holds.
    static func firstIndex(in n: Int, where holds: (Int) -> Bool) -> Int {
        var low = 0, high = n
        while low < high {
            let mid = (low + high) / 2
            if holds(mid) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

extension IncidentColumns {
    /// Starts loading row `i` of the columns the index gathers.
    @inline(__always)
    fileprivate func prefetchRow(_ i: Int) {
        lat.withUnsafeBufferPointer { aw_prefetch_for_read($0.baseAddress! + i) }
        lon.withUnsafeBufferPointer { aw_prefetch_for_read($0.baseAddress! + i) }
        time.withUnsafeBufferPointer { aw_prefetch_for_read($0.baseAddress! + i) }
        handled.withUnsafeBufferPointer { aw_prefetch_for_read($0.baseAddress! + i) }
    }
}
