import AreaWatchCore
import AreaWatchQuery
import Testing

/// SPEC §7 windows seen through the index: each incident sits alone at its own location (the
/// locations are ≥ 100 km apart), so the point answer there says which window it is in.
@Suite("Windows at the boundaries, through the index")
struct WindowTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var time: Int64
        var expected: ReferenceWindows.Window
        var testDescription: String { label }
    }

    /// Counts a location's answer and the totals give for one incident alone.
    static func check(asOf: Int64, cases: [Case]) throws {
        var rows: [TestIncident] = []
        for (k, c) in cases.enumerated() {
            rows.append(
                TestIncident(lat: -60 + Double(k), lon: 10 + Double(k), time: c.time, handled: true, category: nil))
        }
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: asOf, radius: 1000))
        var future = 0
        for (k, c) in cases.enumerated() {
            let a = index.pointAnswer(lat: rows[k].lat, lon: rows[k].lon)
            let got: ReferenceWindows.Window
            switch (a.current, a.previous) {
            case (1, 0): got = .current
            case (0, 1): got = .previous
            case (0, 0): got = index.codes.contains(Geohash.code(lat: rows[k].lat, lon: rows[k].lon)) ? .older : .future
            default:
                Issue.record("\(c.label): current \(a.current), previous \(a.previous)")
                continue
            }
            #expect(got == c.expected, "\(c.label) at \(UTCTime.iso8601(c.time)): \(got), expected \(c.expected)")
            #expect(a.handled == (c.expected == .current ? 1 : 0), "\(c.label): handled counts the current window only")
            if c.expected == .future { future += 1 }
        }
        let totals = index.totals()
        #expect(totals.current == cases.filter { $0.expected == .current }.count)
        #expect(totals.previous == cases.filter { $0.expected == .previous }.count)
        #expect(totals.older == cases.filter { $0.expected == .older }.count)
        #expect(totals.excludedFuture == future)
        #expect(index.excludedFuture == future)
        // The grid sees the same windows: n_current / n_previous of each incident's own cell.
        let grid = index.grid(precision: 7)
        for (k, c) in cases.enumerated() {
            let cell = grid.cells.first { $0.cell == GeohashCell(lat: rows[k].lat, lon: rows[k].lon, precision: 7) }
            switch c.expected {
            case .current: #expect(cell?.nCurrent == 1 && cell?.nPrevious == 0 && cell?.rCurrent == 1, "\(c.label)")
            case .previous: #expect(cell?.nCurrent == 0 && cell?.nPrevious == 1 && cell?.rPrevious == 1, "\(c.label)")
            case .older, .future: #expect(cell == nil, "\(c.label): an \(c.expected) incident reports no cell")
            }
        }
    }

    @Test("as-of 2018-07-31T23:59:59Z: T − 1 y previous, T − 1 y + 1 s current, T − 2 y older, T + 1 s future")
    func ordinaryAsOf() throws {
        let t = epoch("2018-07-31T23:59:59Z")
        let oneYear = epoch("2017-07-31T23:59:59Z"), twoYears = epoch("2016-07-31T23:59:59Z")
        let reference = ReferenceWindows(asOf: t)
        #expect(reference.currentStart == oneYear && reference.previousStart == twoYears)
        let windows = TimeWindows(asOf: t)
        #expect(windows.currentStart == oneYear)
        #expect(windows.previousStart == twoYears)
        try Self.check(
            asOf: t,
            cases: [
                Case(label: "T − 1 year", time: oneYear, expected: .previous),
                Case(label: "T − 1 year + 1 s", time: oneYear + 1, expected: .current),
                Case(label: "T − 1 year − 1 s", time: oneYear - 1, expected: .previous),
                Case(label: "T − 2 years", time: twoYears, expected: .older),
                Case(label: "T − 2 years + 1 s", time: twoYears + 1, expected: .previous),
                Case(label: "T − 2 years − 1 s", time: twoYears - 1, expected: .older),
                Case(label: "T", time: t, expected: .current),
                Case(label: "T − 1 s", time: t - 1, expected: .current),
                Case(label: "T + 1 s", time: t + 1, expected: .future),
                Case(label: "T + 1 year", time: epoch("2019-07-31T23:59:59Z"), expected: .future),
                Case(label: "1970-01-01", time: 0, expected: .older),
                Case(label: "before 1970", time: epoch("1900-03-01T00:00:00Z"), expected: .older)
            ])
    }

    @Test("as-of on Feb 29: 2020-02-29 − 1 year = 2019-02-28, − 2 years = 2018-02-28")
    func leapDayAsOf() throws {
        let t = epoch("2020-02-29T12:00:00Z")
        let oneYear = epoch("2019-02-28T12:00:00Z"), twoYears = epoch("2018-02-28T12:00:00Z")
        #expect(oneYear == 1_551_355_200 && twoYears == 1_519_819_200)
        let reference = ReferenceWindows(asOf: t)
        #expect(reference.currentStart == oneYear && reference.previousStart == twoYears)
        #expect(TimeWindows(asOf: t).currentStart == oneYear)
        #expect(TimeWindows(asOf: t).previousStart == twoYears)
        try Self.check(
            asOf: t,
            cases: [
                Case(label: "2019-02-28T12:00:00Z (T − 1 year)", time: oneYear, expected: .previous),
                Case(label: "2019-02-28T12:00:01Z", time: oneYear + 1, expected: .current),
                Case(label: "2019-03-01T12:00:00Z", time: epoch("2019-03-01T12:00:00Z"), expected: .current),
                Case(label: "2018-02-28T12:00:00Z (T − 2 years)", time: twoYears, expected: .older),
                Case(label: "2018-02-28T12:00:01Z", time: twoYears + 1, expected: .previous),
                Case(label: "2020-02-29T12:00:00Z (T)", time: t, expected: .current),
                Case(label: "2020-02-29T12:00:01Z", time: t + 1, expected: .future)
            ])
    }

    @Test("as-of 2021-03-01 and 2024-02-29: calendar subtraction, not 365 days")
    func otherCalendarCases() throws {
        // 2021-03-01 − 1 year = 2020-03-01 (366 days earlier, the leap day lies in between).
        let t = epoch("2021-03-01T00:00:00Z")
        #expect(TimeWindows(asOf: t).currentStart == epoch("2020-03-01T00:00:00Z"))
        try Self.check(
            asOf: t,
            cases: [
                Case(label: "2020-03-01 (T − 1 year)", time: epoch("2020-03-01T00:00:00Z"), expected: .previous),
                Case(label: "2020-03-01 + 1 s", time: epoch("2020-03-01T00:00:01Z"), expected: .current),
                Case(label: "2020-02-29", time: epoch("2020-02-29T23:59:59Z"), expected: .previous),
                Case(label: "2019-03-01 (T − 2 years)", time: epoch("2019-03-01T00:00:00Z"), expected: .older)
            ])
        let leap = epoch("2024-02-29T00:00:00Z")
        #expect(TimeWindows(asOf: leap).currentStart == epoch("2023-02-28T00:00:00Z"))
        #expect(TimeWindows(asOf: leap).previousStart == epoch("2022-02-28T00:00:00Z"))
        let ref = ReferenceWindows(asOf: leap)
        #expect(ref.currentStart == epoch("2023-02-28T00:00:00Z") && ref.previousStart == epoch("2022-02-28T00:00:00Z"))
    }
}

