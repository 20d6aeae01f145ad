/// The two-sided E-test for the ratio of two Poisson rates (Krishnamoorthy & Thomson 2004), d = 0:
/// SPEC §12's `p_change`, the number `scipy.stats.poisson_means_test(k1, n1, k2, n2)` computes.
///
/// SciPy sums P(X1 = x1)·P(X2 = x2) over the (x1, x2) grid whose Poisson ranges are truncated at
/// ppf(1e-10) … ppf(1 − 1e-16), keeping the pairs whose pivot |t(x1, x2)| ≥ c = |t(k1, k2)|. For a
/// fixed x1, t falls strictly as x2 grows, so the kept x2 are two tails, x2 ≤ low(x1) and
/// x2 ≥ high(x1) (`KeptTails`). Prefix and suffix sums of the x2 probabilities then replace the
/// inner sum: O(range) work instead of O(range²).
public enum PoissonETest {
    /// The p-value; 1 when k1 + k2 = 0. Exposures n1, n2 > 0 (days), counts ≥ 0.
    public static func pValue(k1: Int, n1: Double, k2: Int, n2: Double) -> Double {
        pValue(k1: k1, n1: n1, k2: k2, n2: n2, skipZeroTerms: true)
    }

    /// `skipZeroTerms` false only in tests, which check that skipping the zero terms (and summing
    /// the one-bound runs beside them) changes no bit.
    static func pValue(k1: Int, n1: Double, k2: Int, n2: Double, skipZeroTerms: Bool) -> Double {
        precondition(k1 >= 0 && k2 >= 0 && n1 > 0 && n2 > 0, "E-test: counts ≥ 0 and exposures > 0")
        // λ̂ = (k1 + k2) / (n1 + n2); SciPy returns p = 1 when it is ≤ 0.
        let lambda = Double(k1 + k2) / (n1 + n2)
        guard lambda > 0 else { return 1 }
        let variance = Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)
        let c = abs((Double(k1) / n1 - Double(k2) / n2) / variance.squareRoot())
        let tails = KeptTails(n1: n1, n2: n2, c: c)
        let mu1 = n1 * lambda, mu2 = n2 * lambda
        // Equal windows give one distribution twice.
        if mu2 == mu1 {
            return TruncatedPoisson.with(mean: mu1) { lower1, p1 in
                tailSums(p1: p1, lower1: lower1, p2: p1, lower2: lower1, tails: tails, skipZeroTerms: skipZeroTerms)
            }
        }
        return TruncatedPoisson.with(means: mu1, mu2) { lower1, p1, lower2, p2 in
            tailSums(p1: p1, lower1: lower1, p2: p2, lower2: lower2, tails: tails, skipZeroTerms: skipZeroTerms)
        }
    }

    /// p-values of the pairs (k1, total − k1) for each k1 of `firsts`: pairs with one total share
    /// λ̂ and so both Poisson tables, which are built once (a grid has far fewer distinct totals
    /// than distinct pairs).
    public static func pValues(total: Int, firsts: [Int], n1: Double, n2: Double) -> [Double] {
        precondition(total >= 0 && n1 > 0 && n2 > 0 && firsts.allSatisfy { $0 >= 0 && $0 <= total })
        let lambda = Double(total) / (n1 + n2)
        guard lambda > 0 else { return firsts.map { _ in 1 } }
        func tails(_ k1: Int) -> KeptTails {
            let k2 = total - k1
            let variance = Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)
            return KeptTails(n1: n1, n2: n2, c: abs((Double(k1) / n1 - Double(k2) / n2) / variance.squareRoot()))
        }
        let mu1 = n1 * lambda, mu2 = n2 * lambda
        // Pairs of one total share p2, so its prefix and suffix sums too (the same bits as summed
        // per pair): built once when several pairs will read them.
        func each(_ p1: Span<Double>, _ lower1: Int, _ p2: Span<Double>, _ lower2: Int) -> [Double] {
            var values: [Double] = []
            values.reserveCapacity(firsts.count)
            guard firsts.count > 1 else {
                for k1 in firsts {
                    values.append(tailSums(p1: p1, lower1: lower1, p2: p2, lower2: lower2, tails: tails(k1)))
                }
                return values
            }
            return TailSums.with(p2) { prefix, suffix in
                for k1 in firsts {
                    let kept = tails(k1)
                    let runs = Runs(p1: p1, lower1: lower1, p2: p2, lower2: lower2, tails: kept, skipZeroTerms: true)
                    values.append(
                        sum(
                            p1: p1, lower1: lower1, count2: p2.count, lower2: lower2, tails: kept, runs: runs,
                            prefix: prefix, suffix: suffix, suffixStart: 0, prefixEnd: p2.count)!)
                }
                return values
            }
        }
        if mu2 == mu1 { return TruncatedPoisson.with(mean: mu1) { lower1, p1 in each(p1, lower1, p1, lower1) } }
        return TruncatedPoisson.with(means: mu1, mu2) { lower1, p1, lower2, p2 in each(p1, lower1, p2, lower2) }
    }

    /// The last index of `range` where `holds` is true, or `range.lowerBound - 1`, for a
    /// predicate true on a prefix of the range: galloping from `guess` to a bracket, then
    /// bisection (two calls of `holds` when the guess is right).
    @inline(__always)
    static func lastIndex(in range: ClosedRange<Int>, near guess: Double, where holds: (Int) -> Bool) -> Int {
        let middle = range.lowerBound + (range.upperBound - range.lowerBound) / 2
        let start = guess.isFinite ? Int(min(max(guess, Double(range.lowerBound)), Double(range.upperBound))) : middle
        // holds(low) (or low is before the range); not holds(high) (or high is after it).
        var low = range.lowerBound - 1, high = range.upperBound + 1, step = 1
        if holds(start) {
            low = start
            while low + step <= range.upperBound {
                if holds(low + step) {
                    low += step
                    step *= 2
                } else {
                    high = low + step
                    break
                }
            }
        } else {
            high = start
            while high - step >= range.lowerBound {
                if holds(high - step) {
                    low = high - step
                    break
                } else {
                    high -= step
                    step *= 2
                }
            }
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if holds(middle) { low = middle } else { high = middle }
        }
        return low
    }

    /// Σ over x1 of P(x1)·(the mass of p2 over both kept tails of x2): prefix[low − lower2 + 1] +
    /// suffix[high − lower2] with prefix[i] = Σ p2[0..<i], suffix[i] = Σ p2[i...] (both tails
    /// summed without cancellation), or all of p2, prefix[count2], where the tails meet (c near 0).
    private static func tailSums(
        p1: Span<Double>, lower1: Int, p2: Span<Double>, lower2: Int, tails: KeptTails, skipZeroTerms: Bool = true
    ) -> Double {
        let runs = Runs(p1: p1, lower1: lower1, p2: p2, lower2: lower2, tails: tails, skipZeroTerms: skipZeroTerms)
        let count2 = p2.count, last = p1.count - 1
        @inline(__always) func highAt(_ i: Int) -> Int { max(0, min(count2, tails.high(lower1 &+ i) &- lower2)) }
        @inline(__always) func lowAt(_ i: Int) -> Int { min(count2, max(0, tails.low(lower1 &+ i) &- lower2 &+ 1)) }
        // The bounds grow with x1: the sums reach furthest at the runs' ends.
        let firstWithHigh = runs.first < min(runs.upperEnd + 1, last + 1) ? runs.first : nil
        let suffixStart = min(runs.first == 1 ? runs.firstHigh : count2, firstWithHigh.map(highAt) ?? count2)
        let lastWithLow = max(runs.lowerStart, runs.first) <= last ? last : nil
        // Where the tails can meet, a meeting x1 needs all of p2.
        let prefixEnd = tails.tailsCanMeet ? count2 : lastWithLow.map(lowAt) ?? 0
        let total = TailSums.withSums(count: count2) { prefix, suffix in
            TailSums.fill(prefix: &prefix, upTo: prefixEnd, suffix: &suffix, downTo: suffixStart, p2)
            return sum(
                p1: p1, lower1: lower1, count2: count2, lower2: lower2, tails: tails, runs: runs,
                prefix: prefix.span, suffix: suffix.span, suffixStart: suffixStart, prefixEnd: prefixEnd)
        }
        if let total { return total }
        // A bound outside the sums prepared from the runs' ends: with the whole sums none is.
        return TailSums.with(p2) { prefix, suffix in
            sum(
                p1: p1, lower1: lower1, count2: count2, lower2: lower2, tails: tails, runs: runs,
                prefix: prefix, suffix: suffix, suffixStart: 0, prefixEnd: count2)!
        }
    }

    /// The runs of x1 by the kept tails of x2: up to `lowerStart` the lower tail of x2 lies below
    /// the table (only high(x1) is needed), past `upperEnd` the upper tail lies above it (only
    /// low(x1)), between them both bounds count; far apart counts, most pairs at city counts, have
    /// a gap of zero terms instead.
    struct Runs {
        var first = 0, firstHigh = 0, upperEnd: Int, lowerStart: Int

        init(p1: Span<Double>, lower1: Int, p2: Span<Double>, lower2: Int, tails: KeptTails, skipZeroTerms: Bool) {
            let count2 = p2.count, count1 = p1.count
            if lower1 == 0 {
                // t(0, x2) = −√x2 for x2 > 0 and NaN at (0, 0), never kept: only an upper tail.
                firstHigh = max(0, min(count2, max(1, tails.highAtZero()) - lower2))
                first = 1
            }
            let last = count1 - 1
            // Where both kept tails of x2 lie outside the table, the term is exactly 0 (prefix[0] +
            // suffix[count2]): skipping those x1 leaves the sum bit for bit the same. The upper
            // root grows with x1 and the lower one, past its dip below 0, too, so the zero terms
            // are one run (upperEnd, lowerStart): searched from where the roots cross the table's
            // ends (two bound evaluations each when that guess is right).
            upperEnd = last
            lowerStart = first
            if skipZeroTerms && last - first > 16 {
                let upper2 = lower2 + count2 - 1
                let guessHigh = tails.x1WhereHighReaches(Double(upper2) + 1) - Double(lower1)
                upperEnd = PoissonETest.lastIndex(in: first...last, near: guessHigh) {
                    tails.high(lower1 + $0) <= upper2
                }
                let guessLow = tails.x1WhereLowReaches(Double(lower2)) - Double(lower1) - 1
                lowerStart =
                    PoissonETest.lastIndex(in: first...last, near: guessLow) { tails.low(lower1 + $0) < lower2 } + 1
            }
        }
    }

    /// The sum by the runs of x1: one root per x1 where one bound is needed, and the sum in the
    /// same pass, over x1 in increasing order. nil when a bound falls outside the tail sums
    /// prepared (`suffixStart…`, `…prefixEnd`; the bounds are monotone in x1, so never in practice;
    /// never with the whole sums).
    private static func sum(
        p1: Span<Double>, lower1: Int, count2: Int, lower2: Int, tails: KeptTails, runs: Runs,
        prefix: Span<Double>, suffix: Span<Double>, suffixStart: Int, prefixEnd: Int
    ) -> Double? {
        let first = runs.first, last = p1.count - 1
        let upperOnly = first..<min(runs.upperEnd + 1, runs.lowerStart)
        let both = runs.lowerStart..<max(runs.lowerStart, runs.upperEnd + 1) // empty when there is a gap
        let lowerOnly = max(runs.upperEnd + 1, runs.lowerStart)..<(last + 1)
        // Indices into the sums lie in 0...count2 (clamped below), within both spans.
        precondition(prefix.count > count2 && suffix.count > count2)
        var total = 0.0
        if first == 1 { total = p1[0] * (prefix[unchecked: 0] + suffix[unchecked: runs.firstHigh]) }
        // Where the tails meet (high ≤ low + 1) every x2 is kept: all of p2, prefix[count2].
        // In the one-bound runs that needs the upper tail to cover the whole table (or the
        // lower one): only then is the other bound computed.
        for i in upperOnly {
            let high = tails.high(lower1 &+ i)
            let at = max(0, min(count2, high &- lower2))
            if at < suffixStart { return nil }
            if at == 0 && high <= tails.low(lower1 &+ i) &+ 1 {
                if prefixEnd < count2 { return nil }
                total += p1[unchecked: i] * prefix[unchecked: count2]
            } else {
                total += p1[unchecked: i] * (prefix[unchecked: 0] + suffix[unchecked: at])
            }
        }
        for i in both {
            let (low, high) = tails.both(lower1 &+ i)
            if high <= low &+ 1 {
                if prefixEnd < count2 { return nil }
                total += p1[unchecked: i] * prefix[unchecked: count2]
                continue
            }
            let lowAt = min(count2, max(0, low &- lower2 &+ 1)), highAt = max(0, min(count2, high &- lower2))
            if highAt < suffixStart || lowAt > prefixEnd { return nil }
            total += p1[unchecked: i] * (prefix[unchecked: lowAt] + suffix[unchecked: highAt])
        }
        for i in lowerOnly {
            let low = tails.low(lower1 &+ i)
            let at = min(count2, max(0, low &- lower2 &+ 1))
            if at > prefixEnd { return nil }
            if at == count2 && tails.high(lower1 &+ i) <= low &+ 1 {
                total += p1[unchecked: i] * prefix[unchecked: count2]
            } else {
                total += p1[unchecked: i] * (prefix[unchecked: at] + suffix[unchecked: count2])
            }
        }
        return min(total, 1)
    }
}
