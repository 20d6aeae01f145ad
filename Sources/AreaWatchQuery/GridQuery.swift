import AreaWatchCore

/// One reported grid cell (SPEC §7.2, §18).
public struct GridCell: Sendable, Equatable {
    /// The cell, as a number of its grid system.
    public var id: GridCellID
    public var system: GridSystem
    /// Incidents inside the cell, current and previous window.
    public var nCurrent: Int
    public var nPrevious: Int
    /// Incidents within the radius of the cell centre.
    public var rCurrent: Int
    public var rPrevious: Int
    /// Current-window incidents within the radius whose handled is true.
    public var handled: Int
    public var safetyClass: SafetyClass
    /// Where this cell's calendar-year counts start in `GridResult.yearEntries`.
    @usableFromInline var yearStart: Int32
    @usableFromInline var yearCount: Int32

    public var yearOverYear: YearOverYear { YearOverYear(current: rCurrent, previous: rPrevious) }

    /// The geohash cell of a cell of a geohash grid, for the outputs drawn on the geohash lattice
    /// (the widget tiles and the HTML heatmap), which are not written for H3 grids.
    public var cell: GeohashCell {
        guard case .geohash(let precision) = system else { preconditionFailure("a geohash cell of an H3 grid") }
        return GeohashCell(prefix: id.raw, precision: precision)
    }

    /// The cell's centre in its grid system.
    public var centre: (lat: Double, lon: Double) {
        if case .geohash(let precision) = system { return GeohashCell(prefix: id.raw, precision: precision).centre }
        return system.centre(of: id)
    }
}

/// The grid heatmap: every reported cell, in the cell order of its grid system.
public struct GridResult: Sendable {
    public let system: GridSystem
    public let parameters: QueryParameters
    public let cells: [GridCell]
    /// Calendar years present in the data (incidents that pass the filters, not after the as-of).
    public let years: [Int]
    /// (index into `years`, incidents inside the cell), grouped per cell.
    @usableFromInline let yearEntries: [(year: UInt16, count: UInt32)]

    /// Incidents inside a cell per calendar year of `years` (zeros included).
    public func yearCounts(of cell: GridCell) -> [Int] {
        withYearCounts(of: cell) { counts in counts.indices.map { counts[$0] } }
    }

    /// `yearCounts(of:)` in a buffer on the stack, lent as a span, for the writers that visit every cell.
    /// Inlinable: the writers are in other modules, where a generic body that is not inlined
    /// looks its types up at run time on every call.
    @inlinable @inline(__always)
    public func withYearCounts<R>(of cell: GridCell, _ body: (Span<Int>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: years.count) { counts in
            counts.initialize(repeating: 0)
            for k in Int(cell.yearStart)..<Int(cell.yearStart + cell.yearCount) {
                counts[Int(yearEntries[k].year)] += Int(yearEntries[k].count)
            }
            return try body(counts.span)
        }
    }

    /// The precision of a geohash grid, for the outputs drawn on the geohash lattice (the widget
    /// tiles, grid.pmtiles and the HTML heatmap), which are not written for H3 grids.
    public var precision: Int {
        guard let p = geohashPrecision else { preconditionFailure("the geohash precision of an H3 grid") }
        return p
    }

    /// The precision of a geohash grid; nil for an H3 grid.
    public var geohashPrecision: Int? { system.geohashPrecision }

    public var classCounts: [SafetyClass: Int] {
        // Counted without hashing per cell: the report reads these several times.
        var safe = 0, medium = 0, dangerous = 0
        for c in cells {
            switch c.safetyClass {
            case .safe: safe += 1
            case .medium: medium += 1
            case .dangerous: dangerous += 1
            }
        }
        return [.safe: safe, .medium: medium, .dangerous: dangerous]
    }
}

/// How radius counts per cell are computed; both give identical results (tests compare them).
public enum GridStrategy: String, Sendable, CaseIterable {
    /// Each incident into the cell centres within its radius (default: its cost does not grow with
    /// the incidents near each circle's edge; docs/PERFORMANCE.md, "Query and grid").
    case scatter
    /// An R-tree radius count per candidate cell centre.
    case rtreePerCell = "rtree"
}

