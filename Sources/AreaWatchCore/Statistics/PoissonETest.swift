#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two-sided E-test for the ratio of two Poisson rates (Krishnamoorthy & Thomson 2004), d = 0:
/// SPEC §12's `p_change`, the number `scipy.stats.poisson_means_test(k1, n1, k2, n2)` computes.
///
/// SciPy sums P(X1 = x1)·P(X2 = x2) over the (x1, x2) grid whose Poisson ranges are truncated at
/// ppf(1e-10) … ppf(1 − 1e-16), keeping the pairs whose pivot |t(x1, x2)| ≥ c = |t(k1, k2)|. For a
/// fixed x1, t falls strictly as x2 grows, so the kept x2 are two tails, x2 ≤ L(x1) and x2 ≥ U(x1),
/// whose continuous bounds are the two roots of t(x1, ·)² = c², a quadratic in x2/n2. Prefix and
/// suffix sums of the x2 probabilities then replace the inner sum: O(range) work instead of
/// O(range²). Where a root lies within 1e-6 of an integer (a tie in exact arithmetic, or nearly),
/// SciPy's own floating-point pivot decides, evaluated with its operations in its order.
public enum PoissonETest {
    /// The p-value; 1 when k1 + k2 = 0. Exposures n1, n2 > 0 (days), counts ≥ 0.
    public static func pValue(k1: Int, n1: Double, k2: Int, n2: Double) -> Double {
        pValue(k1: k1, n1: n1, k2: k2, n2: n2, skipZeroTerms: true)
    }

