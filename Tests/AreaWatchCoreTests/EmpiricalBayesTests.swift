import AreaWatchCore
import Testing

/// SPEC §17's smoothing against PySAL's `esda.smoothing.Empirical_Bayes` (values printed by
/// Benchmarks/peers/eb_fixtures.py): equal to 1e-12 where esda's prior variance is ≥ 0; where it
/// is negative, areawatch takes it as 0 and every area gets the global rate.
@Suite("Empirical Bayes rates (SPEC §17)")
struct EmpiricalBayesTests {
    static let esda: [(String, [Double], [Double], [Double], Double)] = [
        (
            "wards", [212.0, 48.0, 97.0, 5.0, 160.0, 33.0, 71.0, 0.0, 254.0, 19.0, 88.0, 3.0],
            [17340.0, 9120.0, 12877.0, 410.0, 15002.0, 6311.0, 11030.0, 7420.0, 21650.0, 5009.0, 10240.0, 150.0],
            [
                0.012072431690823733, 0.005506927053322646, 0.007585312778636863, 0.009808238996140316,
                0.010562582470423602, 0.005573395238841678, 0.006567006033327871, 0.0007743889740567658,
                0.011624454027253237, 0.004401311494674507, 0.00858695993774926, 0.010423351273997126
            ], 1.1410286885229817e-05
        ),
        (
            "varied", [1.0, 40.0, 3.0, 90.0, 12.0, 0.0, 55.0], [1000.0, 1200.0, 900.0, 1500.0, 2000.0, 800.0, 700.0],
            [
                0.001774900514429907, 0.03310109003140067, 0.004107176842387348, 0.059228379961605175,
                0.006311166235601471, 0.0010011548396319221, 0.0761069890830988
            ], 0.0007378123979358546
        ),
        (
            "flat", [10.0, 12.0, 9.0, 11.0, 10.0], [1000.0, 1100.0, 950.0, 1000.0, 1050.0],
            [
                0.013152899634877674, 0.033479106173875006, 0.016096270400373702, -0.0019268885029984362,
                0.05346476941828315
            ], -9.561985597316138e-06
        )
    ]

    @Test("equal to esda where its variance is not negative; the global rate where it is")
    func againstEsda() {
        for (name, events, populations, esdaRates, esdaVariance) in Self.esda {
            let estimate = EmpiricalBayes.smooth(events: events, populations: populations)
            #expect(abs(estimate.priorVarianceUnclamped - esdaVariance) <= 1e-12 * max(1, abs(esdaVariance)), "\(name)")
            let m = events.reduce(0, +) / populations.reduce(0, +)
            for i in events.indices {
                let expected = esdaVariance >= 0 ? esdaRates[i] : m
                #expect(abs(estimate.smoothed[i] - expected) <= 1e-12 * max(1, abs(expected)), "\(name) area \(i)")
            }
        }
    }

    @Test("every weight in [0, 1]: a smoothed rate lies between the raw rate and the global rate")
    func between() {
        for (_, events, populations, _, _) in Self.esda {
            let estimate = EmpiricalBayes.smooth(events: events, populations: populations)
            for i in events.indices {
                let raw = events[i] / populations[i]
                let (low, high) = (min(raw, estimate.globalRate), max(raw, estimate.globalRate))
                #expect(estimate.smoothed[i] >= low - 1e-18 && estimate.smoothed[i] <= high + 1e-18)
            }
        }
    }

    @Test("the area with far fewer residents is pulled hardest toward the global rate")
    func smallAreaShrinks() {
        let (_, events, populations, _, _) = Self.esda[0]
        let estimate = EmpiricalBayes.smooth(events: events, populations: populations)
        let shrink = events.indices.map { i in
            abs(estimate.smoothed[i] - events[i] / populations[i])
                / max(1e-300, abs(events[i] / populations[i] - estimate.globalRate))
        }
        let smallest = populations.indices.min { populations[$0] < populations[$1] }!
        #expect(shrink[smallest] == shrink.max())
    }

    @Test("no events anywhere: every rate 0; no areas: nothing")
    func degenerate() {
        #expect(EmpiricalBayes.smooth(events: [0, 0, 0], populations: [10, 20, 30]).smoothed == [0, 0, 0])
        #expect(EmpiricalBayes.smooth(events: [], populations: []).smoothed.isEmpty)
    }
}
