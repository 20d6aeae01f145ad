import Testing

@testable import AreaWatchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The E-test straight from its definition as SciPy evaluates it: Poisson ranges truncated at the
/// smallest x with CDF ≥ 1e-10 and the smallest x with CDF ≥ 1 − 1e-16 (each term's mass taken
/// directly from exp(x·ln μ − ln x! − μ)), then the double sum over the pairs whose pivot
/// |t(x1, x2)| ≥ |t(k1, k2)|, NaN at (0, 0) never kept.
private func referenceETest(k1: Int, n1: Double, k2: Int, n2: Double) -> Double {
    let lambda = Double(k1 + k2) / (n1 + n2)
    if lambda <= 0 { return 1 }
    let observed = (Double(k1) / n1 - Double(k2) / n2) / (Double(k1) / (n1 * n1) + Double(k2) / (n2 * n2)).squareRoot()
    func pmf(_ x: Int, _ mu: Double) -> Double {
        exp((x == 0 ? 0 : Double(x) * log(mu)) - lgamma(Double(x + 1)) - mu)
    }
    func range(_ mu: Double) -> ClosedRange<Int> {
        var cdf = 0.0, x = 0
        while true {
            cdf += pmf(x, mu)
            if cdf >= 1e-10 { break }
            x += 1
        }
        let lower = x
        // The upper tail summed from far out inwards, so 1 − CDF keeps its precision.
        let far = Int(mu + 40 * mu.squareRoot() + 60)
        var survival = 0.0, upper = far
        for y in stride(from: far, through: lower + 1, by: -1) {
            survival += pmf(y, mu) // SF(y − 1)
            if survival > 1.5 * 0x1p-53 {
                upper = y
                break
            }
            upper = y - 1
        }
        return lower...max(lower, upper)
    }
    let r1 = range(n1 * lambda), r2 = range(n2 * lambda)
    var total = 0.0
    for x1 in r1 {
        let p1 = pmf(x1, n1 * lambda)
        for x2 in r2 {
            let a = Double(x1) / n1, b = Double(x2) / n2
            let t = (a - b) / (a / n1 + b / n2).squareRoot()
            if abs(t) >= abs(observed) { total += p1 * pmf(x2, n2 * lambda) }
        }
    }
    return total
}

/// SPEC §12's comparison: within 1e-9 absolute or 1e-6 relative.
private func agrees(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= 1e-9 || abs(a - b) <= 1e-6 * abs(b)
}

