import AreaWatchCore

/// `--ehsa-precision`, `--ehsa-steps`, `--ehsa-alpha` (SPEC §13).
public struct EmergingHotSpotParameters: Sendable, Hashable {
    public var precision: Int
    public var steps: Int
    public var alpha: Double

    public init(precision: Int = 6, steps: Int = 24, alpha: Double = 0.05) {
        self.precision = precision
        self.steps = steps
        self.alpha = alpha
    }

    /// Why the parameters are unusable, nil when they are fine.
    public var problem: String? {
        if !(1...Geohash.maxPrecision).contains(precision) { return "--ehsa-precision must be 1…12, got \(precision)" }
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
    /// The index holds its incidents sorted by geohash code, so each cell at the cube's precision
    /// is one contiguous run; `time` is the columns' time the index was built from.
    public init(index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters, minimumIncidents: Int = 1) {
        precondition(parameters.problem == nil, parameters.problem ?? "")
        var cells: [UInt64] = [], counts: [Int32] = []
        HotSpotCube.forEachLocation(
            index: index, time: time, parameters: parameters,
            minimumIncidents: minimumIncidents
        ) { cell, row in
            cells.append(cell)
            counts.append(contentsOf: row)
        }
        self.init(precision: parameters.precision, steps: parameters.steps, cells: cells, counts: counts)
    }

    /// The cube's exact size — locations and bins (locations × steps) — counted before any of it
    /// is built (SPEC §8: work is bounded before it starts). One pass over the index, memory for
    /// one row of N counts.
    public static func size(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters,
        minimumIncidents: Int = 1
    ) -> (locations: Int, bins: Int) {
        let calendar = MonthlySteps(asOf: index.windows.asOf, count: parameters.steps)
        let shift = UInt64(64 - 5 * parameters.precision)
        let codes = index.codes, source = index.sourceIndex
        var locations = 0, k = 0
        while k < codes.count {
            let cell = codes[k] >> shift
            var total = 0
            while k < codes.count && codes[k] >> shift == cell {
                if calendar.step(of: time[Int(source[k])]) != nil { total += 1 }
                k += 1
            }
            if total > 0 && total >= minimumIncidents { locations += 1 }
        }
        return (locations, locations * parameters.steps)
    }

    /// Calls `body` with each location's cell prefix and its N step counts, in ascending order.
    private static func forEachLocation(
        index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters,
        minimumIncidents: Int, _ body: (UInt64, [Int32]) -> Void
    ) {
        let steps = parameters.steps
        let calendar = MonthlySteps(asOf: index.windows.asOf, count: steps)
        let shift = UInt64(64 - 5 * parameters.precision)
        var row = [Int32](repeating: 0, count: steps)
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
                            if total >= minimumIncidents { body(cell, row) }
                            for s in 0..<steps { row[s] = 0 }
                        }
                    }
                }
            }
        }
    }
}
