import Testing

@testable import AreaWatchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct MannKendallTests {
    /// `pymannkendall.original_test(x)` (1.4.3): s, var_s, z, p, Tau.
    @Test func equalsPymannkendall() {
        let cases: [([Double], Int, Double, Double, Double, Double)] = [
            ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 45, 125.0, 3.9354796403996297, 8.303070332638107e-05, 1.0),
            (
                [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 16, 159.33333333333334, 1.188332399294654, 0.23470247795516075,
                0.2909090909090909
            ),
            ([2, 2, 2, 1, 1, 3, 3, 3, 0.5, 2], 1, 111.66666666666667, 0, 1, 0.022222222222222223),
            ([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], 0, 0, 0, 1, 0),
            (
                [5, 4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 9], -34, 199.33333333333334, -2.337351215016934,
                0.019420929567756318, -0.5151515151515151
            )
        ]
        for (x, s, variance, z, p, tau) in cases {
            let r = MannKendall(x)
            #expect(r.s == s && r.varianceS == variance && r.z == z && r.tau == tau, "\(x)")
            #expect(abs(r.p - p) <= 1e-15, "\(x): p \(r.p) vs \(p)")
        }
    }

    /// Against the definition on seeded series with ties (values from a small pool).
    @Test func matchesDefinition() {
        var rng = SplitMix64(seed: testSeed(0x3A7))
        for _ in 0..<200 {
            let n = rng.int(2...40)
            let pool = (0..<rng.int(1...12)).map { _ in rng.uniform(-3, 3) }
            let x = (0..<n).map { _ in rng.pick(pool) }
            var s = 0
            for i in 0..<n { for j in (i + 1)..<n where x[j] != x[i] { s += x[j] > x[i] ? 1 : -1 } }
            var groups: [Double: Int] = [:]
            for v in x { groups[v, default: 0] += 1 }
            let ties = groups.values.reduce(0) { $0 + $1 * ($1 - 1) * (2 * $1 + 5) }
            let variance = Double(n * (n - 1) * (2 * n + 5) - ties) / 18
            let r = MannKendall(x)
            #expect(r.s == s && r.varianceS == variance)
            let z = s == 0 ? 0 : Double(s - s.signum()) / variance.squareRoot()
            #expect(abs(r.z - z) <= 1e-12)
            #expect(abs(r.p - erfc(abs(z) / 2.0.squareRoot())) <= 1e-15)
        }
    }
}