/// `scipy.stats.poisson_means_test(k1, n1, k2, n2).pvalue` (SciPy 1.17.1), 1 for k1 + k2 = 0.
private let scipyValues: [(Int, Int, Double, Double, Double)] = [
    (0, 0, 365, 365, 1.0),
    (0, 1, 365, 365, 0.4783913063940992),
    (1, 0, 365, 366, 0.4822130208999969),
    (3, 1, 365, 365, 0.4437647631538746),
    (6, 3, 365, 365, 0.34471496138637486),
    (5, 5, 366, 366, 0.9999546000702362),
    (0, 5, 365, 365, 0.019756052290883053),
    (5, 0, 365, 365, 0.019756052290883053),
    (10, 0, 366, 365, 0.0005782760432412298),
    (12, 5, 365, 366, 0.09041435656533996),
    (100, 100, 365, 366, 0.9861537868004366),
    (250, 180, 365, 365, 0.0007231415275510622),
    (180, 250, 366, 365, 0.00065285876285026),
    (1000, 1100, 365, 365, 0.02909610541767822),
    (9999, 10000, 366, 365, 0.8412257074574865),
    (10000, 0, 365, 365, 0.0),
    (0, 10000, 365, 366, 0.0),
    (4321, 3999, 365, 366, 0.000257057686019675),
    (37, 74, 365, 365, 0.00041032789157109293),
    (2, 8, 366, 366, 0.0595600047320334),
    (617, 1617, 365, 365, 0.0),
    (11, 18, 365, 365, 0.19838967495495227),
    (2, 13, 366, 365, 0.0030632299192265887),
    (46, 282, 366, 365, 0.0),
    (30, 7, 365, 366, 9.449260816982586e-05),
    (7, 1, 365, 366, 0.029022874295058693),
    (2363, 8858, 365, 366, 0.0),
    (52, 297, 365, 366, 0.0),
    (17, 22, 365, 365, 0.4318607054363723),
    (254, 272, 366, 366, 0.43319650406457283),
    (9593, 7424, 366, 366, 0.0),
    (92, 124, 365, 366, 0.03094539078725515),
    (5627, 7353, 366, 365, 0.0),
    (16, 13, 365, 366, 0.5818580310362987),
    (250, 215, 365, 365, 0.10472567266850316),
    (1393, 2847, 366, 366, 0.0),
    (1126, 1533, 366, 366, 2.0764613146553967e-15),
    (1, 23, 366, 366, 9.945839929647982e-07),
    (2935, 1580, 366, 365, 0.0),
    (5823, 2753, 365, 366, 0.0),
    (6, 24, 366, 365, 0.0007175077788680046),
    (203, 200, 366, 365, 0.9113788976173477),
    (229, 205, 366, 365, 0.2617221492379065),
    (9014, 4561, 366, 366, 0.0),
    (3780, 2472, 365, 365, 0.0),
    (118, 119, 365, 366, 0.962241834920948),
    (134, 144, 365, 365, 0.5500642962767867),
    (8758, 6049, 366, 365, 0.0),
    (14, 28, 366, 366, 0.030735744838281703),
    (6457, 1696, 366, 366, 0.0),
    (6, 2, 365, 366, 0.15409216544200474),
    (56, 174, 365, 365, 1.1059588237961846e-15),
    (18, 4, 365, 366, 0.002226847649865611),
    (2, 27, 365, 366, 6.338135107102879e-07),
    (129, 177, 366, 366, 0.006032558572316059),
    (3, 27, 366, 366, 3.427816783159405e-06),
    (7927, 5109, 365, 365, 0.0),
    (23, 10, 366, 366, 0.02451620525478908),
    (264, 11, 365, 366, 0.0),
    (278, 13, 366, 365, 0.0)
]

