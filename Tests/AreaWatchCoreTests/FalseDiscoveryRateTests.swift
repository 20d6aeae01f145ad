import Testing

@testable import AreaWatchCore

/// BH from its definition: q(i) = min over j ≥ i of m·p(j)/j over the ascending order, capped at 1.
private func referenceBH(_ p: [Double]) -> [Double] {
    let m = p.count
    let sorted = p.enumerated().sorted { $0.element < $1.element }
    var q = [Double](repeating: 0, count: m)
    for i in 0..<m {
        var best = Double.infinity
        for j in i..<m { best = min(best, sorted[j].element / (Double(j + 1) / Double(m))) }
        q[sorted[i].offset] = min(best, 1)
    }
    return q
}

@Suite struct FalseDiscoveryRateTests {
    /// `statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1]` (statsmodels 0.15.0).
    @Test func equalsStatsmodels() {
        let p = [0.01, 0.04, 0.03, 0.005, 0.04, 0.9, 0.2, 0.04, 1.0, 0.0001, 0.5, 0.03]
        let expected = [
            0.04, 0.060000000000000005, 0.060000000000000005, 0.030000000000000002,
            0.060000000000000005, 0.9818181818181819, 0.26666666666666666, 0.060000000000000005,
            1.0, 0.0012000000000000001, 0.6, 0.060000000000000005
        ]
        #expect(BenjaminiHochberg.adjust(p) == expected)
    }

    /// Seeded p-values with many ties, against the definition; the grouped form equals the
    /// expanded one bit for bit.
    @Test func matchesDefinitionAndGroupedForm() {
        var rng = SplitMix64(seed: testSeed(0xBEE))
        for round in 0..<40 {
            let m = rng.int(1...300)
            let pool = (0..<rng.int(1...20)).map { _ in rng.bool(0.3) ? rng.uniform(0, 0.001) : rng.unit() }
            let p = (0..<m).map { _ in rng.pick(pool) }
            let q = BenjaminiHochberg.adjust(p)
            let reference = referenceBH(p)
            for i in 0..<m {
                #expect(abs(q[i] - reference[i]) <= 1e-15 * max(1, reference[i]), "round \(round) i \(i)")
                #expect(q[i] >= p[i] && q[i] <= 1)
            }
            // Ties share their q.
            for i in 0..<m { for j in 0..<m where p[i] == p[j] { #expect(q[i] == q[j]) } }
            let distinct = Array(Set(p)).sorted()
            let counts = distinct.map { v in p.filter { $0 == v }.count }
            let grouped = BenjaminiHochberg.adjust(distinct: distinct, counts: counts)
            for i in 0..<m { #expect(grouped[distinct.firstIndex(of: p[i])!] == q[i]) }
        }
    }

    /// The radix-sorted form on seeded p-values with ties equals the comparison-sorted one.
    @Test func radixOrderEqualsComparisonOrder() {
        var rng = SplitMix64(seed: testSeed(0xB17))
        for _ in 0..<30 {
            let pool = (0..<rng.int(1...50)).map { _ in rng.bool(0.1) ? 0 : rng.unit() }
            let p = (0..<rng.int(1...2000)).map { _ in rng.pick(pool) }
            #expect(BenjaminiHochberg.adjustNonNegative(p) == BenjaminiHochberg.adjust(p))
        }
        // Many rows, few distinct count pairs: the same answers as one E-test per row.
        let current = (0..<3000).map { _ in rng.int(0...60) }, previous = (0..<3000).map { _ in rng.int(0...60) }
        let rows = ChangeSignificance.of(
            current: current, previous: previous, currentDays: 366, previousDays: 365, alpha: 0.1)
        for i in 0..<3000 {
            #expect(rows[i].p == PoissonETest.pValue(k1: current[i], n1: 366, k2: previous[i], n2: 365))
        }
        #expect(rows.map(\.q) == BenjaminiHochberg.adjust(rows.map(\.p)))
    }

    @Test func emptyAndSingle() {
        #expect(BenjaminiHochberg.adjust([]).isEmpty)
        #expect(BenjaminiHochberg.adjust([0.3]) == [0.3])
    }

    @Test func changeDirection() {
        #expect(ChangeDirection(current: 30, previous: 10, q: 0.01, alpha: 0.05) == .rise)
        #expect(ChangeDirection(current: 10, previous: 30, q: 0.05, alpha: 0.05) == .fall)
        #expect(ChangeDirection(current: 10, previous: 30, q: 0.0500001, alpha: 0.05) == .none)
        #expect(ChangeDirection(current: 10, previous: 10, q: 0, alpha: 0.05) == .none)
    }

    /// A grid-like output: p from the E-test, q by BH over all rows, directions at α.
    @Test func significanceOfRows() {
        let current = [120, 80, 100, 0, 5, 100, 300, 120, 5]
        let previous = [60, 80, 100, 0, 9, 100, 420, 60, 9]
        let rows = ChangeSignificance.of(
            current: current, previous: previous, currentDays: 365, previousDays: 366,
            alpha: 0.05)
        let p = zip(current, previous).map { PoissonETest.pValue(k1: $0, n1: 365, k2: $1, n2: 366) }
        #expect(rows.map(\.p) == p)
        #expect(rows.map(\.q) == BenjaminiHochberg.adjust(p))
        #expect(rows.map(\.change) == [.rise, .none, .none, .none, .none, .none, .fall, .rise, .none])
        #expect(rows[3].p == 1)
    }

    @Test func windowLengths() {
        // T = 2024-06-01: current (2023-06-01, 2024-06-01] holds 2024-02-29.
        let t = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 1, hour: 12))
        #expect(TimeWindows(asOf: t).windowDays == (366, 365))
        let u = UTCTime.epochSeconds(CivilTime(year: 2025, month: 6, day: 1))
        #expect(TimeWindows(asOf: u).windowDays == (365, 366))
        let v = UTCTime.epochSeconds(CivilTime(year: 2024, month: 2, day: 29))
        #expect(TimeWindows(asOf: v).windowDays == (366, 365))
    }
}