extension IncidentIndex {
    /// The SPEC §7.2 grid of a grid system (§18). H3 grids are always scattered (`strategy` is
    /// the geohash lattice's choice).
    /// `ownCells`: every column row's cell on `system`, when the caller has them (H3 only).
    public func grid(
        _ system: GridSystem, strategy: GridStrategy = .scatter, threads: Int = 1, ownCells: ColumnCells? = nil
    ) -> GridResult {
        switch system {
        case .geohash(let precision): grid(precision: precision, strategy: strategy, threads: threads)
        case .h3(let resolution):
            h3Grid(resolution: resolution, threads: threads, ownCells: ownCells?.grid == system ? ownCells : nil)
        }
    }

    /// The SPEC §7.2 grid at a geohash precision.
    public func grid(precision: Int, strategy: GridStrategy = .scatter, threads: Int = 1) -> GridResult {
        let test = RadiusTest(radius: parameters.radius)
        let radiusCells: [RadiusCell]
        switch strategy {
        case .scatter:
            radiusCells = GridScatter.radiusCells(
                points: windowedPoints, precision: precision, test: test, threads: threads)
        case .rtreePerCell:
            radiusCells = perCellRadiusCounts(precision: precision, test: test, threads: threads)
        }
        return assembleGrid(precision: precision, radiusCells: radiusCells, threads: threads)
    }

    /// Merges radius counts with the in-cell and per-year counts of the geohash buckets, in
    /// `threads` parts split at a cell prefix (on one thread it was serial time with the other cores
    /// idle), joined in order.
    private func assembleGrid(precision: Int, radiusCells: [RadiusCell], threads: Int) -> GridResult {
        let shift = UInt64(64 - 5 * precision)
        let parts = max(1, min(threads, radiusCells.count / 2_000))
        // Part p takes the prefixes from splits[p] up to splits[p + 1] (no prefix reaches .max).
        let splits = [0] + (1..<parts).map { radiusCells[radiusCells.count * $0 / parts].prefix } + [.max]
        let pieces = Concurrency.map(parts) { p in
            let (low, high) = (splits[p], splits[p + 1])
            let r = IncidentIndex.firstIndex(in: radiusCells.count) { radiusCells[$0].prefix >= low }
            let rEnd = IncidentIndex.firstIndex(in: radiusCells.count) { radiusCells[$0].prefix >= high }
            let b = IncidentIndex.firstIndex(in: count) { codes[$0] >> shift >= low }
            let bEnd = IncidentIndex.firstIndex(in: count) { codes[$0] >> shift >= high }
            return assembleCells(shift: shift, precision: precision, radiusCells: radiusCells[r..<rEnd], base: b..<bEnd)
        }
        var cells: [GridCell] = [], entries: [(year: UInt16, count: UInt32)] = []
        cells.reserveCapacity(pieces.reduce(0) { $0 + $1.cells.count })
        entries.reserveCapacity(pieces.reduce(0) { $0 + $1.entries.count })
        for piece in pieces {
            let offset = Int32(entries.count)
            cells.append(
                contentsOf: piece.cells.map {
                    var c = $0
                    c.yearStart += offset
                    return c
                })
            entries.append(contentsOf: piece.entries)
        }
        return GridResult(
            system: .geohash(precision: precision), parameters: parameters, cells: cells,
            years: yearSlots.years, yearEntries: entries)
    }

    /// The cells of one part: radius cells and base incidents of the same prefixes.
    private func assembleCells(shift: UInt64, precision: Int, radiusCells: ArraySlice<RadiusCell>, base: Range<Int>)
        -> (cells: [GridCell], entries: [(year: UInt16, count: UInt32)])
    {
        var cells: [GridCell] = []
        cells.reserveCapacity(radiusCells.count)
        var entries: [(year: UInt16, count: UInt32)] = []
        var r = radiusCells.startIndex // next radius cell
        var b = base.lowerBound // next base incident
        let thresholds = parameters.thresholds
        var tally = CellTally()
        let system = GridSystem.geohash(precision: precision)
        while r < radiusCells.endIndex || b < base.upperBound {
            let basePrefix = b < base.upperBound ? codes[b] >> shift : .max
            let radiusPrefix = r < radiusCells.endIndex ? radiusCells[r].prefix : .max
            let prefix = min(basePrefix, radiusPrefix)
            tally.reset()
            while b < base.upperBound && codes[b] >> shift == prefix {
                tally.add(membership: membership[b], yearSlot: UInt16(yearSlots[year[b]]))
                b += 1
            }
            var rc = RadiusCell(prefix: prefix, current: 0, previous: 0, handled: 0)
            if radiusPrefix == prefix {
                rc = radiusCells[r]
                r += 1
            }
            tally.emit(rc, system: system, thresholds: thresholds, cells: &cells, entries: &entries)
        }
        return (cells, entries)
    }
}

