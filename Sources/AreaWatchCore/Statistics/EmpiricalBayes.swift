/// Global empirical Bayes smoothing of rates (SPEC §17): Marshall's estimator with the
/// method-of-moments prior, as PySAL's `esda.smoothing.Empirical_Bayes` computes it, except that
/// a negative prior variance is taken as 0 so that every weight lies in [0, 1] (esda keeps it
/// negative, which can push a smoothed rate below 0 or beyond the raw rate).
///
/// With events eᵢ and populations bᵢ (all bᵢ > 0): the global rate m = Σe / Σb; the raw rates
/// rᵢ = eᵢ / bᵢ; the prior variance v = max(0, Σ bᵢ(rᵢ − m)² / Σb − m / b̄) with b̄ the mean
/// population; the weights wᵢ = v / (v + m / bᵢ); the smoothed rates wᵢ·rᵢ + (1 − wᵢ)·m. Where
/// there are no events at all (m = 0) every smoothed rate is 0.
public enum EmpiricalBayes {
    public struct Estimate: Sendable, Equatable {
        /// The global rate m.
        public var globalRate: Double
        /// The prior variance v as esda computes it, before the clamp (negative when the rates
        /// vary less than Poisson noise alone would make them).
        public var priorVarianceUnclamped: Double
        /// Per unit: the smoothed rate.
        public var smoothed: [Double]
    }

    /// Smoothed rates of `events` over `populations` (same length, every population > 0).
    public static func smooth(events: [Double], populations: [Double]) -> Estimate {
        precondition(events.count == populations.count)
        let n = events.count
        guard n > 0 else { return Estimate(globalRate: 0, priorVarianceUnclamped: 0, smoothed: []) }
        let eventSum = events.reduce(0, +)
        let populationSum = populations.reduce(0, +)
        let m = eventSum / populationSum
        var spread = 0.0
        for i in 0..<n {
            let deviation = events[i] / populations[i] - m
            spread += populations[i] * deviation * deviation
        }
        let unclamped = spread / populationSum - m / (populationSum / Double(n))
        guard m > 0 else {
            return Estimate(globalRate: 0, priorVarianceUnclamped: unclamped, smoothed: .init(repeating: 0, count: n))
        }
        let v = max(0, unclamped)
        let smoothed = (0..<n).map { i -> Double in
            let weight = v / (v + m / populations[i])
            return weight * (events[i] / populations[i]) + (1 - weight) * m
        }
        return Estimate(globalRate: m, priorVarianceUnclamped: unclamped, smoothed: smoothed)
    }
}
