import AreaWatchCore
import Dispatch
import Glibc
import Synchronization

/// Radius counts at one lattice cell centre.
struct RadiusCell: Sendable {
    var prefix: UInt64
    var current: UInt32
    var previous: UInt32
    var handled: UInt32
}

/// Grid radius counts by scattering each incident into the cell centres within its radius
/// (docs/DECISIONS.md, "grid algorithm"; measured against an R-tree count per cell centre).
///
/// Cell centres at precision p form a lattice of rows (latitude) and columns (longitude). For an
/// incident and one row, the centres within the radius are one run of consecutive columns,
/// because along a parallel the haversine term grows with the longitude gap. So each incident
/// adds +1 at the first column of its run and −1 after the last, per row it reaches (a
/// difference array), and a prefix sum along each row gives every centre's count. Work is
/// O(incidents × rows per circle), independent of how many incidents each circle holds.
///
/// Exactness: a run's ends come from inverting the haversine formula, then every column within
/// 1e-9 (relative) of an end is decided by `RadiusTest`, the same test a point query uses, so
/// the grid equals a brute-force scan bit for bit.
///
/// A band's runs reach the difference arrays by one of four paths, the first that applies:
/// 1. direct (`scatterBandDirect`): one city away from the poles and the antimeridian; each run
///    goes into one dense window as it is computed, none is stored;
/// 2. one dense window over all the band's runs (stored first, split at the antimeridian);
/// 3. a dense window per cluster of overlapping columns, row by row when a cluster is wide;
/// 4. sorted run ends swept row by row (`accumulateSparse`), for a cluster wider than
///    `maxDenseRowColumns`.
enum GridScatter {
    /// Rows per band: the unit of work handed to a thread. An incident's trigonometry is computed
    /// once per band it reaches, so a band should be well above a circle's height in rows (~15 at
    /// p7 and 1 km: ~1.5 bands an incident at 32 rows, ~1.9 at 16), and still leave enough bands
    /// to share among the cores.
    static let bandRows: Int64 = 32
    /// Most cells of one dense window (all its rows). Each cell is three `Int32` counters, so this
    /// bounds a thread's reused scratch to 48 MB; a city band needs a few hundred kB. Past it the
    /// runs are clustered by columns, or a wide cluster is taken one row at a time.
    static let maxDenseWindowCells = 4_000_000
    /// Most columns of a dense window taken one row at a time (96 MB of counters at most, zeroed
    /// per row): a wider cluster (a fine precision across a whole latitude band) has few runs
    /// for its width, so sorting their ends costs less than zeroing the row.
    static let maxDenseRowColumns = 8_000_000

    struct Points {
        var lat: [Double]
        var lon: [Double]
        var flags: [LeafFlags]
    }

    /// One incident's run of cell centres in one row of a band: columns `first...last`
    /// (unwrapped until split at the antimeridian: they may run past either end of the lattice).
    struct Run {
        /// Row within the band.
        var row: Int32
        var first: Int64
        var last: Int64
        var flags: LeafFlags
    }

