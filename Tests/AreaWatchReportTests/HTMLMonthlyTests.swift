import AreaWatchCore
import Testing

@testable import AreaWatchReport

@Suite("monthly trend text")
struct HTMLMonthlyTests {
    static func month(_ y: Int, _ m: Int) -> Int { MonthSeries.number(year: y, month: m) }

    @Test("months covered: single months, runs, and more than eight runs summarised")
    func coverage() {
        let julys = MonthSeries(sparse: [Self.month(2016, 7): 5, Self.month(2017, 7): 6, Self.month(2018, 7): 7])
        #expect(HTMLMonthly.coverage(julys) == "The data holds July 2016, July 2017 and July 2018.")
        let run = MonthSeries(sparse: [
            Self.month(2016, 11): 1, Self.month(2016, 12): 1, Self.month(2017, 1): 1,
            Self.month(2017, 5): 2
        ])
        #expect(HTMLMonthly.coverage(run) == "The data holds November 2016 to January 2017 and May 2017.")
        #expect(HTMLMonthly.coverage(MonthSeries(sparse: [Self.month(2020, 2): 1])) == "The data holds February 2020.")
        var everyOther: [Int: Int] = [:]
        for k in 0..<9 { everyOther[Self.month(2020, 1) + 2 * k] = 1 }
        #expect(
            HTMLMonthly.coverage(MonthSeries(sparse: everyOther))
                == "The data holds 9 months between January 2020 and May 2021; 8 months between them hold no incident.")
        #expect(HTMLMonthly.coverage(MonthSeries()) == "The data holds no month.")
    }

    @Test("partial years and their months")
    func partialYears() {
        var sparse: [Int: Int] = [:]
        for m in 1...12 { sparse[Self.month(2017, m)] = 1 }
        for m in [1, 2, 3, 7] { sparse[Self.month(2018, m)] = 1 }
        let partial = HTMLMonthly.partialYears(MonthSeries(sparse: sparse))
        #expect(partial.keys.sorted() == [2018])
        #expect(HTMLMonthly.partialText(partial[2018]!) == "partial: January to March, July")
    }
}
