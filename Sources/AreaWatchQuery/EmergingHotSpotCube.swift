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
    /// locations are the cells with at least one incident in (T − N months, T].
    ///
    /// The index holds its incidents sorted by geohash code, so each cell at the cube's precision
    /// is one contiguous run; `time` is the columns' time the index was built from.
    public init(index: IncidentIndex, time: [Int64], parameters: EmergingHotSpotParameters) {
        precondition(parameters.problem == nil, parameters.problem ?? "")
        let steps = parameters.steps, precision = parameters.precision
        let calendar = MonthlySteps(asOf: index.windows.asOf, count: steps)
        let shift = UInt64(64 - 5 * precision)
        var cells: [UInt64] = [], counts: [Int32] = []
        var row = [Int32](repeating: 0, count: steps)
        index.codes.withUnsafeBufferPointer { codes in
            index.sourceIndex.withUnsafeBufferPointer { source in
                time.withUnsafeBufferPointer { time in
                    var k = 0
                    while k < codes.count {
                        let cell = codes[k] >> shift
                        var any = false
                        while k < codes.count && codes[k] >> shift == cell {
                            if let s = calendar.step(of: time[Int(source[k])]) { row[s - 1] += 1; any = true }
                            k += 1
                        }
                        if any {
                            cells.append(cell)
                            counts.append(contentsOf: row)
                            for s in 0..<steps { row[s] = 0 }
                        }
                    }
                }
            }
        }
        self.init(precision: precision, steps: steps, cells: cells, counts: counts)
    }
}
