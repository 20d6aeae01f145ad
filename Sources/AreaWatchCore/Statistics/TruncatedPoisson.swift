#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// prefix[i] = Σ p[0..<i] and suffix[i] = Σ p[i...] of a Poisson table, summed in one order
/// (both tails without cancellation) whoever builds them.
enum TailSums {
    /// The whole sums of `p` (prefix, suffix: `p.count + 1` each), valid inside `body`.
    static func with<R>(_ p: Span<Double>, _ body: (Span<Double>, Span<Double>) -> R) -> R {
        withSums(count: p.count) { prefix, suffix in
            fill(prefix: &prefix, upTo: p.count, suffix: &suffix, downTo: 0, p)
            return body(prefix.span, suffix.span)
        }
    }

    /// Room on the stack for the prefix and suffix sums of `count` probabilities, for `body`.
    @inline(__always)
    static func withSums<R>(count: Int, _ body: (inout MutableSpan<Double>, inout MutableSpan<Double>) -> R) -> R {
        // One allocation for both. Doubles (trivial): every element is written before it is read
        // (`fill`'s ranges).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (count + 1)) { sums in
            var prefix = sums.extracting(0..<(count + 1)).mutableSpan
            var suffix = sums.extracting((count + 1)..<(2 * (count + 1))).mutableSpan
            return body(&prefix, &suffix)
        }
    }

    /// prefix[0...prefixEnd] and suffix[suffixStart...count].
    @inline(__always)
    static func fill(
        prefix: inout MutableSpan<Double>, upTo prefixEnd: Int, suffix: inout MutableSpan<Double>,
        downTo suffixStart: Int, _ p: Span<Double>
    ) {
        precondition(prefixEnd <= p.count && prefix.count > p.count && suffix.count > p.count && suffixStart >= 0)
        // Running sums in registers (through memory, each step would wait on the last store),
        // the two chains of additions side by side while both have steps to go.
        var front = 0.0, back = 0.0
        var i = 0, j = p.count &- 1
        suffix[unchecked: p.count] = 0
        while i < prefixEnd && j >= suffixStart {
            prefix[unchecked: i] = front
            front += p[unchecked: i]
            back += p[unchecked: j]
            suffix[unchecked: j] = back
            i &+= 1
            j &-= 1
        }
        while i < prefixEnd {
            prefix[unchecked: i] = front
            front += p[unchecked: i]
            i &+= 1
        }
        prefix[unchecked: prefixEnd] = front
        while j >= suffixStart {
            back += p[unchecked: j]
            suffix[unchecked: j] = back
            j &-= 1
        }
    }
}

/// Poisson probabilities over SciPy's truncated range ppf(1e-10) … ppf(1 − 1e-16) of a mean μ,
/// computed from the mode outward by the recurrence P(x ± 1) = P(x)·(μ/(x+1) or x/μ), the mode's
/// term in log space.
///
/// Each walk from the mode, and each tail sum that then finds the range's ends, is a chain of
/// dependent multiplications or additions. The steps of the chains are interleaved (both walks of
/// one table, and of two tables when a pair of means is built), so the processor runs several
/// chains at once; every chain keeps its own operations in its own order, so the same bits.
struct TruncatedPoisson {
    /// SciPy's bounds: the smallest x with CDF ≥ 1e-10, and the smallest x with CDF ≥ the double
    /// nearest 1 − 1e-16 (1 − 2⁻⁵³; a computed CDF 1 − SF rounds up to it while SF ≤ 1.5·2⁻⁵³).
    static let lowerQuantile = 1e-10
    static let upperSurvival = 1.5 * 0x1p-53

