import Dispatch

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
        if q <= alpha && current > previous {
            self = .rise
        } else if q <= alpha && current < previous {
            self = .fall
        } else {
            self = .none
        }
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
    /// `previousDays`, BH q over all the rows, direction at `alpha`.
    ///
    /// Measured need (1M incidents, 127k grid cells at precision 7): one E-test per row costs as
    /// much as the grid itself. Here the rows are radix-sorted by (total, current): each distinct
    /// pair (17.7k there) gets one E-test, the pairs of one total share their Poisson tables, the
    /// totals are spread over `threads` cores, and BH's ascending order comes from a radix sort of
    /// the p-values' bit patterns (non-negative doubles order as their bits do).
    public static func of(
        current: [Int], previous: [Int], currentDays: Double, previousDays: Double,
        alpha: Double, threads: Int = 2
    ) -> [ChangeSignificance] {
        precondition(current.count == previous.count)
        let m = current.count
        guard m > 0 else { return [] }
        // Rows sorted by (total, current): equal pairs are adjacent, and pairs of one total share
        // their Poisson tables. Counts beyond 31 bits are evaluated on their own.
        var keys = [UInt64](repeating: 0, count: m), rows = (0..<m).map { UInt32($0) }
        var wide: [Int] = []
        for i in 0..<m {
            let k1 = current[i], k2 = previous[i]
            if k1 >= 0 && k2 >= 0 && k1 < 1 << 30 && k2 < 1 << 30 {
                keys[i] = UInt64(k1 + k2) << 32 | UInt64(k1)
            } else {
                keys[i] = .max
                wide.append(i)
            }
        }
        RadixSort.sort(keys: &keys, values: &rows, threads: threads)
        // Per total: its distinct first counts, and where each one's rows start.
        var totals: [(total: Int, firsts: [Int], starts: [Int])] = []
        for i in 0..<m where keys[i] != .max && (i == 0 || keys[i] != keys[i - 1]) {
            let total = Int(keys[i] >> 32), first = Int(keys[i] & 0xFFFF_FFFF)
            if totals.last?.total != total { totals.append((total, [], [])) }
            totals[totals.count - 1].firsts.append(first)
            totals[totals.count - 1].starts.append(i)
        }
        let groups = totals
        var groupP = [[Double]](repeating: [], count: groups.count)
        groupP.withUnsafeMutableBufferPointer { out in
            let output = UnsafeMutableSendableBuffer(out)
            let work = max(1, min(threads, groups.count / 64))
            DispatchQueue.concurrentPerform(iterations: work) { part in
                for g in stride(from: part, to: groups.count, by: work) {
                    output[g] = PoissonETest.pValues(
                        total: groups[g].total, firsts: groups[g].firsts,
                        n1: currentDays, n2: previousDays)
                }
            }
        }
        var p = [Double](repeating: 0, count: m)
        for (g, group) in groups.enumerated() {
            for (d, start) in group.starts.enumerated() {
                var i = start
                while i < m && keys[i] == keys[start] {
                    p[Int(rows[i])] = groupP[g][d]
                    i += 1
                }
            }
        }
        for i in wide { p[i] = PoissonETest.pValue(k1: current[i], n1: currentDays, k2: previous[i], n2: previousDays) }

        let q = BenjaminiHochberg.adjustNonNegative(p, threads: threads)
        return (0..<m).map {
            ChangeSignificance(
                p: p[$0], q: q[$0],
                change: ChangeDirection(current: current[$0], previous: previous[$0], q: q[$0], alpha: alpha))
        }
    }
}

extension BenjaminiHochberg {
    /// `adjust` for p-values ≥ 0, ordered by a radix sort of their bit patterns (on `threads` cores).
    public static func adjustNonNegative(_ p: [Double], threads: Int = 1) -> [Double] {
        let m = p.count
        guard m > 0 else { return [] }
        precondition(p.allSatisfy { $0 >= 0 }, "Benjamini–Hochberg: p-values must be ≥ 0")
        var keys = p.map(\.bitPattern), order = (0..<m).map { UInt32($0) }
        RadixSort.sort(keys: &keys, values: &order, threads: threads)
        var q = [Double](repeating: 0, count: m)
        var running = Double.infinity
        for rank in stride(from: m, through: 1, by: -1) {
            let i = Int(order[rank - 1])
            running = min(running, p[i] / (Double(rank) / Double(m)))
            q[i] = min(running, 1)
        }
        return q
    }
}

extension TimeWindows {
    /// Lengths of the current and previous windows in days (365 or 366): the E-test's exposures.
    public var windowDays: (current: Double, previous: Double) {
        (Double(asOf - currentStart) / 86_400, Double(currentStart - previousStart) / 86_400)
    }
}