@Suite struct PoissonETestTests {
    @Test func equalsSciPy() {
        for (k1, k2, n1, n2, expected) in scipyValues {
            let p = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2)
            #expect(agrees(p, expected), "k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2): \(p) vs SciPy \(expected)")
        }
    }

    @Test func noEventsIsOne() {
        #expect(PoissonETest.pValue(k1: 0, n1: 365, k2: 0, n2: 366) == 1)
    }

    /// Pairs on the boundary of the rejection region in exact arithmetic: (0, 5) and (5, 0) have
    /// |t| = √5 at (0, 5), (5, 0) and on the mirror side; (3, 1) and (6, 3) share t = 1. SciPy keeps
    /// or drops each by its floating-point pivot; the fast sum must decide the same way.
    @Test func tiesFallAsInSciPy() {
        for (k1, k2) in [(0, 5), (5, 0), (3, 1), (6, 3), (1, 3), (5, 5), (0, 1), (1, 0), (2, 8), (8, 2), (12, 3)] {
            for (n1, n2) in [(365.0, 365.0), (365, 366), (366, 365)] {
                let fast = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2)
                let slow = referenceETest(k1: k1, n1: n1, k2: k2, n2: n2)
                #expect(abs(fast - slow) <= 1e-12, "k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2): \(fast) vs \(slow)")
            }
        }
    }

    /// Seeded random counts from 0 to 10,000 against the double sum.
    @Test func matchesTheDoubleSum() {
        var rng = SplitMix64(seed: testSeed(0xE7E5))
        var cases: [(Int, Int, Double, Double)] = []
        for _ in 0..<120 {
            let scale = rng.pick([3, 12, 40, 300, 900])
            let k1 = rng.int(0...scale)
            let k2 = rng.bool(0.2) ? k1 + rng.int(-2...2) : rng.int(0...scale)
            cases.append((k1, max(0, k2), rng.pick([365, 366]), rng.pick([365, 366])))
        }
        for _ in 0..<6 {
            let k1 = rng.int(1000...10_000)
            cases.append((k1, rng.bool() ? k1 : rng.int(1000...10_000), rng.pick([365, 366]), rng.pick([365, 366])))
        }
        cases += [(10_000, 10_000, 365, 366), (10_000, 9_700, 366, 365), (0, 10_000, 365, 365), (0, 0, 365, 366)]
        for (k1, k2, n1, n2) in cases {
            let fast = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2)
            let slow = referenceETest(k1: k1, n1: n1, k2: k2, n2: n2)
            #expect(
                agrees(fast, slow) && abs(fast - slow) <= 1e-10,
                "seed \(testSeed(0xE7E5)) k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2): \(fast) vs \(slow)")
            #expect(fast >= 0 && fast <= 1 + 1e-12)
        }
    }

    /// Skipping the x1 whose terms are exactly zero, and summing the runs with one bound each,
    /// changes no bit of the p-value: every scale from village counts to 10,000, close and far
    /// pairs, equal and unequal windows.
    @Test func skippingZeroTermsIsBitExact() {
        var rng = SplitMix64(seed: testSeed(0x5C1F))
        for _ in 0..<6000 {
            let scale = rng.pick([20, 100, 400, 900, 3000, 10_000])
            let k1 = rng.int(0...scale)
            let k2 = rng.bool(0.3) ? max(0, k1 + rng.int(-40...40)) : rng.int(0...scale)
            let n1: Double = rng.pick([365, 366, 30, 731]), n2: Double = rng.pick([365, 366, 31])
            let fast = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2, skipZeroTerms: true)
            let full = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2, skipZeroTerms: false)
            #expect(
                fast.bitPattern == full.bitPattern,
                "seed \(testSeed(0x5C1F)) k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2): \(fast) vs \(full)")
        }
    }

    /// Golden bits: p-values of seeded pairs at every scale, as the straightforward implementation
    /// (every x1 with both bounds, one Poisson walk after another) computed them. The faster
    /// paths (runs with one bound each, interleaved walks in blocks of four) must not move a bit.
    @Test func bitsArePinned() {
        let golden: [(Int, Int, Double, Double, UInt64)] = [
            (1, 2, 30, 365, 0x3feb5d7053dc54b7),
            (3, 0, 365, 31, 0x3fda705aa335eed0),
            (1, 2, 366, 31, 0x3fe38a10f5222fbb),
            (1, 3, 731, 366, 0x3fd16e7eb7f3cacd),
            (2, 2, 30, 31, 0x3fed11f3e5a67a44),
            (5, 0, 365, 366, 0x3f943b10d2c3131a),
            (4, 14, 731, 31, 0x3fd91db5c90eb94b),
            (5, 2, 30, 366, 0x3fdd1bf6042505da),
            (1, 3, 365, 31, 0x3fe0b0b39ac16a0f),
            (21, 9, 30, 366, 0x3fb8fb27b386412a),
            (10, 25, 30, 366, 0x3fb25eac6261007f),
            (27, 33, 366, 31, 0x3f82e7c95d2dbbe6),
            (18, 13, 366, 365, 0x3fd84c2b7343c327),
            (25, 34, 366, 366, 0x3fcf6e317f111c2e),
            (26, 25, 30, 366, 0x3f957ebb70db7696),
            (28, 28, 731, 365, 0x3f93d6d952420b01),
            (165, 9, 731, 366, 0x3b1c6597483fd094),
            (142, 141, 30, 366, 0x3e51aeb7c884023b),
            (187, 40, 366, 31, 0x3f633a6126a13812),
            (91, 101, 365, 366, 0x3fdeeadefc201359),
            (178, 169, 365, 366, 0x3fe39946ef305c0f),
            (28, 12, 365, 366, 0x3f8613c3c348770f),
            (24, 183, 731, 31, 0x3f2a0448a0a0999a),
            (27, 96, 365, 31, 0x3f10f338fca17ec5),
            (289, 756, 365, 365, 0x0),
            (49, 706, 30, 365, 0x3fcc2ba48accf22f),
            (240, 240, 30, 365, 0x3ab5069f88fb6628),
            (39, 766, 365, 365, 0x0),
            (838, 844, 365, 31, 0x0),
            (527, 878, 365, 31, 0x0),
            (255, 501, 365, 31, 0x0),
            (591, 551, 366, 366, 0x3fce4e2a1e2d393c),
            (1311, 1301, 365, 31, 0x0),
            (920, 459, 30, 31, 0x0),
            (390, 399, 366, 365, 0x3fe6fe71ece4c87e),
            (936, 1343, 30, 365, 0x0),
            (398, 2543, 366, 365, 0x0),
            (936, 408, 365, 365, 0x0),
            (1039, 1047, 30, 366, 0x0),
            (1920, 2213, 365, 365, 0x3ed58abd96381c5b),
            (4407, 4414, 366, 365, 0x3fead7414b3592ef),
            (5758, 5759, 30, 31, 0x3fb4859e4ca41edf),
            (9620, 9630, 731, 366, 0x0),
            (4908, 7326, 365, 366, 0x0),
            (887, 5012, 731, 366, 0x0),
            (7341, 662, 365, 365, 0x0),
            (3344, 8255, 30, 366, 0x0),
            (1071, 1061, 30, 31, 0x3fd5267950c02fa6)
        ]
        for (k1, k2, n1, n2, bits) in golden {
            let p = PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2)
            #expect(p.bitPattern == bits, "k1=\(k1) k2=\(k2) n1=\(n1) n2=\(n2): \(p) vs \(Double(bitPattern: bits))")
        }
    }

    /// The batch of one total (shared Poisson tables and tail sums, what grids use) gives every
    /// pair the bits of its own `pValue`.
    @Test func batchOfOneTotalIsBitExact() {
        var rng = SplitMix64(seed: testSeed(0xBA7C))
        for _ in 0..<200 {
            let total = rng.int(0...rng.pick([30, 400, 2000, 12_000]))
            let firsts = (0..<rng.int(1...12)).map { _ in rng.int(0...total) }
            let n1: Double = rng.pick([365, 366]), n2: Double = rng.pick([365, 366])
            let batch = PoissonETest.pValues(total: total, firsts: firsts, n1: n1, n2: n2)
            for (k1, p) in zip(firsts, batch) {
                let single = PoissonETest.pValue(k1: k1, n1: n1, k2: total - k1, n2: n2)
                #expect(
                    p.bitPattern == single.bitPattern, "total \(total) k1 \(k1) n1 \(n1) n2 \(n2): \(p) vs \(single)")
            }
        }
    }

    /// Swapping the counts together with the exposures is the same test.
    @Test func symmetric() {
        for (k1, k2) in [(0, 7), (13, 40), (250, 180), (999, 1001)] {
            let a = PoissonETest.pValue(k1: k1, n1: 365, k2: k2, n2: 366)
            let b = PoissonETest.pValue(k1: k2, n1: 366, k2: k1, n2: 365)
            #expect(abs(a - b) <= 1e-12)
        }
    }
}