extension GridResult {
    /// The cells for which `keepCell` holds, with only the calendar years for which `keepYear`
    /// holds; `keepYear` gets each year and its largest in-cell count among the kept cells.
    /// Disclosure control (SPEC §10) publishes such a subset.
    public func restricted(
        keepingCells keepCell: (GridCell) -> Bool,
        keepingYears keepYear: (_ year: Int, _ largestCount: Int) -> Bool
    ) -> GridResult {
        let kept = cells.filter(keepCell)
        var largest = [Int](repeating: 0, count: years.count)
        for c in kept {
            for k in Int(c.yearStart)..<Int(c.yearStart + c.yearCount) {
                let e = yearEntries[k]
                largest[Int(e.year)] = max(largest[Int(e.year)], Int(e.count))
            }
        }
        var slot = [Int](repeating: -1, count: years.count)
        var keptYears: [Int] = []
        for (k, year) in years.enumerated() where keepYear(year, largest[k]) {
            slot[k] = keptYears.count
            keptYears.append(year)
        }
        var entries: [(year: UInt16, count: UInt32)] = []
        entries.reserveCapacity(yearEntries.count)
        let remapped = kept.map { c -> GridCell in
            var copy = c
            copy.yearStart = Int32(entries.count)
            for k in Int(c.yearStart)..<Int(c.yearStart + c.yearCount) where slot[Int(yearEntries[k].year)] >= 0 {
                entries.append((UInt16(slot[Int(yearEntries[k].year)]), yearEntries[k].count))
            }
            copy.yearCount = Int32(entries.count) - copy.yearStart
            return copy
        }
        return GridResult(
            system: system, parameters: parameters, cells: remapped, years: keptYears,
            yearEntries: entries)
    }
}

/// The in-cell counts of one cell while its incidents are visited (window counts and calendar
/// years), and the cell they make with its radius counts: the one assembly of a grid cell for
/// every grid system.
struct CellTally {
    private var nCurrent = 0, nPrevious = 0
    /// (year slot, incidents): a cell holds few years, so a linear search beats hashing.
    private var years: [(year: UInt16, count: UInt32)] = []

    mutating func reset() {
        nCurrent = 0
        nPrevious = 0
        years.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func add(membership: UInt8, yearSlot: UInt16) {
        switch membership {
        case WindowMembership.current.rawValue: nCurrent += 1
        case WindowMembership.previous.rawValue: nPrevious += 1
        default: break
        }
        if let k = years.firstIndex(where: { $0.year == yearSlot }) {
            years[k].count += 1
        } else {
            years.append((yearSlot, 1))
        }
    }

    /// Appends the cell of these counts and `radius`'s, unless no incident of either window is
    /// within the radius of its centre or inside it (SPEC §7.2).
    mutating func emit(
        _ radius: RadiusCell, system: GridSystem, thresholds: Thresholds, cells: inout [GridCell],
        entries: inout [(year: UInt16, count: UInt32)]
    ) {
        guard radius.current + radius.previous > 0 || nCurrent + nPrevious > 0 else { return }
        years.sort { $0.year < $1.year }
        cells.append(
            GridCell(
                id: GridCellID(raw: radius.prefix), system: system, nCurrent: nCurrent, nPrevious: nPrevious,
                rCurrent: Int(radius.current), rPrevious: Int(radius.previous), handled: Int(radius.handled),
                safetyClass: thresholds.classify(Int(radius.current)),
                yearStart: Int32(entries.count), yearCount: Int32(years.count)))
        entries.append(contentsOf: years)
    }
}
