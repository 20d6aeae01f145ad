import Testing

@testable import AreaWatchCore

@Suite("Classification")
struct ClassificationTests {
    @Test(
        "standard thresholds at the bounds",
        arguments: [
            (0, SafetyClass.safe), (4, .safe), (5, .medium), (9, .medium), (10, .dangerous), (11, .dangerous),
            (1000, .dangerous)
        ])
    func standardClasses(count: Int, expected: SafetyClass) {
        #expect(Thresholds.standard.classify(count) == expected)
        #expect(Thresholds.standard.classify(Double(count)) == expected)
    }

    @Test("fractional counts (density-equivalent) and custom thresholds")
    func fractional() {
        #expect(Thresholds.standard.classify(4.999_999) == .safe)
        #expect(Thresholds.standard.classify(5.0) == .medium)
        #expect(Thresholds.standard.classify(9.999_999) == .medium)
        #expect(Thresholds.standard.classify(10.0) == .dangerous)
        let t = Thresholds(medium: 2.5, dangerous: 2.5)
        #expect(t.classify(2) == .safe)
        #expect(t.classify(2.5) == .dangerous)
        #expect(Thresholds(medium: 0, dangerous: 0).classify(0) == .dangerous)
    }

    @Test("labels and order")
    func labels() {
        #expect(SafetyClass.safe.label == "Safe Area")
        #expect(SafetyClass.medium.label == "Medium Safety Area")
        #expect(SafetyClass.dangerous.label == "Dangerous Area")
        #expect(
            SafetyClass.safe.rawValue == "safe" && SafetyClass.medium.rawValue == "medium"
                && SafetyClass.dangerous.rawValue == "dangerous")
        #expect(SafetyClass.safe < .medium && SafetyClass.medium < .dangerous && !(SafetyClass.dangerous < .safe))
        #expect(SafetyClass.allCases.sorted() == [.safe, .medium, .dangerous])
    }

    @Test("parsing --thresholds")
    func parsing() {
        #expect(Thresholds(parsing: "5,10") == .standard)
        #expect(Thresholds(parsing: " 3 , 7 ") == Thresholds(medium: 3, dangerous: 7))
        #expect(Thresholds(parsing: "2.5,10") == Thresholds(medium: 2.5, dangerous: 10))
        #expect(Thresholds(parsing: "5,5") == Thresholds(medium: 5, dangerous: 5))
        #expect(Thresholds(parsing: "0,0") == Thresholds(medium: 0, dangerous: 0))
        for bad in ["", "5", "5,", ",10", "5,10,15", "10,5", "-1,5", "a,b", "nan,5", "inf,5", "5;10", "5,1e400"] {
            #expect(Thresholds(parsing: bad) == nil, "\"\(bad)\"")
        }
        #expect(Thresholds.standard.description == "5,10")
        #expect(Thresholds(medium: 2.5, dangerous: 10).description == "2.5,10")
    }

    @Test("year over year: delta, pct and text")
    func yearOverYear() {
        let up = YearOverYear(current: 3, previous: 0)
        #expect(up.delta == 3)
        #expect(up.pct == nil)
        #expect(up.text == "3 event(s) more than previous year")
        let same = YearOverYear(current: 5, previous: 5)
        #expect(same.delta == 0)
        #expect(same.pct == 0)
        #expect(same.text == "0 event(s) more than previous year")
        let down = YearOverYear(current: 1, previous: 3)
        #expect(down.delta == -2)
        #expect(down.pct == -2.0 / 3.0)
        #expect(down.text == "2 event(s) less than previous year")
        #expect(YearOverYear(current: 6, previous: 4).pct == 0.5)
        #expect(YearOverYear(current: 0, previous: 0).pct == nil)
        #expect(YearOverYear(current: 0, previous: 0).text == "0 event(s) more than previous year")
        #expect(YearOverYear(current: 0, previous: 7).pct == -1)
        #expect(YearOverYear(current: 0, previous: 7).text == "7 event(s) less than previous year")
    }
}
