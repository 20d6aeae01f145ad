/// Benjamini–Hochberg adjusted p-values (SPEC §12): with p sorted ascending, q(i) = min over j ≥ i
/// of m·p(j)/j, capped at 1 — `statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1]`,
/// computed with its operations (p / (j/m)) so the numbers agree to the last bit.
public enum BenjaminiHochberg {
    /// q-values in the order of `p`. Tied p-values get equal q whatever their order, so the result
    /// is deterministic; NaN is not a p-value and is refused.
    public static func adjust(_ p: [Double]) -> [Double] {
        let m = p.count
        guard m > 0 else { return [] }
        precondition(!p.contains { $0.isNaN }, "Benjamini–Hochberg: NaN p-value")
        // Stable order by p, then by position: the q of a tie is the same whichever comes first.
        let order = (0..<m).sorted { p[$0] != p[$1] ? p[$0] < p[$1] : $0 < $1 }
        var q = [Double](repeating: 0, count: m)
        var running = Double.infinity
        for rank in stride(from: m, through: 1, by: -1) {
            let i = order[rank - 1]
            running = min(running, p[i] / (Double(rank) / Double(m)))
            q[i] = min(running, 1)
        }
        return q
    }

    /// q-values of distinct p-values that occur `count` times each, over m = Σ count tests: what
    /// `adjust` gives every copy, without expanding the copies (a tie group's q is set by its last
    /// rank). `p` must be strictly increasing.
    public static func adjust(distinct p: [Double], counts: [Int]) -> [Double] {
        precondition(p.count == counts.count)
        let m = counts.reduce(0, +)
        var q = [Double](repeating: 0, count: p.count)
        var rank = m, running = Double.infinity
        for g in stride(from: p.count - 1, through: 0, by: -1) {
            precondition(g == 0 || p[g - 1] < p[g], "distinct p-values must be strictly increasing")
            running = min(running, p[g] / (Double(rank) / Double(m)))
            q[g] = min(running, 1)
            rank -= counts[g]
        }
        return q
    }
}

/// Direction of a year-over-year change once its q-value is known (SPEC §12 `change`).
public enum ChangeDirection: String, Sendable, Hashable {
    case rise, fall, none

    /// `rise` / `fall` when q ≤ α and the counts differ that way, else `none`.
    public init(current: Int, previous: Int, q: Double, alpha: Double) {
        if q <= alpha && current > previous { self = .rise }
        else if q <= alpha && current < previous { self = .fall }
        else { self = .none }
    }
}

/// `p_change`, `q_change` and `change` for the rows of one output (SPEC §12).
public struct ChangeSignificance: Sendable, Hashable {
    public var p: Double
    public var q: Double
    public var change: ChangeDirection

    public init(p: Double, q: Double, change: ChangeDirection) {
        self.p = p
        self.q = q
        self.change = change
    }

    /// One value per (current, previous) row: E-test p over windows of `currentDays` and
    /// `previousDays`, BH q over all the rows, direction at `alpha`. Equal count pairs share one
    /// E-test (a grid repeats them a lot).
    public static func of(current: [Int], previous: [Int], currentDays: Double, previousDays: Double,
                          alpha: Double) -> [ChangeSignificance] {
        precondition(current.count == previous.count)
        var memo: [Int64: Double] = [:]
        let p = zip(current, previous).map { k1, k2 -> Double in
            let key = Int64(k1) << 32 | Int64(k2)
            if k1 < 1 << 31, k2 < 1 << 31, let known = memo[key] { return known }
            let value = PoissonETest.pValue(k1: k1, n1: currentDays, k2: k2, n2: previousDays)
            if k1 < 1 << 31, k2 < 1 << 31 { memo[key] = value }
            return value
        }
        let q = BenjaminiHochberg.adjust(p)
        return p.indices.map {
            ChangeSignificance(p: p[$0], q: q[$0],
                               change: ChangeDirection(current: current[$0], previous: previous[$0], q: q[$0], alpha: alpha))
        }
    }
}

extension TimeWindows {
    /// Lengths of the current and previous windows in days (365 or 366): the E-test's exposures.
    public var windowDays: (current: Double, previous: Double) {
        (Double(asOf - currentStart) / 86_400, Double(currentStart - previousStart) / 86_400)
    }
}
