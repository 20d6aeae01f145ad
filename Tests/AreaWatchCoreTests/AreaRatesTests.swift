import AreaWatchCore
import Testing

/// SPEC §17: rates per resident of named areas and their empirical Bayes smoothing over the areas
/// that have a population. Expected values come from PySAL's esda (Benchmarks/peers/eb_fixtures.py,
/// its second list) or from the brute-force formula below, written apart from `EmpiricalBayes`.
@Suite("Rates per resident of named areas (SPEC §17)", .timeLimit(.minutes(60)))
struct AreaRatesTests {
    /// esda over the areas with a population above 0; `nil`: the area with population 0.
    static let esda: [(String, [Double], [Double], [Double?], Double)] = [
        (
            "zero_and_tiny", [212.0, 48.0, 7.0, 97.0, 5.0, 160.0, 2.0, 254.0],
            [17340.0, 9120.0, 0.0, 12877.0, 410.0, 15002.0, 60.0, 21650.0],
            [
                0.012019983793422924, 0.006123796983653587, nil, 0.00787838182878926, 0.010528176952613079,
                0.010609221877023765, 0.010871075868984998, 0.011604245563041422
            ], 5.252435038790912e-06
        ),
        (
            "zero_no_events", [30.0, 0.0, 44.0, 51.0, 12.0], [8000.0, 0.0, 9500.0, 12000.0, 2500.0],
            [0.0059644987589078415, nil, 0.001033916484817106, 0.004027033509216748, 0.004119643208603302],
            -4.0677425986842103e-07
        )
    ]

