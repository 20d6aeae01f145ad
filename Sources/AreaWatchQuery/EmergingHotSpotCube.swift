import AreaWatchCore

/// `--ehsa-grid` (or `--ehsa-precision`), `--ehsa-steps`, `--ehsa-alpha` (SPEC §13, §18).
public struct EmergingHotSpotParameters: Sendable, Hashable {
    /// The cells of the cube: geohash at a precision or H3 at a resolution.
    public var grid: GridSystem
    public var steps: Int
    public var alpha: Double

    public init(grid: GridSystem = .geohash(precision: 6), steps: Int = 24, alpha: Double = 0.05) {
        self.grid = grid
        self.steps = steps
        self.alpha = alpha
    }

    /// The cells in words, as the page and the progress name them: `geohash-6` (as they always
    /// have) or the grid's label, `H3 resolution 7`.
    public var cellsName: String {
        if let p = grid.geohashPrecision { return "geohash-\(p)" }
        return grid.label
    }

    /// Why the parameters are unusable, nil when they are fine.
    public var problem: String? {
        switch grid {
        case .geohash(let p) where !(1...Geohash.maxPrecision).contains(p):
            return "--ehsa-precision must be 1…12, got \(p)"
        case .h3(let r) where !(0...H3.maxResolution).contains(r):
            return "--ehsa-grid: an H3 resolution must be within 0…15, got \(r)"
        default: break
        }
        if steps < 10 { return "--ehsa-steps must be at least 10, got \(steps)" }
        if steps > 1200 { return "--ehsa-steps must be at most 1200 (100 years), got \(steps)" }
        if !(alpha > 0 && alpha < 1) { return "--ehsa-alpha must be in (0, 1), got \(alpha)" }
        return nil
    }
}

extension HotSpotCube {
    /// The cube of the index's incidents (the query filters applied, none after the as-of):
    /// locations are the cells with at least `minimumIncidents` incidents in (T − N months, T]
    /// (SPEC §13; `--min-cell-count`, SPEC §10). A cell with fewer is not a location and its
    /// incidents count nowhere — not in n, x̄ or S, not in any neighbourhood — so an incident
    /// alone in its cell changes no written row.
    ///
    /// The index holds its incidents sorted by geohash code, so each geohash cell is one
    /// contiguous run; H3 cells are found per incident (latLngToCell) and sorted by index.
    /// `time` is the columns' time the index was built from.
    public init(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters, minimumIncidents: Int = 1,
        threads: Int = 1
    ) {
        precondition(parameters.problem == nil, parameters.problem ?? "")
        var cells: [UInt64] = [], counts: [Int32] = []
        HotSpotCube.forEachLocation(
            index: index, time: time, parameters: parameters,
            minimumIncidents: minimumIncidents, threads: threads
        ) { cell, row in
            cells.append(cell)
            counts.append(contentsOf: row)
        }
        self.init(grid: parameters.grid, steps: parameters.steps, cells: cells, counts: counts)
    }

    /// The cube's exact size — locations and bins (locations × steps) — counted before any bin
    /// is built (SPEC §8: work is bounded before it starts). Geohash: one pass over the index,
    /// memory for one row of N counts. H3: the cell of every incident of the N months, sorted (12
    /// bytes per such incident and the sort's scratch; nothing per bin).
    public static func size(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters,
        minimumIncidents: Int = 1, threads: Int = 1
    ) -> (locations: Int, bins: Int) {
        var locations = 0
        forEachCellTotal(index: index, time: time, parameters: parameters, threads: threads) { _, total, _ in
            if total >= minimumIncidents { locations += 1 }
        }
        return (locations, locations * parameters.steps)
    }

    /// Calls `body` with each location's cell id and its N step counts, in ascending order.
    private static func forEachLocation(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters,
        minimumIncidents: Int, threads: Int, _ body: (UInt64, [Int32]) -> Void
    ) {
        forEachCellTotal(index: index, time: time, parameters: parameters, threads: threads) { cell, total, row in
            if total >= minimumIncidents { body(cell, row) }
        }
    }

    /// Calls `body` with every cell that has an incident in the N months, ascending: its id, its
    /// incidents in the months (> 0) and its N step counts.
    private static func forEachCellTotal(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters, threads: Int,
        _ body: (UInt64, Int, [Int32]) -> Void
    ) {
        let steps = parameters.steps
        let calendar = MonthlySteps(asOf: index.windows.asOf, count: steps)
        var row = [Int32](repeating: 0, count: steps)
        switch parameters.grid {
        case .geohash(let precision):
            let shift = UInt64(64 - 5 * precision)
            index.codes.withUnsafeBufferPointer { codes in
                index.sourceIndex.withUnsafeBufferPointer { source in
                    time.withUnsafeBufferPointer { time in
                        var k = 0
                        while k < codes.count {
                            let cell = codes[k] >> shift
                            var total = 0
                            while k < codes.count && codes[k] >> shift == cell {
                                if let s = calendar.step(of: time[Int(source[k])]) {
                                    row[s - 1] += 1
                                    total += 1
                                }
                                k += 1
                            }
                            if total > 0 {
                                body(cell, total, row)
                                for s in 0..<steps { row[s] = 0 }
                            }
                        }
                    }
                }
            }
        case .h3(let resolution):
            let (cells, cellSteps) = h3CellSteps(
                index: index, time: time, calendar: calendar, resolution: resolution, threads: threads)
            var k = 0
            while k < cells.count {
                let cell = cells[k], start = k
                while k < cells.count && cells[k] == cell {
                    row[Int(cellSteps[k]) - 1] += 1
                    k += 1
                }
                body(cell, k - start, row)
                for s in 0..<steps { row[s] = 0 }
            }
        }
    }

    /// The H3 cell (latLngToCell at the resolution) and step (1…N) of every incident in the N
    /// months, sorted by cell; computed in parts on `threads` cores.
    static func h3CellSteps(
        index: IncidentIndex, time: [Int64], calendar: MonthlySteps, resolution: Int, threads: Int
    ) -> (cells: [UInt64], steps: [UInt32]) {
        let chunks = IncidentIndex.chunks(index.count, threads)
        let lat = index.lat, lon = index.lon, source = index.sourceIndex
        let parts = Concurrency.map(chunks.count) { c in
            var cells: [UInt64] = [], steps: [UInt32] = []
            for k in chunks[c] {
                guard let s = calendar.step(of: time[Int(source[k])]) else { continue }
                cells.append(H3.cell(lat: lat[k], lon: lon[k], resolution: resolution).index)
                steps.append(UInt32(s))
            }
            return (cells, steps)
        }
        var cells = parts.flatMap(\.0), steps = parts.flatMap(\.1)
        RadixSort.sort(keys: &cells, values: &steps, threads: threads)
        return (cells, steps)
    }
}
