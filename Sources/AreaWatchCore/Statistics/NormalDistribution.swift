#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The standard normal distribution's two-sided tail.
public enum NormalDistribution {
    /// P(|Z| ≥ |z|) = erfc(|z|/√2), computed without the cancellation of 2·(1 − Φ(|z|)).
    @inline(__always)
    public static func twoSidedP(_ z: Double) -> Double {
        erfc(abs(z) / 2.0.squareRoot())
    }
}