    /// `skipZeroTerms` false only in tests, which check that skipping the zero terms changes no bit.
    static func pValue(k1: Int, n1: Double, k2: Int, n2: Double, skipZeroTerms: Bool) -> Double {
        precondition(k1 >= 0 && k2 >= 0 && n1 > 0 && n2 > 0, "E-test: counts ≥ 0 and exposures > 0")
        // λ̂ = (k1 + k2) / (n1 + n2); SciPy returns p = 1 when it is ≤ 0.
        let lambda = Double(k1 + k2) / (n1 + n2)
        guard lambda > 0 else { return 1 }
        let variance = Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)
        let c = abs((Double(k1) / n1 - Double(k2) / n2) / variance.squareRoot())
        let mu1 = n1 * lambda, mu2 = n2 * lambda
        return TruncatedPoisson.with(mean: mu1) { lower1, p1 in
            // Equal windows give one distribution twice.
            if mu2 == mu1 {
                return tailSums(p1: p1, lower1: lower1, p2: p1, lower2: lower1, n1: n1, n2: n2, c: c, skipZeroTerms: skipZeroTerms)
            }
            return TruncatedPoisson.with(mean: mu2) { lower2, p2 in
                tailSums(p1: p1, lower1: lower1, p2: p2, lower2: lower2, n1: n1, n2: n2, c: c, skipZeroTerms: skipZeroTerms)
            }
        }
    }

    /// p-values of the pairs (k1, total − k1) for each k1 of `firsts`: pairs with one total share
    /// λ̂ and so both Poisson tables, which are built once (a grid has far fewer distinct totals
    /// than distinct pairs).
    public static func pValues(total: Int, firsts: [Int], n1: Double, n2: Double) -> [Double] {
        precondition(total >= 0 && n1 > 0 && n2 > 0 && firsts.allSatisfy { $0 >= 0 && $0 <= total })
        let lambda = Double(total) / (n1 + n2)
        guard lambda > 0 else { return firsts.map { _ in 1 } }
        func observed(_ k1: Int) -> Double {
            let k2 = total - k1
            let variance = Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)
            return abs((Double(k1) / n1 - Double(k2) / n2) / variance.squareRoot())
        }
        let mu1 = n1 * lambda, mu2 = n2 * lambda
        // Pairs of one total share p2, so its prefix and suffix sums too (the same bits as summed
        // per pair): built once when several pairs will read them.
        func each(_ p1: UnsafeBufferPointer<Double>, _ lower1: Int, _ p2: UnsafeBufferPointer<Double>, _ lower2: Int) -> [Double] {
            guard firsts.count > 1 else {
                return firsts.map { tailSums(p1: p1, lower1: lower1, p2: p2, lower2: lower2, n1: n1, n2: n2, c: observed($0)) }
            }
            return TailSums.with(p2) { sums in
                firsts.map { tailSums(p1: p1, lower1: lower1, p2: p2, lower2: lower2, n1: n1, n2: n2, c: observed($0), shared: sums) }
            }
        }
        return TruncatedPoisson.with(mean: mu1) { lower1, p1 in
            if mu2 == mu1 { return each(p1, lower1, p1, lower1) }
            return TruncatedPoisson.with(mean: mu2) { lower2, p2 in each(p1, lower1, p2, lower2) }
        }
    }

    /// SciPy's pivot t(x1, x2) = (x1/n1 − x2/n2) / √(x1/n1/n1 + x2/n2/n2), NaN at (0, 0).
    @inline(__always)
    static func pivot(_ x1: Int, _ x2: Int, _ n1: Double, _ n2: Double) -> Double {
        let a = Double(x1) / n1, b = Double(x2) / n2
        return (a - b) / (a / n1 + b / n2).squareRoot()
    }

    /// The last index of `range` where `holds` is true, or `range.lowerBound - 1`, for a
    /// predicate true on a prefix of the range.
    @inline(__always)
    static func lastIndex(in range: ClosedRange<Int>, where holds: (Int) -> Bool) -> Int {
        var low = range.lowerBound - 1, high = range.upperBound  // holds(low) (or before), answer ≤ high
        if holds(high) { return high }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if holds(middle) { low = middle } else { high = middle }
        }
        return low
    }

    private static func tailSums(p1: UnsafeBufferPointer<Double>, lower1: Int,
                                 p2: UnsafeBufferPointer<Double>, lower2: Int,
                                 n1: Double, n2: Double, c: Double, skipZeroTerms: Bool = true,
                                 shared: TailSums? = nil) -> Double {
        let count2 = p2.count, count1 = p1.count
        // With a = x1/n1, b = x2/n2 and h = c²/(2·n2): t = ±c ⇔ (a − b)² = c²·(a/n1 + b/n2)
        // ⇔ b = a + h ∓ √(α·a + h²), α = c²/n1 + c²/n2. The roots only locate the bounds (SciPy's
        // pivot decides within 1e-6 of an integer), so a reciprocal stands in for x1/n1.
        let c2 = c * c, h = c2 / n2 / 2, alpha = c2 / n1 + c2 / n2, h2 = h * h, inverseN1 = 1 / n1
        @inline(__always) func bounds(_ x1: Int) -> (low: Int, high: Int) {
            let a = Double(x1) * inverseN1
            let root = (alpha * a + h2).squareRoot()
            return (bound(x1, n2 * (a + h - root), n1: n1, n2: n2, c: c, upper: false),
                    bound(x1, n2 * (a + h + root), n1: n1, n2: n2, c: c, upper: true))
        }
        // Kept at x1: x2 ≤ low or x2 ≥ high, the mass Σ p2 over both tails: prefix[lowIndex] +
        // suffix[highIndex] with prefix[i] = Σ p2[0..<i], suffix[i] = Σ p2[i...] (both tails summed
        // without cancellation), or all of p2 where the tails meet (c near 0).
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count1) { indices in
            let lowIndex = indices.baseAddress!, highIndex = lowIndex + count1
            let meet = -1
            var first = 0
            if lower1 == 0 {
                // t(0, x2) = −√x2 for x2 > 0 and NaN at (0, 0), never kept: only an upper tail.
                let high = max(1, bound(0, n2 * (2 * h), n1: n1, n2: n2, c: c, upper: true))
                lowIndex[0] = 0
                highIndex[0] = max(0, min(count2, high - lower2))
                first = 1
            }
            let last = count1 - 1
            // Where both kept tails of x2 lie outside the table, the term is exactly 0 (prefix[0] +
            // suffix[count2]): skipping those x1 leaves the sum bit for bit the same. The upper
            // root grows with x1 and the lower one, past its dip below 0, too, so the zero terms
            // are one run (upperEnd, lowerStart): found by bisection, then widened while a
            // neighbour still has a term (a rounding blip at the edge cannot drop one).
            var upperEnd = last, lowerStart = first
            if skipZeroTerms && last - first > 16 {
                let upper2 = lower2 + count2 - 1
                upperEnd = PoissonETest.lastIndex(in: first...last) { bounds(lower1 + $0).high <= upper2 }
                while upperEnd < last && bounds(lower1 + upperEnd + 1).high <= upper2 { upperEnd += 1 }
                lowerStart = PoissonETest.lastIndex(in: first...last) { bounds(lower1 + $0).low < lower2 } + 1
                while lowerStart > first && bounds(lower1 + lowerStart - 1).low >= lower2 { lowerStart -= 1 }
                if lowerStart <= upperEnd + 1 { upperEnd = last }  // no gap
            }
            let terms = upperEnd < last ? [first..<(upperEnd + 1), lowerStart..<(last + 1)] : [first..<(last + 1)]
            // The bounds first; then only the prefix and suffix sums they reach are added up (far
            // apart counts reach a few entries at the ends of p2, not all of it).
            var prefixEnd = 0, suffixStart = count2, needsAll = false
            if first == 1 { suffixStart = highIndex[0] }
            for range in terms {
                for i in range {
                    let (low, high) = bounds(lower1 + i)
                    if high <= low + 1 {
                        lowIndex[i] = meet
                        needsAll = true
                        continue
                    }
                    lowIndex[i] = min(count2, max(0, low - lower2 + 1))
                    highIndex[i] = max(0, min(count2, high - lower2))
                    prefixEnd = max(prefixEnd, lowIndex[i])
                    suffixStart = min(suffixStart, highIndex[i])
                }
            }
            if needsAll { prefixEnd = count2 }
            @inline(__always) func sum(prefix: UnsafePointer<Double>, suffix: UnsafePointer<Double>) -> Double {
                var total = 0.0
                if first == 1 { total = p1[0] * (prefix[0] + suffix[highIndex[0]]) }
                for range in terms {
                    for i in range {
                        let low = lowIndex[i]
                        // prefix[count2] (all of p2) is only summed when needsAll made prefixEnd = count2.
                        total += p1[i] * (low == meet ? prefix[count2] : prefix[low] + suffix[highIndex[i]])
                    }
                }
                // SciPy's sum can pass 1 by rounding (1 + 3e-15 where every pair is kept); a
                // p-value is at most 1, and the cap moves it by far less than the 1e-9 it must
                // agree to.
                return min(total, 1)
            }
            if let shared { return sum(prefix: shared.prefix, suffix: shared.suffix) }
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (count2 + 1)) { sums in
                let prefix = sums.baseAddress!, suffix = prefix + (count2 + 1)
                TailSums.fill(prefix: prefix, upTo: prefixEnd, suffix: suffix, downTo: suffixStart, p2)
                return sum(prefix: prefix, suffix: suffix)
            }
        }
    }

    /// The last x2 with t ≥ c (`upper` false) or the first x2 with t ≤ −c (`upper` true), given the
    /// root `y` in x2 units; SciPy's pivot decides when y is within 1e-6 of an integer.
    @inline(__always)
    private static func bound(_ x1: Int, _ y: Double, n1: Double, n2: Double, c: Double, upper: Bool) -> Int {
        // Beyond every range in play (x2 ≥ 0 and far below 2⁵³): no rounding call needed there.
        if y < -0.5 { return upper ? 0 : -1 }
        if y > 1e15 { return upper ? Int.max / 2 : Int(1e15) }
        let down = Int(y + 1) - 1  // floor: y + 1 > 0 truncates down
        let fraction = y - Double(down)
        if abs(fraction - 0.5) < 0.5 - 1e-6 { return upper ? down + 1 : down }
        let m = fraction < 0.5 ? down : down + 1
        if upper { return pivot(x1, m, n1, n2) <= -c ? m : m + 1 }
        return pivot(x1, m, n1, n2) >= c ? m : m - 1
    }
}