    static func radiusCells(points: Points, precision: Int, test: RadiusTest, threads: Int) -> [RadiusCell] {
        let n = points.lat.count
        guard n > 0, test.threshold >= 0 else { return [] }
        let lattice = Lattice(precision: precision, radius: test.radius)

        // Row range of every incident, and the bands it reaches.
        var rowLow = [Int64](repeating: 0, count: n), rowHigh = [Int64](repeating: 0, count: n)
        var minBand = Int64.max, maxBand = Int64.min
        for i in 0..<n {
            let (lo, hi) = lattice.rows(lat: points.lat[i])
            rowLow[i] = lo
            rowHigh[i] = hi
            minBand = min(minBand, lo / bandRows)
            maxBand = max(maxBand, hi / bandRows)
        }
        let bands = bandMembers(rowLow: rowLow, rowHigh: rowHigh, minBand: minBand, maxBand: maxBand)
        let low = rowLow, high = rowHigh

        var results = [[RadiusCell]](repeating: [], count: bands.count)
        let workers = max(1, min(threads, bands.count))
        // Largest bands first, each to whichever worker is free: dealt out in turn, a city's
        // dense bands left one core scattering alone at the end of the stage. Results stay in
        // band order, so the output does not depend on the schedule.
        let schedule = bands.indices.sorted { (bands[$0].members.count, $1) > (bands[$1].members.count, $0) }
        let next = Atomic<Int>(0)
        results.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                var scratch = BandScratch()
                while true {
                    let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard k < schedule.count else { break }
                    let b = schedule[k]
                    output[b] = scatterBand(
                        bands[b], points: points, lattice: lattice, test: test,
                        rowLow: low, rowHigh: high, scratch: &scratch)
                }
            }
        }
        var cells: [RadiusCell] = []
        cells.reserveCapacity(results.reduce(0) { $0 + $1.count })
        for r in results { cells.append(contentsOf: r) }
        cells.sort { $0.prefix < $1.prefix }
        return cells
    }

    struct Band {
        var firstRow: Int64
        var members: ArraySlice<UInt32>
    }

    /// Incidents grouped by the bands of rows they reach (one incident can reach several).
    private static func bandMembers(rowLow: [Int64], rowHigh: [Int64], minBand: Int64, maxBand: Int64) -> [Band] {
        let bandCount = Int(maxBand - minBand + 1)
        if bandCount <= 4 * rowLow.count + 1024 {
            return bandMembersCounting(rowLow: rowLow, rowHigh: rowHigh, minBand: minBand, bandCount: bandCount)
        }
        var pairs: [UInt64] = []
        pairs.reserveCapacity(rowLow.count * 2)
        for i in rowLow.indices {
            for band in (rowLow[i] / bandRows)...(rowHigh[i] / bandRows) {
                pairs.append(UInt64(band - minBand) << 32 | UInt64(i))
            }
        }
        pairs.sort()
        var members = [UInt32](repeating: 0, count: pairs.count)
        var bands: [Band] = []
        var start = 0
        for k in 0...pairs.count {
            if k == pairs.count || (k > start && pairs[k] >> 32 != pairs[start] >> 32) {
                if k > start {
                    let band = Int64(pairs[start] >> 32) + minBand
                    bands.append(Band(firstRow: band * bandRows, members: members[start..<k]))
                }
                start = k
            }
            if k < pairs.count { members[k] = UInt32(truncatingIfNeeded: pairs[k]) }
        }
        return bands
    }

    /// Counting sort by band: two passes, no comparison sort (the usual case, a compact extent).
    private static func bandMembersCounting(rowLow: [Int64], rowHigh: [Int64], minBand: Int64, bandCount: Int) -> [Band]
    {
        var counts = [Int](repeating: 0, count: bandCount + 1)
        for i in rowLow.indices {
            for band in (rowLow[i] / bandRows)...(rowHigh[i] / bandRows) { counts[Int(band - minBand) + 1] += 1 }
        }
        for b in 0..<bandCount { counts[b + 1] += counts[b] }
        var members = [UInt32](repeating: 0, count: counts[bandCount])
        var next = counts
        for i in rowLow.indices {
            for band in (rowLow[i] / bandRows)...(rowHigh[i] / bandRows) {
                let b = Int(band - minBand)
                members[next[b]] = UInt32(i)
                next[b] += 1
            }
        }
        var bands: [Band] = []
        for b in 0..<bandCount where counts[b + 1] > counts[b] {
            bands.append(Band(firstRow: (Int64(b) + minBand) * bandRows, members: members[counts[b]..<counts[b + 1]]))
        }
        return bands
    }

    /// Reused per thread.
    struct BandScratch {
        var current: [Int32] = []
        var previous: [Int32] = []
        var handled: [Int32] = []
        var runs: [Run] = []
        var pieces: [Run] = []

        /// The window's difference arrays (`rows` × `width` counters), zeroed, for `body`; the
        /// storage is kept for the next band.
        mutating func withZeroedWindow<R>(
            width: Int, rows: Int,
            _ body: (DiffWindow, inout MutableSpan<Int32>, inout MutableSpan<Int32>, inout MutableSpan<Int32>) -> R
        ) -> R {
            let size = width * rows
            if current.count < size {
                current = [Int32](repeating: 0, count: size)
                previous = [Int32](repeating: 0, count: size)
                handled = [Int32](repeating: 0, count: size)
            }
            // The arrays move out for the call (three spans of one `self` would overlap) and back.
            var (c, p, h) = ([Int32](), [Int32](), [Int32]())
            swap(&c, &current)
            swap(&p, &previous)
            swap(&h, &handled)
            let result: R
            do {
                var cur = c.mutableSpan, prev = p.mutableSpan, hand = h.mutableSpan
                precondition(size <= cur.count && size <= prev.count && size <= hand.count)
                for k in 0..<size {
                    cur[unchecked: k] = 0
                    prev[unchecked: k] = 0
                    hand[unchecked: k] = 0
                }
                result = body(DiffWindow(width: width, rows: rows), &cur, &prev, &hand)
            }
            swap(&c, &current)
            swap(&p, &previous)
            swap(&h, &handled)
            return result
        }
    }

    /// All runs of one band, then difference arrays per cluster of overlapping columns.
    private static func scatterBand(
        _ band: Band, points: Points, lattice: Lattice, test: RadiusTest,
        rowLow: [Int64], rowHigh: [Int64], scratch: inout BandScratch
    ) -> [RadiusCell] {
        scratch.runs.removeAll(keepingCapacity: true)
        // The band's row latitudes and their trigonometry, once per band instead of once per incident.
        let rows = (0..<bandRows).map {
            LatitudeTerms(GeohashCell.centreLatitude(row: band.firstRow + $0, precision: lattice.precision))
        }
        if let cells = scatterBandDirect(
            band, points: points, lattice: lattice, test: test, rowLow: rowLow, rowHigh: rowHigh,
            rows: rows, scratch: &scratch)
        {
            return cells
        }
        forEachRun(
            of: band, points: points, lattice: lattice, test: test, rowLow: rowLow, rowHigh: rowHigh,
            rows: rows
        ) { k, first, last, flags in
            scratch.runs.append(Run(row: Int32(k), first: first, last: last, flags: flags))
            return true
        }
        guard !scratch.runs.isEmpty else { return [] }
        // Runs wider than the globe cover their whole row; split the rest at the antimeridian.
        // Buffers live in `scratch` across bands: allocating them per band cost the kernel more
        // in zeroing fresh pages than the scatter itself at 5M incidents.
        let columns = lattice.columnCount
        var pieces: [Run] = []
        swap(&pieces, &scratch.pieces) // owned here, so clearing it keeps its storage
        pieces.removeAll(keepingCapacity: true)
        if scratch.runs.allSatisfy({ $0.first >= 0 && $0.last < columns }) {
            swap(&pieces, &scratch.runs)
        } else {
            for run in scratch.runs {
                if run.last - run.first + 1 >= columns {
                    pieces.append(Run(row: run.row, first: 0, last: columns - 1, flags: run.flags))
                    continue
                }
                let first = ((run.first % columns) + columns) % columns
                let last = first + (run.last - run.first)
                if last < columns {
                    pieces.append(Run(row: run.row, first: first, last: last, flags: run.flags))
                } else {
                    pieces.append(Run(row: run.row, first: first, last: columns - 1, flags: run.flags))
                    pieces.append(Run(row: run.row, first: 0, last: last - columns, flags: run.flags))
                }
            }
        }
        defer { scratch.pieces = pieces }
        var cells: [RadiusCell] = []
        var lowest = Int64.max, highest = Int64.min
        for piece in pieces {
            lowest = min(lowest, piece.first)
            highest = max(highest, piece.last)
        }
        if Int(highest - lowest + 2) * Int(bandRows) <= maxDenseWindowCells {
            // The usual case (one city): a single dense window, no sorting.
            accumulate(
                pieces[...], firstColumn: lowest, lastColumn: highest, band: band, lattice: lattice,
                scratch: &scratch, into: &cells)
            return cells
        }
        // Clusters of runs with overlapping or adjacent columns each get their own window.
        pieces.sort { $0.first < $1.first }
        var start = 0
        while start < pieces.count {
            var end = start + 1
            var reach = pieces[start].last
            while end < pieces.count && pieces[end].first <= reach + 1 {
                reach = max(reach, pieces[end].last)
                end += 1
            }
            accumulate(
                pieces[start..<end], firstColumn: pieces[start].first, lastColumn: reach,
                band: band, lattice: lattice, scratch: &scratch, into: &cells)
            start = end
        }
        return cells
    }

    /// Every run of the band: the columns of row `k` (band row) whose centres are within the
    /// radius of one member, with the member's flags. `body` returns false to stop; so does this.
    /// Inlined into each caller, so that `body` (which writes through the window's spans) is
    /// compiled into the loop rather than called per run.
    @discardableResult @inline(__always)
    static func forEachRun(
        of band: Band, points: Points, lattice: Lattice, test: RadiusTest,
        rowLow: [Int64], rowHigh: [Int64], rows: [LatitudeTerms],
        _ body: (_ k: Int, _ first: Int64, _ last: Int64, _ flags: LeafFlags) -> Bool
    ) -> Bool {
        let lastRow = band.firstRow + bandRows - 1
        for member in band.members {
            let i = Int(member)
            let point = LatitudeTerms(points.lat[i]), lon = points.lon[i]
            for row in max(rowLow[i], band.firstRow)...min(rowHigh[i], lastRow) {
                let k = Int(row - band.firstRow)
                if let (first, last) = lattice.run(point: point, lon: lon, row: rows[k], test: test),
                    !body(k, first, last, points.flags[i])
                {
                    return false
                }
            }
        }
        return true
    }

    private static func accumulate(
        _ runs: ArraySlice<Run>,
        firstColumn: Int64, lastColumn: Int64, band: Band, lattice: Lattice,
        scratch: inout BandScratch, into cells: inout [RadiusCell]
    ) {
        let width = Int(lastColumn - firstColumn + 2)
        let rows = Int(bandRows)
        guard width <= maxDenseRowColumns else {
            accumulateSparse(runs, band: band, lattice: lattice, into: &cells)
            return
        }
        // Dense window of the cluster, one row at a time when it is very wide.
        let rowsPerPass = width * rows <= maxDenseWindowCells ? rows : 1
        var passStart = 0
        while passStart < rows {
            let passRows = min(rowsPerPass, rows - passStart)
            scratch.withZeroedWindow(width: width, rows: passRows) { window, current, previous, handled in
                for run in runs where Int(run.row) >= passStart && Int(run.row) < passStart + passRows {
                    window.add(
                        row: Int(run.row) - passStart, from: Int(run.first - firstColumn),
                        through: Int(run.last - firstColumn), flags: run.flags,
                        current: &current, previous: &previous, handled: &handled)
                }
                window.sweep(
                    current: current.span, previous: previous.span, handled: handled.span,
                    firstRow: band.firstRow + Int64(passStart), firstColumn: firstColumn, lattice: lattice, into: &cells
                )
            }
            passStart += passRows
        }
    }
}

