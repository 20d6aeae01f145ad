extension UTCTime {
    /// Calendar subtraction of whole months in UTC, the day clamped to the target month's length
    /// (2024-03-31 − 1 month = 2024-02-29); the time of day is kept.
    public static func subtractingMonths(_ months: Int, from t: Int64) -> Int64 {
        var c = civil(t)
        let index = c.year * 12 + (c.month - 1) - months
        c.year = Int(UTCTime.floorDivide(Int64(index), 12))
        c.month = index - c.year * 12 + 1
        c.day = min(c.day, daysInMonth(year: c.year, month: c.month))
        return epochSeconds(c)
    }
}

/// The N monthly steps ending at an as-of instant T (SPEC §13): step s = 1…N covers
/// (T − (N−s+1) months, T − (N−s) months], each bound computed from T itself.
public struct MonthlySteps: Sendable, Hashable {
    public let asOf: Int64
    public let count: Int
    /// bounds[s] = T − (N − s) months for s = 0…N: step s is (bounds[s−1], bounds[s]].
    public let bounds: [Int64]

    public init(asOf: Int64, count: Int) {
        precondition(count >= 1)
        self.asOf = asOf
        self.count = count
        bounds = (0...count).map { UTCTime.subtractingMonths(count - $0, from: asOf) }
    }

    /// The step (1…N) holding an instant, nil outside (T − N months, T].
    @inline(__always)
    public func step(of t: Int64) -> Int? {
        guard t > bounds[0] && t <= bounds[count] else { return nil }
        // First s with t ≤ bounds[s].
        var lo = 1, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if t <= bounds[mid] { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
