/// The Mann-Kendall trend test with the tie correction, as `pymannkendall.original_test(x)`:
/// S = Σ_{i<j} sgn(x_j − x_i), Var(S) = [n(n−1)(2n+5) − Σ_t t(t−1)(2t+5)] / 18 over the groups of
/// tied values, Z = (S − sgn S)/√Var(S) (0 when S = 0), p two-sided normal, τ = S / (n(n−1)/2).
public struct MannKendall: Sendable, Hashable {
    public let s: Int
    public let varianceS: Double
    public let z: Double
    public let p: Double
    public let tau: Double

    /// The test over a series of at least two values (NaN is not a value).
    public init(_ x: [Double]) {
        let n = x.count
        precondition(n >= 2, "Mann-Kendall needs at least two values")
        var s = 0
        for i in 0..<(n - 1) {
            let xi = x[i]
            for j in (i + 1)..<n {
                s += x[j] > xi ? 1 : (x[j] < xi ? -1 : 0)
            }
        }
        // Tie groups: runs of equal values in sorted order.
        let sorted = x.sorted()
        var tieTerm = 0, run = 1
        for i in 1...n {
            if i < n && sorted[i] == sorted[i - 1] {
                run += 1
                continue
            }
            tieTerm += run * (run - 1) * (2 * run + 5)
            run = 1
        }
        let variance = Double(n * (n - 1) * (2 * n + 5) - tieTerm) / 18
        self.s = s
        varianceS = variance
        if s > 0 {
            z = Double(s - 1) / variance.squareRoot()
        } else if s < 0 {
            z = Double(s + 1) / variance.squareRoot()
        } else {
            z = 0
        }
        p = NormalDistribution.twoSidedP(z)
        tau = Double(s) / (0.5 * Double(n) * Double(n - 1))
    }
}
