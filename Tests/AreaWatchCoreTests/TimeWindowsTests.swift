import AreaWatchCore
import Testing

@testable import AreaWatchCore

private func at(_ text: String) -> Int64 { TimeParser.parse(text)!.seconds }

@Suite("TimeWindows")
struct TimeWindowsTests {
    @Test(
        "membership at the window edges",
        arguments: [
            "2024-06-15T12:00:00Z", "2020-02-29T00:00:00Z", "2021-03-01T00:00:00Z", "1970-01-01T00:00:00Z",
            "2000-01-01T00:00:00Z"
        ])
    func edges(asOf: String) {
        let t = at(asOf)
        let w = TimeWindows(asOf: t)
        let oneYear = UTCTime.subtractingYears(1, from: t)
        let twoYears = UTCTime.subtractingYears(2, from: t)
        #expect(w.asOf == t)
        #expect(w.currentStart == oneYear)
        #expect(w.previousStart == twoYears)
        #expect(w.membership(t) == .current)
        #expect(w.membership(t - 1) == .current)
        #expect(w.membership(t + 1) == .future)
        #expect(w.membership(Int64.max) == .future)
        #expect(w.membership(oneYear + 1) == .current)
        #expect(w.membership(oneYear) == .previous)
        #expect(w.membership(oneYear - 1) == .previous)
        #expect(w.membership(twoYears + 1) == .previous)
        #expect(w.membership(twoYears) == .older)
        #expect(w.membership(twoYears - 1) == .older)
        #expect(w.membership(UTCTime.earliest) == .older)
    }

    @Test("known windows")
    func knownWindows() {
        let w = TimeWindows(asOf: at("2024-06-15T12:00:00Z"))
        #expect(w.currentStart == at("2023-06-15T12:00:00Z"))
        #expect(w.previousStart == at("2022-06-15T12:00:00Z"))
        #expect(w.membership(at("2023-06-15T12:00:01Z")) == .current)
        #expect(w.membership(at("2023-06-15T12:00:00Z")) == .previous)
        #expect(w.membership(at("2022-06-15T12:00:00Z")) == .older)
        #expect(w.membership(at("2024-06-15T12:00:01Z")) == .future)
    }

    @Test("as-of on Feb 29: one year back is Feb 28, two years back too")
    func leapDayAsOf() {
        let w = TimeWindows(asOf: at("2020-02-29T10:00:00Z"))
        #expect(w.currentStart == at("2019-02-28T10:00:00Z"))
        #expect(w.previousStart == at("2018-02-28T10:00:00Z"))
        #expect(w.membership(at("2019-02-28T10:00:00Z")) == .previous)
        #expect(w.membership(at("2019-02-28T10:00:01Z")) == .current)
        #expect(w.membership(at("2019-03-01T00:00:00Z")) == .current)
        #expect(w.membership(at("2018-02-28T10:00:00Z")) == .older)
        #expect(w.membership(at("2018-02-28T10:00:01Z")) == .previous)
        // Four years back is a leap year again, but the windows only reach two.
        let w2024 = TimeWindows(asOf: at("2024-02-29T00:00:00Z"))
        #expect(w2024.currentStart == at("2023-02-28T00:00:00Z"))
        #expect(w2024.previousStart == at("2022-02-28T00:00:00Z"))
        // The day after a leap day.
        let w2021 = TimeWindows(asOf: at("2021-02-28T00:00:00Z"))
        #expect(w2021.currentStart == at("2020-02-28T00:00:00Z"))
        #expect(w2021.membership(at("2020-02-29T00:00:00Z")) == .current)
    }

    @Test("random instants fall in exactly the window their comparison says")
    func randomMembership() {
        let seed = testSeed(0x3140_0001)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<3000 {
            let t = Int64(rng.int(-2_000_000_000...4_000_000_000))
            let w = TimeWindows(asOf: t)
            let e = t + Int64(rng.int(-3 * 366 * 86_400...86_400))
            let expected: WindowMembership =
                e > t
                ? .future
                : e > UTCTime.subtractingYears(1, from: t)
                    ? .current
                    : e > UTCTime.subtractingYears(2, from: t) ? .previous : .older
            #expect(w.membership(e) == expected, "seed \(seed): as-of \(t), event \(e)")
            #expect(w.previousStart < w.currentStart && w.currentStart < w.asOf)
        }
    }
}