/// With `AREAWATCH_ETEST_CSV=FILE`, writes a large seeded sample of (k1, k2, n1, n2, p) for the
/// SciPy comparison of Benchmarks/peers/stats_peers.py (`etest FILE`); otherwise does nothing.
@Suite struct PoissonETestExport {
    @Test func exportSample() throws {
        guard let path = getenv("AREAWATCH_ETEST_CSV").map({ String(cString: $0) }) else { return }
        var rng = SplitMix64(seed: 0xC5F)
        var text = "k1,k2,n1,n2,p\n"
        var rows: [(Int, Int, Int, Int)] = []
        for k1 in 0...30 { for k2 in 0...30 { rows.append((k1, k2, 365, 366)) } }
        for _ in 0..<20_000 {
            let scale = rng.pick([10, 100, 1000, 10_000])
            let k1 = rng.int(0...scale)
            let k2 = rng.bool(0.1) ? k1 : rng.int(0...scale)
            rows.append((k1, k2, rng.pick([365, 366]), rng.pick([365, 366])))
        }
        for (k1, k2, n1, n2) in rows {
            let p = PoissonETest.pValue(k1: k1, n1: Double(n1), k2: k2, n2: Double(n2))
            text += "\(k1),\(k2),\(n1),\(n2),\(p)\n"
        }
        let file = try #require(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
    }
}