/// `--category` and `--handled` (SPEC §7): unknown handled matches neither true nor false.
@Suite("Filters")
struct FilterTests {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let here = (lat: 53.7248, lon: -1.8658)

    /// At one place: current-window incidents with every handled/category combination, a few in
    /// the previous window, and some in the future.
    static let incidents: [TestIncident] = {
        let cur = epoch("2018-03-01T10:00:00Z"), prev = epoch("2017-03-01T10:00:00Z")
        let future = epoch("2018-08-02T00:00:00Z")
        let spec: [(Int64, Bool?, String?)] = [
            (cur, true, "Burglary"), (cur, true, "Robbery"),
            (cur, false, "Burglary"), (cur, false, "Burglary"), (cur, false, nil),
            (cur, nil, "Burglary"), (cur, nil, "Robbery"), (cur, nil, nil), (cur, nil, nil),
            (prev, true, "Burglary"), (prev, false, "Robbery"), (prev, nil, nil),
            (future, true, "Burglary"), (future, nil, nil)
        ]
        var rng = SplitMix64(seed: 7)
        return spec.map { t, h, c in
            // Within ~300 m of `here`.
            TestIncident(
                lat: here.lat + rng.uniform(-0.002...0.002), lon: here.lon + rng.uniform(-0.003...0.003),
                time: t, handled: h, category: c)
        }
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        var categories: Set<String>
        var handled: Bool?
        var testDescription: String {
            "categories \(categories.sorted()) handled \(handled.map(String.init(describing:)) ?? "any")"
        }
    }

