import AreaWatchCore
import Testing

@testable import AreaWatchCore

/// Days since 1970-01-01 counted the slow, obvious way: whole years from 0001-01-01, then months.
private func referenceDays(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(year - 1)
    var days = 365 * y + y / 4 - y / 100 + y / 400
    let cumulative = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    days += Int64(cumulative[month - 1] + (month > 2 && leap ? 1 : 0) + day - 1)
    return days - 719_162 // 0001-01-01 is 719,162 days before 1970-01-01
}

private func referenceEpoch(_ c: CivilTime) -> Int64 {
    referenceDays(year: c.year, month: c.month, day: c.day) * 86_400 + Int64(c.hour * 3600 + c.minute * 60 + c.second)
}

@Suite("UTCTime")
struct UTCTimeTests {
    @Test("known instants")
    func knownValues() {
        #expect(UTCTime.epochSeconds(CivilTime(year: 1970, month: 1, day: 1)) == 0)
        #expect(UTCTime.epochSeconds(CivilTime(year: 2000, month: 2, day: 29)) == 951_782_400)
        #expect(
            UTCTime.epochSeconds(CivilTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59))
                == 253_402_300_799)
        #expect(UTCTime.epochSeconds(CivilTime(year: 1, month: 1, day: 1)) == -62_135_596_800)
        #expect(UTCTime.epochSeconds(CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59)) == -1)
        #expect(UTCTime.epochSeconds(CivilTime(year: 2014, month: 3, day: 2, hour: 5)) == 1_393_736_400)
        #expect(UTCTime.earliest == -62_135_596_800)
        #expect(UTCTime.latest == 253_402_300_799)
        #expect(UTCTime.civil(0) == CivilTime(year: 1970, month: 1, day: 1))
        #expect(UTCTime.civil(-1) == CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        #expect(UTCTime.civil(951_782_400) == CivilTime(year: 2000, month: 2, day: 29))
        #expect(
            UTCTime.civil(253_402_300_799)
                == CivilTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        #expect(UTCTime.civil(-62_135_596_800) == CivilTime(year: 1, month: 1, day: 1))
        #expect(UTCTime.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(UTCTime.iso8601(-1) == "1969-12-31T23:59:59Z")
        #expect(UTCTime.iso8601(UTCTime.earliest) == "0001-01-01T00:00:00Z")
        #expect(UTCTime.iso8601(UTCTime.latest) == "9999-12-31T23:59:59Z")
        #expect(UTCTime.iso8601(1_393_736_400) == "2014-03-02T05:00:00Z")
        #expect(UTCTime.isoDate(951_782_400 + 86_399) == "2000-02-29")
        #expect(UTCTime.isoDate(UTCTime.earliest) == "0001-01-01")
        #expect(UTCTime.year(of: -1) == 1969)
        #expect(UTCTime.year(of: 0) == 1970)
        #expect(UTCTime.year(of: UTCTime.latest) == 9999)
    }

    @Test(
        "year(of:) equals the calendar conversion's year: random instants, every New Year's second and the one before, outside the table"
    )
    func yearOfMatchesCivil() {
        var rng = SplitMix64(seed: 1900)
        var instants: [Int64] = [
            UTCTime.earliest, UTCTime.latest, -2_208_988_801, -2_208_988_800, 7_258_118_399, 7_258_118_400
        ]
        for year in 1899...2201 {
            let start = UTCTime.days(year: year, month: 1, day: 1) * 86_400
            instants += [start - 1, start, start + 1]
        }
        for _ in 0..<100_000 { instants.append(Int64(rng.uniform(-2.3e9, 7.4e9))) }
        for _ in 0..<1_000 { instants.append(Int64(rng.uniform(Double(UTCTime.earliest), Double(UTCTime.latest)))) }
        for t in instants { #expect(UTCTime.year(of: t) == UTCTime.civil(t).year, "\(t)") }
    }

    @Test("leap years and month lengths")
    func calendarRules() {
        for (y, leap) in [
            (1900, false), (2000, true), (2023, false), (2024, true), (2100, false), (1600, true), (4, true),
            (1, false), (9996, true)
        ] {
            #expect(UTCTime.isLeapYear(y) == leap, "\(y)")
        }
        #expect(UTCTime.daysInMonth(year: 2024, month: 2) == 29)
        #expect(UTCTime.daysInMonth(year: 2023, month: 2) == 28)
        #expect(UTCTime.daysInMonth(year: 1900, month: 2) == 28)
        #expect(
            (1...12).map { UTCTime.daysInMonth(year: 2023, month: $0) } == [
                31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
            ])
    }

    @Test("floorDivide rounds toward −∞")
    func floorDivide() {
        #expect(UTCTime.floorDivide(-1, 86_400) == -1)
        #expect(UTCTime.floorDivide(-86_400, 86_400) == -1)
        #expect(UTCTime.floorDivide(-86_401, 86_400) == -2)
        #expect(UTCTime.floorDivide(86_399, 86_400) == 0)
        #expect(UTCTime.floorDivide(0, 86_400) == 0)
        #expect(UTCTime.floorDivide(-1001, 1000) == -2)
        #expect(UTCTime.floorDivide(5, -2) == -3)
        #expect(UTCTime.floorDivide(-5, -2) == 2)
    }

    @Test("civil ↔ epoch round trip over years 1…9999, against a slow reference")
    func randomRoundTrip() {
        let seed = testSeed(0x7140_0001)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            let t = Int64(rng.int(Int(UTCTime.earliest)...Int(UTCTime.latest)))
            let c = UTCTime.civil(t)
            #expect(
                (1...9999).contains(c.year) && (1...12).contains(c.month)
                    && (1...UTCTime.daysInMonth(year: c.year, month: c.month)).contains(c.day)
                    && (0..<24).contains(c.hour) && (0..<60).contains(c.minute) && (0..<60).contains(c.second),
                "seed \(seed): t \(t) → \(c)")
            #expect(UTCTime.epochSeconds(c) == t, "seed \(seed): t \(t) → \(c)")
            #expect(referenceEpoch(c) == t, "seed \(seed): t \(t) → \(c) disagrees with the reference")
            // And from a random civil date.
            let y = rng.int(1...9999), m = rng.int(1...12)
            let random = CivilTime(
                year: y, month: m, day: rng.int(1...UTCTime.daysInMonth(year: y, month: m)),
                hour: rng.int(0...23), minute: rng.int(0...59), second: rng.int(0...59))
            #expect(UTCTime.epochSeconds(random) == referenceEpoch(random), "seed \(seed): \(random)")
            #expect(UTCTime.civil(UTCTime.epochSeconds(random)) == random, "seed \(seed): \(random)")
        }
    }

    @Test("every day of a 400-year cycle and of the first and last years follows the previous one")
    func consecutiveDays() {
        func check(from start: CivilTime, days: Int) {
            var previous = UTCTime.civil(UTCTime.epochSeconds(start))
            #expect(previous == start)
            let t0 = UTCTime.epochSeconds(start)
            var ok = true
            for k in 1...days {
                let c = UTCTime.civil(t0 + Int64(k) * 86_400)
                var expected = previous
                expected.day += 1
                if expected.day > UTCTime.daysInMonth(year: expected.year, month: expected.month) {
                    expected.day = 1
                    expected.month += 1
                    if expected.month > 12 {
                        expected.month = 1
                        expected.year += 1
                    }
                }
                if c != expected {
                    ok = false
                    Issue.record("day after \(previous) was \(c)")
                    break
                }
                previous = c
            }
            #expect(ok)
        }
        check(from: CivilTime(year: 1600, month: 3, day: 1), days: 146_097)
        check(from: CivilTime(year: 1, month: 1, day: 1), days: 3 * 366)
        check(from: CivilTime(year: 9996, month: 1, day: 1), days: 4 * 365)
    }

    @Test(
        "calendar subtraction of years",
        arguments: [
            ("2020-02-29T00:00:00Z", 1, "2019-02-28T00:00:00Z"),
            ("2020-02-29T12:34:56Z", 1, "2019-02-28T12:34:56Z"),
            ("2020-02-29T12:34:56Z", 2, "2018-02-28T12:34:56Z"),
            ("2020-02-29T12:34:56Z", 4, "2016-02-29T12:34:56Z"),
            ("2021-03-01T00:00:00Z", 1, "2020-03-01T00:00:00Z"),
            ("2020-03-01T00:00:00Z", 1, "2019-03-01T00:00:00Z"),
            ("2021-02-28T23:59:59Z", 1, "2020-02-28T23:59:59Z"),
            ("2019-02-28T00:00:00Z", 1, "2018-02-28T00:00:00Z"),
            ("2000-12-31T23:59:59Z", 1, "1999-12-31T23:59:59Z"),
            ("2000-01-01T00:00:00Z", 1, "1999-01-01T00:00:00Z"),
            ("2400-02-29T06:00:00Z", 100, "2300-02-28T06:00:00Z"),
            ("0002-01-01T00:00:00Z", 1, "0001-01-01T00:00:00Z"),
            ("1970-01-01T00:00:00Z", 1, "1969-01-01T00:00:00Z")
        ])
    func subtractingYears(from: String, years: Int, expected: String) throws {
        let t = try #require(TimeParser.parse(from)).seconds
        #expect(UTCTime.iso8601(UTCTime.subtractingYears(years, from: t)) == expected)
    }

    @Test("subtracting years keeps month, day and time of day (Feb 29 → Feb 28)")
    func subtractingYearsProperty() {
        let seed = testSeed(0x7140_0002)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<5000 {
            let t = Int64(rng.int(-30_000_000_000...Int(UTCTime.latest)))
            let k = rng.int(0...3)
            let c = UTCTime.civil(t)
            let r = UTCTime.civil(UTCTime.subtractingYears(k, from: t))
            var expected = c
            expected.year -= k
            if c.month == 2 && c.day == 29 && !UTCTime.isLeapYear(expected.year) { expected.day = 28 }
            #expect(r == expected, "seed \(seed): \(c) − \(k) y")
        }
    }
}
