/// Incidents per UTC calendar month (SPEC §8 `timeseries.csv`), dense from the first month holding
/// an incident to the last, zeros between. A month is numbered `year × 12 + (month − 1)`, so
/// consecutive months are consecutive integers across year ends.
///
/// Invariant: `counts` is empty, or its first and last entries are non-zero.
public struct MonthSeries: Sendable, Equatable {
    /// The number of the first month (meaningless when empty).
    public private(set) var first: Int
    public private(set) var counts: [Int]

    public init() {
        first = 0
        counts = []
    }

    /// `counts[k]` is the count of month `first + k`; leading and trailing zeros are dropped.
    public init(first: Int, counts: [Int]) {
        guard let low = counts.firstIndex(where: { $0 != 0 }), let high = counts.lastIndex(where: { $0 != 0 }) else {
            self.first = 0
            self.counts = []
            return
        }
        self.first = first + low
        self.counts = Array(counts[low...high])
    }

    /// From month number → count (zero entries allowed).
    public init(sparse: [Int: Int]) {
        let held = sparse.filter { $0.value != 0 }
        guard let low = held.keys.min(), let high = held.keys.max() else {
            self.init()
            return
        }
        var counts = [Int](repeating: 0, count: high - low + 1)
        for (month, n) in held { counts[month - low] = n }
        self.init(first: low, counts: counts)
    }

    public var isEmpty: Bool { counts.isEmpty }

    /// The months from the first holding an incident to the last.
    public var months: Range<Int> { first..<(first + counts.count) }

    /// The count of any month (0 outside the series).
    public subscript(month: Int) -> Int {
        months.contains(month) ? counts[month - first] : 0
    }

    /// Month number → count of the months holding an incident.
    public var sparse: [Int: Int] {
        var out: [Int: Int] = [:]
        for (k, n) in counts.enumerated() where n != 0 { out[first + k] = n }
        return out
    }

    /// The series with every count below `k` (SPEC §10's withheld counts) made 0 and the ends
    /// trimmed again: a withheld month looks like a month without incidents.
    public func withholding(below k: Int) -> MonthSeries {
        guard k > 1 else { return self }
        return MonthSeries(first: first, counts: counts.map { $0 < k ? 0 : $0 })
    }

    public static func number(year: Int, month: Int) -> Int { year * 12 + (month - 1) }

    public static func year(ofMonth number: Int) -> Int { Int(UTCTime.floorDivide(Int64(number), 12)) }

    /// 1…12.
    public static func monthOfYear(_ number: Int) -> Int { number - year(ofMonth: number) * 12 + 1 }

    /// `YYYY-MM`.
    public static func label(_ number: Int) -> String {
        let y = String(year(ofMonth: number)), m = String(monthOfYear(number))
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + (m.count == 1 ? "-0" : "-") + m
    }

    /// The month number of an instant.
    @inline(__always)
    public static func number(of t: Int64) -> Int {
        let (year, month) = UTCTime.yearMonth(of: t)
        return number(year: year, month: month)
    }
}

extension UTCTime {
    /// The UTC calendar year and month (1…12) of an instant. Between 1900 and 2199 from the day of
    /// the year (`year(of:)` is table-driven there), otherwise from `civil`.
    @inline(__always)
    public static func yearMonth(of t: Int64) -> (year: Int, month: Int) {
        let year = year(of: t)
        guard year >= 1900 && year < 2200 else {
            let c = civil(t)
            return (c.year, c.month)
        }
        var day = Int((t - days(year: year, month: 1, day: 1) * 86_400) / 86_400)
        if isLeapYear(year) && day >= 59 {
            if day == 59 { return (year, 2) } // 29 February
            day -= 1
        }
        return (year, Int(monthOfDay[day]))
    }

    /// Month (1…12) of each day of a common year, 0-based.
    private static let monthOfDay: [UInt8] = (1...12).flatMap { m in
        [UInt8](repeating: UInt8(m), count: daysInMonth(year: 2001, month: m))
    }
}