    static let cases: [Case] = [
        Case(categories: [], handled: nil),
        Case(categories: [], handled: true),
        Case(categories: [], handled: false),
        Case(categories: ["Burglary"], handled: nil),
        Case(categories: ["Burglary", "Robbery"], handled: nil),
        Case(categories: ["Burglary"], handled: false),
        Case(categories: ["Robbery"], handled: true),
        Case(categories: ["No such category"], handled: nil)
    ]

    /// The filter as SPEC §7 states it, applied to the rows.
    static func passes(_ i: TestIncident, _ c: Case) -> Bool {
        if !c.categories.isEmpty { guard let cat = i.category, c.categories.contains(cat) else { return false } }
        if let h = c.handled { guard i.handled == h else { return false } }
        return true
    }

    @Test("point answers, totals and grid honour the filters", arguments: cases)
    func filtered(_ c: Case) throws {
        let params = QueryParameters(asOf: Self.asOf, radius: 1000, categories: c.categories, handled: c.handled)
        let index = IncidentIndex(columns: Self.incidents.columns, parameters: params)
        let kept = Self.incidents.filter { Self.passes($0, c) }
        let windows = ReferenceWindows(asOf: Self.asOf)
        let expected = referencePoint(kept, windows: windows, lat: Self.here.lat, lon: Self.here.lon, radius: 1000)
        let answer = index.pointAnswer(lat: Self.here.lat, lon: Self.here.lon)
        #expect(answer.current == expected.current)
        #expect(answer.previous == expected.previous)
        #expect(answer.handled == expected.handled)
        let totals = index.totals()
        #expect(totals.current == kept.filter { windows.window($0.time) == .current }.count)
        #expect(totals.previous == kept.filter { windows.window($0.time) == .previous }.count)
        let grid = index.grid(precision: 7)
        #expect(grid.cells.reduce(0) { $0 + $1.nCurrent } == totals.current)
        #expect(grid.cells.reduce(0) { $0 + $1.nPrevious } == totals.previous)
        let reference = ReferenceGrid.grid(kept, windows: windows, radius: 1000, precision: 7)
        let diffs = gridDifferences(expected: reference, actual: grid.rows)
        #expect(diffs.isEmpty, "\(diffs.joined(separator: "\n"))")
    }

    @Test("hand-counted answers: unknown handled matches neither true nor false")
    func handCounted() {
        func answer(_ categories: Set<String>, _ handled: Bool?) -> (Int, Int, Int) {
            let index = IncidentIndex(
                columns: Self.incidents.columns,
                parameters: QueryParameters(asOf: Self.asOf, categories: categories, handled: handled))
            let a = index.pointAnswer(lat: Self.here.lat, lon: Self.here.lon)
            return (a.current, a.previous, a.handled)
        }
        #expect(answer([], nil) == (9, 3, 2))
        #expect(answer([], true) == (2, 1, 2))
        #expect(answer([], false) == (3, 1, 0))
        #expect(answer(["Burglary"], nil) == (4, 1, 1))
        #expect(answer(["Burglary", "Robbery"], nil) == (6, 2, 2))
        #expect(answer(["Burglary"], false) == (2, 0, 0))
        #expect(answer(["No such category"], nil) == (0, 0, 0))
        // Without filters the two future incidents are excluded_future.
        let index = IncidentIndex(columns: Self.incidents.columns, parameters: QueryParameters(asOf: Self.asOf))
        #expect(index.excludedFuture == 2)
    }
}