extension GridScatter {
    /// For clusters too wide for a dense window (a fine precision over a whole latitude band):
    /// the run ends as sorted events, swept row by row.
    fileprivate static func accumulateSparse(
        _ runs: ArraySlice<Run>,
        band: Band, lattice: Lattice, into cells: inout [RadiusCell]
    ) {
        var events: [(row: Int32, column: Int64, current: Int32, previous: Int32, handled: Int32)] = []
        events.reserveCapacity(runs.count * 2)
        for run in runs {
            let c = run.flags.currentCount, h = run.flags.handledCount, p: Int32 = 1 - c
            events.append((run.row, run.first, c, p, h))
            events.append((run.row, run.last + 1, -c, -p, -h))
        }
        events.sort { ($0.row, $0.column) < ($1.row, $1.column) }
        var k = 0
        while k < events.count {
            let row = events[k].row
            var c: Int32 = 0, p: Int32 = 0, h: Int32 = 0
            while k < events.count && events[k].row == row {
                let column = events[k].column
                while k < events.count && events[k].row == row && events[k].column == column {
                    c += events[k].current
                    p += events[k].previous
                    h += events[k].handled
                    k += 1
                }
                let next = (k < events.count && events[k].row == row) ? events[k].column : column
                if c != 0 || p != 0 {
                    for x in column..<next {
                        let cell = GeohashCell(
                            lonIndex: UInt64(x), latIndex: UInt64(band.firstRow + Int64(row)),
                            precision: lattice.precision)
                        cells.append(
                            RadiusCell(prefix: cell.prefix, current: UInt32(c), previous: UInt32(p), handled: UInt32(h))
                        )
                    }
                }
            }
        }
    }
}