    /// Room on the stack for the tables of means `mu1` and `mu2` (one allocation), for `body`.
    /// Doubles (trivial): the walks write every element that the sums and `probabilities` read.
    @inline(__always)
    private static func withTables<R>(
        means mu1: Double, _ mu2: Double, _ body: (inout MutableSpan<Double>, inout MutableSpan<Double>) -> R
    ) -> R {
        let capacity1 = capacity(mean: mu1), capacity2 = capacity(mean: mu2)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity1 + capacity2) { buffer in
            var p1 = buffer.extracting(0..<capacity1).mutableSpan
            var p2 = buffer.extracting(capacity1..<(capacity1 + capacity2)).mutableSpan
            return body(&p1, &p2)
        }
    }

    /// Calls `body` with the range's first x and P(X = x) for x = lower, lower + 1, ….
    static func with<R>(mean mu: Double, _ body: (Int, Span<Double>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity(mean: mu)) { buffer in
            var p = buffer.mutableSpan
            var table = TruncatedPoisson(mean: mu, &p)
            var down = table.canWalkDown, up = table.canWalkUp
            while down && up && table.hasRoomForFourSteps {
                down = table.stepDown4(&p)
                up = table.stepUp4(&p)
            }
            table.finish(walkingDown: down, walkingUp: up, &p)
            return body(table.lower, p.span.extracting(table.probabilityRange))
        }
    }

    /// The tables of two means, built side by side.
    static func with<R>(
        means mu1: Double, _ mu2: Double,
        _ body: (Int, Span<Double>, Int, Span<Double>) -> R
    ) -> R {
        withTables(means: mu1, mu2) { p1, p2 in
            var first = TruncatedPoisson(mean: mu1, &p1)
            var second = TruncatedPoisson(mean: mu2, &p2)
            var down1 = first.canWalkDown, up1 = first.canWalkUp
            var down2 = second.canWalkDown, up2 = second.canWalkUp
            while down1 && up1 && down2 && up2 && first.hasRoomForFourSteps && second.hasRoomForFourSteps {
                down1 = first.stepDown4(&p1)
                up1 = first.stepUp4(&p1)
                down2 = second.stepDown4(&p2)
                up2 = second.stepUp4(&p2)
            }
            first.finish(walkingDown: down1, walkingUp: up1, &p1)
            second.finish(walkingDown: down2, walkingUp: up2, &p2)
            return body(
                first.lower, p1.span.extracting(first.probabilityRange), second.lower,
                p2.span.extracting(second.probabilityRange))
        }
    }

    /// The walks still going step by step (both in turn while both go), then the tail sums that
    /// find the range's ends.
    @inline(__always)
    private mutating func finish(walkingDown: Bool, walkingUp: Bool, _ p: inout MutableSpan<Double>) {
        var down = walkingDown, up = walkingUp
        while down && up {
            down = stepDown(&p)
            up = stepUp(&p)
        }
        while down { down = stepDown(&p) }
        while up { up = stepUp(&p) }
        beginSums()
        var lower = canSumLower, upper = canSumUpper
        while lower && upper {
            lower = stepLower(p)
            upper = stepUpper(p)
        }
        while lower { lower = stepLower(p) }
        while upper { upper = stepUpper(p) }
    }

    /// Walk lengths (Chernoff / Bernstein tail bounds): the walks stop well before them.
    private static func reach(mean mu: Double) -> (below: Int, above: Int) {
        let spread = mu.squareRoot()
        return (min(Int(mu), Int(10 * spread) + 2), Int(14 * spread) + 64)
    }

    private static func capacity(mean mu: Double) -> Int {
        let (below, above) = reach(mean: mu)
        return below + above + 1
    }

    private let mu: Double, inverseMu: Double
    private let mode: Int, base: Int, top: Int
    // The table p, lent to each step: p[x − base] = P(X = x), indexed unchecked (base ≤ x ≤ top,
    // and the table holds top − base + 1 values, checked when the walks begin).
    // The walks' ends so far and their terms; x as a Double too (exact), for the ratios.
    private var down: Int, downX: Double, downTerm: Double
    private var up: Int, upNextX: Double, upTerm: Double
    // The tail sums'.
    private(set) var lower = 0
    private var upper = 0, next = 0, cdf = 0.0, survival = 0.0

    private init(mean mu: Double, _ p: inout MutableSpan<Double>) {
        self.mu = mu
        inverseMu = 1 / mu
        mode = Int(mu) // floor: μ > 0
        let (below, above) = Self.reach(mean: mu)
        base = mode - below
        top = mode + above
        precondition(p.count > top - base, "a table too small for its walks")
        let logMode = mode == 0 ? -mu : Double(mode) * log(mu) - lgamma(Double(mode + 1)) - mu
        p[unchecked: below] = exp(logMode)
        down = mode
        downX = Double(mode)
        downTerm = p[unchecked: below]
        up = mode
        upNextX = Double(mode + 1)
        upTerm = p[unchecked: below]
    }

    private var canWalkDown: Bool { down > base }
    private var canWalkUp: Bool { up < top }

    /// One step downward, false when the walk ends: the rest of the lower tail is negligible next
    /// to 1e-10.
    @inline(__always)
    private mutating func stepDown(_ p: inout MutableSpan<Double>) -> Bool {
        let r = downX * inverseMu
        let term = downTerm * r
        // Below x the terms fall at least geometrically with ratio x/μ: the rest is below
        // term·r/(1 − r); stop when it is under 1e-8 of the quantile.
        if term * r < 1e-18 * (1 - r) { return false }
        downTerm = term
        downX -= 1
        down &-= 1
        p[unchecked: down &- base] = term
        return down > base
    }

    /// Four steps downward at once, with room for them (`down − 4 ≥ base`); false when the walk
    /// ended inside them, at the step `stepDown` would have ended it. Its stopping test holds
    /// from some step on and then stays true (term·r falls, 1 − r grows), so the fourth step's
    /// test clears all four; only a block where it holds is looked at step by step.
    @inline(__always)
    private mutating func stepDown4(_ p: inout MutableSpan<Double>) -> Bool {
        let r0 = downX * inverseMu, r1 = (downX - 1) * inverseMu, r2 = (downX - 2) * inverseMu,
            r3 = (downX - 3) * inverseMu
        let t0 = downTerm * r0, t1 = t0 * r1, t2 = t1 * r2, t3 = t2 * r3
        let at = down &- base
        p[unchecked: at &- 1] = t0
        p[unchecked: at &- 2] = t1
        p[unchecked: at &- 3] = t2
        p[unchecked: at &- 4] = t3
        if !(t3 * r3 < 1e-18 * (1 - r3)) {
            downTerm = t3
            downX -= 4
            down &-= 4
            return down > base
        }
        // The first step whose test holds ends the walk; the steps before it stand. What was
        // written past the end is never read.
        var steps = 0
        @inline(__always) func stands(_ t: Double, _ r: Double) -> Bool {
            guard !(t * r < 1e-18 * (1 - r)) else { return false }
            downTerm = t
            steps += 1
            return true
        }
        _ = stands(t0, r0) && stands(t1, r1) && stands(t2, r2)
        downX -= Double(steps)
        down &-= steps
        return false
    }

    /// Four steps upward at once, with room for them (`up + 4 ≤ top`); false when the walk ended
    /// inside them, as `stepDown4`: past the mode, term·x falls and x − μ grows.
    @inline(__always)
    private mutating func stepUp4(_ p: inout MutableSpan<Double>) -> Bool {
        let x0 = upNextX, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3
        let t0 = upTerm * (mu / x0), t1 = t0 * (mu / x1), t2 = t1 * (mu / x2), t3 = t2 * (mu / x3)
        let at = up &- base
        p[unchecked: at &+ 1] = t0
        p[unchecked: at &+ 2] = t1
        p[unchecked: at &+ 3] = t2
        p[unchecked: at &+ 4] = t3
        if !(x3 > mu && t3 * x3 < 1e-22 * (x3 - mu)) {
            upTerm = t3
            upNextX += 4
            up &+= 4
            return up < top
        }
        var steps = 0
        @inline(__always) func stands(_ t: Double, _ x: Double) -> Bool {
            guard !(x > mu && t * x < 1e-22 * (x - mu)) else { return false }
            upTerm = t
            steps += 1
            return true
        }
        _ = stands(t0, x0) && stands(t1, x1) && stands(t2, x2)
        upNextX += Double(steps)
        up &+= steps
        return false
    }

    private var hasRoomForFourSteps: Bool { down &- 4 >= base && up &+ 4 <= top }

    /// One step upward, false when the walk ends: the rest of the upper tail is far below 2⁻⁵³.
    @inline(__always)
    private mutating func stepUp(_ p: inout MutableSpan<Double>) -> Bool {
        let x = upNextX
        let term = upTerm * (mu / x)
        // Beyond the mode the ratio μ/(x+1) < 1 keeps falling: the rest is below
        // term·r/(1 − r) < term·(x+1)/(x+1−μ); stop far below 2⁻⁵³.
        if x > mu && term * x < 1e-22 * (x - mu) { return false }
        upTerm = term
        upNextX += 1
        up &+= 1
        p[unchecked: up &- base] = term
        return up < top
    }

    /// After the walks: the CDF from the far end of the lower walk up to 1e-10, and the smallest x
    /// with SF(x) = Σ_{j>x} P(j) ≤ the bound, walking down from the far end of the upper walk.
    private mutating func beginSums() {
        lower = mode
        next = down
        upper = up
    }

    private var canSumLower: Bool { next <= mode }
    private var canSumUpper: Bool { upper > mode }

    /// One step of the CDF, false when it has found `lower`.
    @inline(__always)
    private mutating func stepLower(_ p: borrowing MutableSpan<Double>) -> Bool {
        cdf += p[unchecked: next &- base]
        if cdf >= Self.lowerQuantile {
            lower = next
            return false
        }
        next &+= 1
        return next <= mode
    }

    /// One step of the survival function, false when it has found `upper`.
    @inline(__always)
    private mutating func stepUpper(_ p: borrowing MutableSpan<Double>) -> Bool {
        survival += p[unchecked: upper &- base] // now SF(upper − 1)
        if survival > Self.upperSurvival { return false }
        upper &-= 1
        return upper > mode
    }

    /// Where P(lower) … P(upper) lie in the table.
    var probabilityRange: Range<Int> { (lower - base)..<(upper - base + 1) }
}
