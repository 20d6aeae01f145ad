/// A named area's population as the areas file gives it (`--area-population PROP`, SPEC §17).
public enum AreaPopulation: Sendable, Equatable {
    /// A finite JSON number (0 and negative values included: they are given, and get no rate).
    case value(Double)
    /// The property is absent or `null`.
    case missing
    /// A string, boolean, object or array, or a number beyond the range of a Double.
    case notNumeric
}

/// Why an area has no rate; written as `population_note` (SPEC §17).
public enum PopulationNote: String, Sendable, Equatable {
    case missing
    case notNumeric = "not_numeric"
    case notPositive = "not_positive"
}

/// One area's population and rates; every rate is per `ratePer` residents.
public struct AreaRate: Sendable, Equatable {
    /// The population as given when it is a number (also when it is 0 or negative).
    public var population: Double?
    public var rateCurrent: Double?
    public var ratePrevious: Double?
    /// Global empirical Bayes smoothing of the current rate over the areas that have a rate.
    public var ebRateCurrent: Double?
    /// Why there is no rate; nil when the population is a positive number.
    public var note: PopulationNote?

    public init(
        population: Double? = nil, rateCurrent: Double? = nil, ratePrevious: Double? = nil,
        ebRateCurrent: Double? = nil, note: PopulationNote? = nil
    ) {
        self.population = population
        self.rateCurrent = rateCurrent
        self.ratePrevious = ratePrevious
        self.ebRateCurrent = ebRateCurrent
        self.note = note
    }
}

/// SPEC §17: rates per resident for named areas. A rate is count × ratePer / population, one
/// rounding of exact integers in the usual case (198 per 15,625 residents is 1267.2, not the
/// 1267.1999999999998 of dividing first). Invariants: an area has rates exactly when its
/// population is a positive finite number; the smoothing runs over those areas only (an area
/// without a rate neither gets a smoothed rate nor moves the others'), and over those whose current
/// count is shown (`currentShown`, disclosure control, SPEC §10): a withheld count is not smoothed
/// and does not reach the global rate or the prior variance that published numbers are made of.
public enum AreaRates {
    public static func compute(
        populations: [AreaPopulation], current: [Int], previous: [Int], ratePer: Double,
        currentShown: [Bool]? = nil, previousShown: [Bool]? = nil
    ) -> [AreaRate] {
        precondition(populations.count == current.count && current.count == previous.count)
        var rates = populations.indices.map { k -> AreaRate in
            switch populations[k] {
            case .missing: return AreaRate(note: .missing)
            case .notNumeric: return AreaRate(note: .notNumeric)
            case .value(let b) where !(b > 0): return AreaRate(population: b, note: .notPositive)
            case .value(let b):
                let showCurrent = currentShown?[k] ?? true, showPrevious = previousShown?[k] ?? true
                return AreaRate(
                    population: b,
                    rateCurrent: showCurrent ? Double(current[k]) * ratePer / b : nil,
                    ratePrevious: showPrevious ? Double(previous[k]) * ratePer / b : nil)
            }
        }
        let smoothed = rates.indices.filter { rates[$0].rateCurrent != nil }
        let estimate = EmpiricalBayes.smooth(
            events: smoothed.map { Double(current[$0]) },
            populations: smoothed.map { rates[$0].population! })
        for (j, k) in smoothed.enumerated() { rates[k].ebRateCurrent = estimate.smoothed[j] * ratePer }
        return rates
    }
}