/// The shape of difference arrays over a window of cells (`rows` × `width` counters, one spare
/// column a row), whose counters (current, previous, handled) are lent with it: a run adds at its
/// first column and subtracts past its last; prefix sums along each row give the counts. The
/// runs' columns lie inside the window, so the counters are indexed unchecked.
struct DiffWindow {
    let width: Int
    let rows: Int

    /// One incident's run of columns `first...last` (window columns) in `row`.
    @inline(__always)
    func add(
        row: Int, from first: Int, through last: Int, flags: LeafFlags,
        current: inout MutableSpan<Int32>, previous: inout MutableSpan<Int32>, handled: inout MutableSpan<Int32>
    ) {
        let a = row * width + first, b = row * width + last + 1
        assert(a >= 0 && a < b && b < current.count, "a run outside its window")
        if flags.contains(.current) {
            current[unchecked: a] &+= 1
            current[unchecked: b] &-= 1
            if flags.contains(.handled) {
                handled[unchecked: a] &+= 1
                handled[unchecked: b] &-= 1
            }
        } else {
            previous[unchecked: a] &+= 1
            previous[unchecked: b] &-= 1
        }
    }

    /// Every cell of the window with incidents, row by row, as a `RadiusCell`.
    func sweep(
        current: Span<Int32>, previous: Span<Int32>, handled: Span<Int32>,
        firstRow: Int64, firstColumn: Int64, lattice: Lattice, into cells: inout [RadiusCell]
    ) {
        precondition(current.count >= rows * width && previous.count >= rows * width && handled.count >= rows * width)
        for r in 0..<rows {
            let base = r * width
            var c: Int32 = 0, p: Int32 = 0, h: Int32 = 0
            let row = firstRow + Int64(r)
            for x in 0..<(width - 1) {
                c &+= current[unchecked: base + x]
                p &+= previous[unchecked: base + x]
                h &+= handled[unchecked: base + x]
                if c != 0 || p != 0 {
                    let cell = GeohashCell(
                        lonIndex: UInt64(firstColumn + Int64(x)), latIndex: UInt64(row),
                        precision: lattice.precision)
                    cells.append(
                        RadiusCell(prefix: cell.prefix, current: UInt32(c), previous: UInt32(p), handled: UInt32(h)))
                }
            }
        }
    }
}

/// What a windowed incident adds to the radius counts around it, one byte per R-tree leaf.
struct LeafFlags: OptionSet, Sendable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// In the current window; without it, in the previous one.
    static let current = LeafFlags(rawValue: 1)
    /// Handled, counted for current-window incidents only (SPEC §7.2), so never without `current`.
    static let handled = LeafFlags(rawValue: 2)

    init(current: Bool, handled: Int8) {
        self = current ? (handled == 1 ? [.current, .handled] : .current) : []
    }

    /// 1 or 0, for sums.
    @inline(__always) var currentCount: Int32 { Int32(rawValue & 1) }
    @inline(__always) var handledCount: Int32 { Int32(rawValue >> 1) }
}