    /// Marshall's global estimator with the method-of-moments prior, the variance clamped at 0:
    /// the textbook formula term by term, over the pairs given.
    static func bruteForce(_ pairs: [(events: Double, population: Double)]) -> [Double] {
        let totalEvents = pairs.map(\.events).reduce(0, +), totalPopulation = pairs.map(\.population).reduce(0, +)
        let m = totalEvents / totalPopulation
        let meanPopulation = totalPopulation / Double(pairs.count)
        var s2 = 0.0
        for p in pairs { s2 += p.population * (p.events / p.population - m) * (p.events / p.population - m) }
        let variance = max(0, s2 / totalPopulation - m / meanPopulation)
        return pairs.map { p in
            guard m > 0 else { return 0 }
            let w = variance / (variance + m / p.population)
            return m + w * (p.events / p.population - m)
        }
    }

    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-12) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= tolerance * max(1, abs(b))
    }

    static func rates(
        _ populations: [AreaPopulation], _ current: [Int], previous: [Int]? = nil,
        per: Double = 1
    ) -> [AreaRate] {
        AreaRates.compute(populations: populations, current: current, previous: previous ?? current, ratePer: per)
    }

    @Test("equal to esda over the areas with a population; population 0: no rate, not smoothed")
    func againstEsda() {
        for (name, events, populations, expected, variance) in Self.esda {
            let rates = Self.rates(populations.map { .value($0) }, events.map { Int($0) })
            let kept = populations.indices.filter { populations[$0] > 0 }
            let m = kept.map { events[$0] }.reduce(0, +) / kept.map { populations[$0] }.reduce(0, +)
            for k in events.indices {
                if populations[k] == 0 {
                    #expect(rates[k] == AreaRate(population: 0, note: .notPositive), "\(name) area \(k)")
                    continue
                }
                let want = variance >= 0 ? expected[k]! : m
                #expect(Self.close(rates[k].ebRateCurrent, want), "\(name) area \(k): \(rates[k]) vs \(want)")
                #expect(rates[k].rateCurrent == events[k] / populations[k] && rates[k].note == nil)
            }
        }
    }

    @Test("esda's negative prior variance is taken as 0: every area gets the global rate, weights in [0, 1]")
    func negativeVariancePinned() {
        let (_, events, populations, esdaRates, variance) = Self.esda[1]
        #expect(variance < 0)
        let rates = Self.rates(populations.map { .value($0) }, events.map { Int($0) })
        let m = 137.0 / 32_000
        for k in events.indices where populations[k] > 0 {
            #expect(Self.close(rates[k].ebRateCurrent, m))
            // esda itself leaves the range [raw, m] here: the clamp is a real difference.
            let raw = events[k] / populations[k]
            let outside = esdaRates[k]! < min(raw, m) - 1e-15 || esdaRates[k]! > max(raw, m) + 1e-15
            if k == 2 { #expect(outside, "esda's area 2 was expected outside [raw, m]") }
        }
    }

    @Test("missing, non-numeric, 0 and negative populations: stated, no rate, and left out of the smoothing")
    func withoutPopulation() {
        let populations: [AreaPopulation] = [
            .value(12_000), .missing, .value(9_500), .notNumeric, .value(-40),
            .value(20_000), .value(0)
        ]
        let current = [60, 500, 31, 7, 3, 88, 2]
        let rates = Self.rates(populations, current, previous: [50, 1, 29, 9, 4, 70, 1], per: 100_000)
        #expect(rates[1] == AreaRate(note: .missing))
        #expect(rates[3] == AreaRate(note: .notNumeric))
        #expect(rates[4] == AreaRate(population: -40, note: .notPositive))
        #expect(rates[6] == AreaRate(population: 0, note: .notPositive))
        let smoothed = Self.bruteForce([(60, 12_000), (31, 9_500), (88, 20_000)])
        for (j, k) in [0, 2, 5].enumerated() {
            #expect(Self.close(rates[k].ebRateCurrent, smoothed[j] * 100_000), "area \(k)")
            #expect(rates[k].note == nil && rates[k].population != nil)
        }
        #expect(Self.close(rates[2].ratePrevious, 29.0 / 9_500 * 100_000))
    }

    @Test("the area with far fewer residents: the smoothing pulls it hardest toward the global rate")
    func tinyPopulation() {
        let populations: [Double] = [18_000, 15_500, 21_000, 16_200, 90]
        let current = [180, 120, 250, 150, 4]
        let rates = Self.rates(populations.map { .value($0) }, current, per: 100_000)
        let m = Double(current.reduce(0, +)) / populations.reduce(0, +) * 100_000
        let pull = rates.map { r in abs(r.ebRateCurrent! - r.rateCurrent!) / abs(r.rateCurrent! - m) }
        #expect(pull[4] == pull.max() && pull[4] > 0.9, "\(pull)")
        #expect(rates[4].rateCurrent! > 4_000 && rates[4].ebRateCurrent! < 1_500, "\(rates[4])")
    }

    @Test("no area has a population: no rate anywhere, no crash; no areas: nothing")
    func nonePopulated() {
        let rates = Self.rates([.missing, .notNumeric, .value(0)], [3, 4, 5])
        #expect(rates.allSatisfy { $0.ebRateCurrent == nil && $0.rateCurrent == nil && $0.note != nil })
        #expect(Self.rates([], []).isEmpty)
        let quiet = Self.rates([.value(100), .value(200)], [0, 0])
        #expect(quiet.map(\.ebRateCurrent) == [0, 0] && quiet.map(\.rateCurrent) == [0, 0])
    }

    @Test("--rate-per scales every rate, smoothed ones included")
    func ratePerScaling() {
        let populations: [AreaPopulation] = [.value(1_000), .value(1_200), .value(900), .value(1_500), .value(2_000)]
        let current = [1, 40, 3, 90, 12]
        let perOne = Self.rates(populations, current)
        for per in [1_000.0, 100_000, 1e9, 0.5] {
            let scaled = Self.rates(populations, current, per: per)
            for k in current.indices {
                #expect(Self.close(scaled[k].rateCurrent, perOne[k].rateCurrent! * per, 1e-14))
                #expect(Self.close(scaled[k].ebRateCurrent, perOne[k].ebRateCurrent! * per, 1e-14))
            }
        }
    }

    @Test("a withheld count (disclosure control): no rate from it, and the smoothing runs without it")
    func withheld() {
        let populations: [AreaPopulation] = [.value(5_000), .value(7_000), .value(6_500), .value(3_000)]
        let rates = AreaRates.compute(
            populations: populations, current: [40, 2, 35, 22], previous: [30, 25, 1, 20],
            ratePer: 1, currentShown: [true, false, true, true],
            previousShown: [true, true, false, true])
        #expect(rates[1].rateCurrent == nil && rates[1].ebRateCurrent == nil && rates[1].ratePrevious == 25.0 / 7_000)
        #expect(rates[2].ratePrevious == nil && rates[2].rateCurrent == 35.0 / 6_500)
        let smoothed = Self.bruteForce([(40, 5_000), (35, 6_500), (22, 3_000)])
        for (j, k) in [0, 2, 3].enumerated() { #expect(Self.close(rates[k].ebRateCurrent, smoothed[j])) }
    }

    @Test("property: random areas, some without a population, against the brute-force formula")
    func againstBruteForce() {
        var g = SplitMix64(seed: testSeed(0x17_0017))
        for round in 0..<300 {
            let n = g.int(1...30)
            var populations: [AreaPopulation] = [], current: [Int] = []
            for _ in 0..<n {
                switch g.int(0...9) {
                case 0: populations.append(.missing)
                case 1: populations.append(.value(0))
                default:
                    let residents = g.bool(0.2) ? g.int(1...200) : g.int(1_000...60_000)
                    populations.append(.value(Double(residents)))
                }
                current.append(g.int(0...400))
            }
            let rates = Self.rates(populations, current, per: 100_000)
            let kept = populations.indices.compactMap { k -> (Int, Double)? in
                if case .value(let b) = populations[k], b > 0 { return (k, b) }
                return nil
            }
            let expected = kept.isEmpty ? [] : Self.bruteForce(kept.map { (Double(current[$0.0]), $0.1) })
            for (j, (k, _)) in kept.enumerated() {
                #expect(Self.close(rates[k].ebRateCurrent, expected[j] * 100_000, 1e-11), "round \(round) area \(k)")
            }
            #expect(rates.filter { $0.ebRateCurrent != nil }.count == kept.count, "round \(round)")
        }
    }
}