/// prefix[i] = Σ p[0..<i] and suffix[i] = Σ p[i...] of a Poisson table, summed in one order
/// (both tails without cancellation) whoever builds them.
struct TailSums {
    let prefix: UnsafePointer<Double>
    let suffix: UnsafePointer<Double>

    /// The whole sums of `p`, valid inside `body`.
    static func with<R>(_ p: UnsafeBufferPointer<Double>, _ body: (TailSums) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (p.count + 1)) { sums in
            let prefix = sums.baseAddress!, suffix = prefix + (p.count + 1)
            fill(prefix: prefix, upTo: p.count, suffix: suffix, downTo: 0, p)
            return body(TailSums(prefix: prefix, suffix: suffix))
        }
    }

    /// prefix[0...prefixEnd] and suffix[suffixStart...count].
    @inline(__always)
    static func fill(prefix: UnsafeMutablePointer<Double>, upTo prefixEnd: Int, suffix: UnsafeMutablePointer<Double>,
                     downTo suffixStart: Int, _ p: UnsafeBufferPointer<Double>) {
        // Running sums in registers: through memory, each step would wait on the last store.
        var run = 0.0
        for i in 0..<prefixEnd { prefix[i] = run; run += p[i] }
        prefix[prefixEnd] = run
        run = 0
        suffix[p.count] = 0
        var i = p.count - 1
        while i >= suffixStart { run += p[i]; suffix[i] = run; i -= 1 }
    }
}

