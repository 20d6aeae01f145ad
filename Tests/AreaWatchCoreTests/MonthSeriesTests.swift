import AreaWatchCore
import Testing

/// The first day (days since 1970-01-01) of a month, counted the slow way: whole years from
/// 0001-01-01, then whole months.
private func referenceMonthStart(year: Int, month: Int) -> Int64 {
    let y = Int64(year - 1)
    var days = 365 * y + y / 4 - y / 100 + y / 400
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    days += Int64(lengths.prefix(month - 1).reduce(0, +))
    return days - 719_162
}

/// The month of an instant by binary search over month starts (no calendar arithmetic shared
/// with the engine).
private func referenceMonth(of t: Int64) -> (year: Int, month: Int) {
    let day = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
    var low = 12, high = 10_000 * 12 // month numbers year × 12 + month − 1, 0001-01 … 9999-12
    while high - low > 1 {
        let mid = (low + high) / 2
        if referenceMonthStart(year: mid / 12, month: mid % 12 + 1) <= day { low = mid } else { high = mid }
    }
    return (low / 12, low % 12 + 1)
}

@Suite("monthly series")
struct MonthSeriesTests {
    @Test("year and month of random instants, month and year edges and negative epochs, as brute force gives them")
    func yearMonthAgainstBruteForce() {
        var rng = SplitMix64(seed: 28)
        var instants: [Int64] = [
            0, -1, 951_782_399, 951_782_400, 951_868_799, 951_868_800,
            UTCTime.earliest, UTCTime.latest, -2_208_988_801, -2_208_988_800,
            7_258_118_399, 7_258_118_400
        ]
        for _ in 0..<20_000 { instants.append(Int64.random(in: UTCTime.earliest...UTCTime.latest, using: &rng)) }
        // Around 1850…2250 (inside and outside the engine's year table), the first and last
        // second of random months, and every 29 February of the range.
        for _ in 0..<20_000 {
            let year = Int.random(in: 1850...2250, using: &rng), month = Int.random(in: 1...12, using: &rng)
            let start = referenceMonthStart(year: year, month: month) * 86_400
            instants += [start - 1, start, start + Int64.random(in: 0..<(28 * 86_400), using: &rng)]
        }
        for year in stride(from: 1852, through: 2248, by: 4) {
            let feb29 = referenceMonthStart(year: year, month: 2) * 86_400 + 28 * 86_400
            instants += [feb29 - 1, feb29, feb29 + 86_399, feb29 + 86_400]
        }
        var wrong: [Int64] = []
        for t in instants {
            let expected = referenceMonth(of: t)
            let got = UTCTime.yearMonth(of: t)
            if got != expected { wrong.append(t) }
            if MonthSeries.number(of: t) != expected.year * 12 + expected.month - 1 { wrong.append(t) }
        }
        #expect(wrong.isEmpty, "wrong months at \(wrong.prefix(10))")
    }

    @Test("a series from random instants holds brute-force counts, zeros between, trimmed ends")
    func seriesAgainstBruteForce() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<200 {
            let base = Int64.random(in: -3_000_000_000...3_000_000_000, using: &rng)
            let spread = Int64.random(in: 1...(round % 2 == 0 ? 90 * 86_400 : 3 * 365 * 86_400), using: &rng)
            let n = Int.random(in: 0...60, using: &rng)
            let times = (0..<n).map { _ in base + Int64.random(in: 0...spread, using: &rng) }
            var sparse: [Int: Int] = [:]
            for t in times { sparse[MonthSeries.number(of: t), default: 0] += 1 }
            let series = MonthSeries(sparse: sparse)
            var expected: [Int: Int] = [:]
            for t in times {
                let (y, m) = referenceMonth(of: t)
                expected[y * 12 + m - 1, default: 0] += 1
            }
            #expect(series.counts.reduce(0, +) == times.count)
            #expect(series.sparse == expected)
            if let low = expected.keys.min(), let high = expected.keys.max() {
                #expect(series.months == low..<(high + 1))
                #expect(series.months.allSatisfy { series[$0] == expected[$0, default: 0] })
            } else {
                #expect(series.isEmpty)
            }
        }
    }

    @Test("labels are YYYY-MM, and withholding below K empties months and trims the ends again")
    func labelsAndWithholding() {
        #expect(MonthSeries.label(MonthSeries.number(year: 2016, month: 7)) == "2016-07")
        #expect(MonthSeries.label(MonthSeries.number(year: 1969, month: 12)) == "1969-12")
        #expect(MonthSeries.label(MonthSeries.number(year: 1, month: 1)) == "0001-01")
        #expect(MonthSeries.label(MonthSeries.number(year: 9999, month: 12)) == "9999-12")
        #expect(MonthSeries.number(year: 2017, month: 1) == MonthSeries.number(year: 2016, month: 12) + 1)
        let series = MonthSeries(first: 100, counts: [0, 2, 0, 5, 1, 7, 1, 0])
        #expect(series.first == 101 && series.counts == [2, 0, 5, 1, 7, 1])
        let withheld = series.withholding(below: 3)
        #expect(withheld.first == 103 && withheld.counts == [5, 0, 7])
        #expect(series.withholding(below: 1) == series)
        #expect(MonthSeries(first: 5, counts: [0, 0]).isEmpty)
        #expect(series.withholding(below: 8).isEmpty)
    }
}
