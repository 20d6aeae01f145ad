import Testing

@testable import AreaWatchCore

/// The bounds of the kept region the E-test sums over, checked against SciPy's pivot itself.
@Suite struct KeptTailsTests {
    /// The observed pivot |t(k1, k2)|, as the E-test computes it.
    private func observed(_ k1: Int, _ k2: Int, _ n1: Double, _ n2: Double) -> Double {
        let variance = Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)
        return abs((Double(k1) / n1 - Double(k2) / n2) / variance.squareRoot())
    }

    /// low(x1) is the last x2 with t ≥ c and high(x1) the first with t ≤ −c, by the pivot in
    /// floating point, at every scale; the shared-root form gives the same bounds; and
    /// where c² > 2.5 the two never meet.
    @Test func boundsAreWhereThePivotCrossesC() {
        var rng = SplitMix64(seed: testSeed(0x7A11))
        for _ in 0..<4000 {
            let scale = rng.pick([10, 100, 600, 3000, 10_000])
            let k1 = rng.int(0...scale), k2 = rng.bool(0.3) ? max(0, k1 + rng.int(-30...30)) : rng.int(0...scale)
            guard k1 + k2 > 0 else { continue }
            let n1: Double = rng.pick([365, 366, 30, 731]), n2: Double = rng.pick([365, 366, 31])
            let c = observed(k1, k2, n1, n2)
            let tails = KeptTails(n1: n1, n2: n2, c: c)
            let x1 = rng.int(1...(2 * scale + 40))
            let pivot = { (x2: Int) in KeptTails.pivot(x1, x2, n1, n2) }
            let low = tails.low(x1), high = tails.high(x1)
            let context =
                "seed \(testSeed(0x7A11)) k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2) x1=\(x1): low \(low) high \(high)"
            if low >= 0 { #expect(pivot(low) >= c, "\(context)") }
            #expect(pivot(low + 1) < c, "\(context)")
            #expect(pivot(high) <= -c, "\(context)")
            if high >= 1 { #expect(pivot(high - 1) > -c, "\(context)") }
            let both = tails.both(x1)
            #expect(both.low == low && both.high == high, "\(context)")
            if !tails.tailsCanMeet { #expect(high > low + 1, "\(context)") }
        }
    }

    /// The galloping search equals a scan for every prefix length and any guess, wild ones
    /// (out of range, infinite, NaN) included.
    @Test func gallopingSearchEqualsAScan() {
        var rng = SplitMix64(seed: testSeed(0x6A11))
        for _ in 0..<3000 {
            let lower = rng.int(-5...5), upper = lower + rng.int(0...60)
            let answer = rng.int((lower - 1)...upper) // last index where the predicate holds
            let guess = rng.pick([
                Double(rng.int((lower - 20)...(upper + 20))), .infinity, -.infinity, .nan,
                Double(answer), Double(answer) + 0.5
            ])
            var calls = 0
            let found = PoissonETest.lastIndex(in: lower...upper, near: guess) {
                calls += 1
                return $0 <= answer
            }
            #expect(found == answer, "range \(lower)...\(upper) answer \(answer) guess \(guess): \(found)")
            if guess == Double(answer) && answer >= lower && answer < upper { #expect(calls == 2) }
        }
    }
}