/// Poisson probabilities over SciPy's truncated range ppf(1e-10) … ppf(1 − 1e-16) of a mean μ,
/// computed from the mode outward by the recurrence P(x ± 1) = P(x)·(μ/(x+1) or x/μ), the mode's
/// term in log space.
enum TruncatedPoisson {
    /// SciPy's bounds: the smallest x with CDF ≥ 1e-10, and the smallest x with CDF ≥ the double
    /// nearest 1 − 1e-16 (1 − 2⁻⁵³; a computed CDF 1 − SF rounds up to it while SF ≤ 1.5·2⁻⁵³).
    static let lowerQuantile = 1e-10
    static let upperSurvival = 1.5 * 0x1p-53

    /// Calls `body` with the range's first x and P(X = x) for x = lower, lower + 1, ….
    static func with<R>(mean mu: Double, _ body: (Int, UnsafeBufferPointer<Double>) -> R) -> R {
        let mode = Int(mu)  // floor: μ > 0
        // Walk lengths (Chernoff / Bernstein tail bounds): the walks below stop well before them.
        let spread = mu.squareRoot()
        let below = min(mode, Int(10 * spread) + 2)
        let above = Int(14 * spread) + 64
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: below + above + 1) { buffer in
            let base = mode - below  // buffer[x − base] = P(X = x)
            let p = buffer.baseAddress!
            let logMode = mode == 0 ? -mu : Double(mode) * log(mu) - lgamma(Double(mode + 1)) - mu
            p[below] = exp(logMode)

            // Downward until the rest of the lower tail is negligible next to 1e-10 (below x the
            // terms fall at least geometrically with ratio x/μ), then the CDF from the far end.
            let inverseMu = 1 / mu
            var x = mode
            var term = p[below]
            while x > base {
                let r = Double(x) * inverseMu
                term *= r
                // The rest is below term·r/(1 − r): stop when it is under 1e-8 of the quantile.
                if term * r < 1e-18 * (1 - r) { break }
                x -= 1
                p[x - base] = term
            }
            var lower = mode, cdf = 0.0
            for v in x...mode {
                cdf += p[v - base]
                if cdf >= lowerQuantile { lower = v; break }
            }

            // Upward until the rest of the upper tail is far below 2⁻⁵³, then the smallest x with
            // SF(x) = Σ_{j>x} P(j) ≤ the bound, walking down from the far end.
            x = mode
            term = p[below]
            while x - base < below + above {
                term *= mu / Double(x + 1)
                // Beyond the mode the ratio μ/(x+1) < 1 keeps falling: the rest is below
                // term·r/(1 − r) < term·(x+1)/(x+1−μ); stop far below 2⁻⁵³.
                if Double(x + 1) > mu && term * Double(x + 1) < 1e-22 * (Double(x + 1) - mu) { break }
                x += 1
                p[x - base] = term
            }
            var upper = x, survival = 0.0
            while upper > mode {
                survival += p[upper - base]  // now SF(upper − 1)
                if survival > upperSurvival { break }
                upper -= 1
            }
            return body(lower, UnsafeBufferPointer(start: p + (lower - base), count: upper - lower + 1))
        }
    }
}
