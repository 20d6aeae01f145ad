import AreaWatchCore
import Testing

@testable import AreaWatchQuery

/// The incremental grid state against a full recompute by the grid query, the point queries
/// and the area query, night after night.
@Suite("Incremental grid state")
struct GridCountStateTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var system: GridSystem
        var seed: UInt64
        /// Whether the state starts empty and gets the first incidents as a night's additions.
        var fromEmpty = false
        var handledFilter: Bool? = nil
        var categories: Set<String> = []
        /// Whether the state also counts random points of interest and areas (`PlaceGenerator`)
        /// and the breakdown by category.
        var places = true
        var testDescription: String {
            "\(system) seed \(seed)\(fromEmpty ? " from empty" : "")\(places ? "" : " without places")"
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(system: .geohash(precision: 6), seed: 1),
        Scenario(system: .geohash(precision: 7), seed: 2, places: false),
        Scenario(system: .geohash(precision: 7), seed: 3, fromEmpty: true, handledFilter: true),
        Scenario(system: .h3(resolution: 8), seed: 4, categories: ["Burglary", "Robbery"]),
        Scenario(system: .h3(resolution: 9), seed: 5),
        Scenario(system: .h3(resolution: 9), seed: 6, fromEmpty: true)
    ]

    @Test("equals a full recompute after every night", arguments: scenarios)
    func nightsMatchRecompute(_ scenario: Scenario) throws {
        var rng = SplitMix64(seed: scenario.seed)
        var asOf = epoch("2024-02-27T12:00:00Z")
        let parameters = QueryParameters(
            asOf: asOf, radius: [400.0, 1000][Int(rng.next() % 2)], categories: scenario.categories,
            handled: scenario.handledFilter)
        var generator = IncidentGenerator(rng: rng)
        var placeRNG = SplitMix64(seed: scenario.seed &* 7_919)
        let (places, spots) =
            scenario.places ? PlaceGenerator.places(&placeRNG, radius: parameters.radius) : (ReportPlaces(), [])
        generator.spots = spots
        var live = (0..<1_200).map { _ in generator.incident(asOf: asOf) }
        var state: GridCountState
        if scenario.fromEmpty {
            state = GridCountState(parameters: parameters, system: scenario.system)
            state.recordFull(places, [])
            state.night(asOf: asOf, held: [], removing: [], adding: live, places: places)
        } else {
            state = GridCountState(columns: live.columns, parameters: parameters, system: scenario.system)
            state.recordFull(places, live)
        }
        try #require(Self.expectSame(state, live, "\(scenario) start", places: places))
        for night in 1...14 {
            asOf += [0, 1, 1, 29, 29, 366][Int(generator.rng.next() % 6)] * 86_400
            let n = live.count
            var removing: [Incident] = [], adding: [Incident] = []
            var taken = Set<Int>()
            for _ in 0..<Int(generator.rng.next() % 60) {
                let k = Int(generator.rng.next() % UInt64(n))
                guard taken.insert(k).inserted else { continue }
                removing.append(live[k])
                // Half the removed ones are edits: the same record with new content.
                if generator.rng.next() % 2 == 0 { adding.append(generator.edited(live[k], asOf: asOf)) }
            }
            for _ in 0..<Int(generator.rng.next() % 120) { adding.append(generator.incident(asOf: asOf, near: live)) }
            let before = live
            live = live.indices.filter { !taken.contains($0) }.map { live[$0] } + adding
            // Changed: the incidents that cross a window bound, and every removal and addition.
            let (old, new) = (state.parameters.windows, TimeWindows(asOf: asOf))
            let crossing = before.filter { old.membership($0.time) != new.membership($0.time) }
            let changed = (crossing + removing + adding).filter { Self.passes($0, parameters) }.count
            let cellsBefore = state.cells
            let summary = state.night(asOf: asOf, held: before, removing: removing, adding: adding, places: places)
            #expect(summary.changedIncidents == changed)
            let keys = Set(cellsBefore.keys).union(state.cells.keys)
            #expect(summary.touchedCells >= keys.filter { cellsBefore[$0] != state.cells[$0] }.count)
            try #require(
                Self.expectSame(
                    state, live, "\(scenario) night \(night), as-of \(UTCTime.iso8601(asOf))", places: places))
        }
    }

    /// The first difference between the state's grid and the grid query's over `live`; nil when equal.
    static func difference(_ state: GridCountState, _ live: [Incident], _ label: String) -> String? {
        let index = IncidentIndex(columns: live.columns, parameters: state.parameters, pointQueries: false)
        let full = index.grid(state.system)
        let got = state.result()
        guard got.years == full.years else { return "\(label): years \(got.years), expected \(full.years)" }
        guard got.cells.count == full.cells.count else {
            return "\(label): \(got.cells.count) cells, expected \(full.cells.count)"
        }
        for (a, b) in zip(got.cells, full.cells) where a != b || got.yearCounts(of: a) != full.yearCounts(of: b) {
            return "\(label): cell \(a), expected \(b)"
        }
        let entries = got.yearEntries.map { [Int($0.year), Int($0.count)] }
        let expected = full.yearEntries.map { [Int($0.year), Int($0.count)] }
        return entries == expected ? nil : "\(label): year entries differ"
    }

    /// The first difference between the state's answers for the places and the point and area
    /// queries' over `live`; nil when equal.
    static func placesDifference(_ state: GridCountState, _ live: [Incident], _ label: String, _ places: ReportPlaces)
        -> String?
    {
        let columns = live.columns
        let index = IncidentIndex(columns: columns, parameters: state.parameters)
        guard state.covers(places) else { return "\(label): the state does not cover the places" }
        if let field = places.breakdown {
            let (full, got) = (index.breakdown(columns: columns, field: field), state.breakdownResult())
            guard got.years == full.years, got.field == full.field, got.rows == full.rows else {
                return "\(label): breakdown \(got.rows), expected \(full.rows)"
            }
        }
        if let points = places.points {
            let full = index.pointsOfInterest(points).map(\.answer), got = state.pointAnswers(points).map(\.answer)
            for (k, (a, b)) in zip(got, full).enumerated() where a != b {
                return "\(label): point of interest \(k): \(a), expected \(b)"
            }
        }
        guard let areas = places.areas else { return nil }
        let (full, got) = (index.areas(areas), state.areaResult(areas))
        guard got.years == full.years else { return "\(label): area years \(got.years), expected \(full.years)" }
        for (k, (a, b)) in zip(got.areas, full.areas).enumerated() where a != b {
            return "\(label): area \(k): \(a), expected \(b)"
        }
        let unassigned = [got.unassignedCurrent, got.unassignedPrevious, got.unassignedAll]
        let expected = [full.unassignedCurrent, full.unassignedPrevious, full.unassignedAll]
        return unassigned == expected ? nil : "\(label): unassigned \(unassigned), expected \(expected)"
    }

    /// Records the difference, if any; whether there was none.
    @discardableResult
    static func expectSame(
        _ state: GridCountState, _ live: [Incident], _ label: String, places: ReportPlaces = ReportPlaces()
    ) -> Bool {
        let d = difference(state, live, label) ?? placesDifference(state, live, label, places)
        #expect(d == nil, Comment(rawValue: d ?? ""))
        return d == nil
    }

    /// Whether an incident passes the query's filters (SPEC §7), as the reference sees them.
    static func passes(_ i: Incident, _ p: QueryParameters) -> Bool {
        (p.categories.isEmpty || i.category.map(p.categories.contains) == true)
            && (p.handled == nil || i.handled == p.handled)
    }

    @Test("an incident exactly at T − 1 year is previous; one second later it is current, then crosses")
    func windowBoundary() throws {
        let asOf = epoch("2023-07-31T23:59:59Z")
        let windows = TimeWindows(asOf: asOf)
        // Each alone, 100 km apart: its own cell says which window it is in.
        let times = [
            windows.currentStart, windows.currentStart + 1, windows.previousStart, windows.previousStart + 1,
            asOf, asOf + 1
        ]
        let live = times.enumerated().map { k, t in
            Incident(key: "k\(k)", time: t, precision: .second, lat: 50 + Double(k), lon: 1, handled: true)
        }
        let parameters = QueryParameters(asOf: asOf, radius: 500)
        var state = GridCountState(columns: live.columns, parameters: parameters, system: .geohash(precision: 7))
        func windowOf(_ k: Int) -> String {
            let id = GridSystem.geohash(precision: 7).cell(lat: live[k].lat, lon: live[k].lon)
            guard let c = state.result().cells.first(where: { $0.id == id }) else { return "none" }
            return c.nCurrent == 1 ? "current" : c.nPrevious == 1 ? "previous" : "?"
        }
        #expect((0..<6).map(windowOf) == ["previous", "current", "none", "previous", "current", "none"])
        state.night(asOf: asOf + 1, held: live, removing: [], adding: [])
        #expect((0..<6).map(windowOf) == ["previous", "previous", "none", "none", "current", "current"])
        Self.expectSame(state, live, "one second later")
        // Removing the incident that just crossed T − 1 year takes it out of the previous window.
        state.night(asOf: asOf + 1, held: live, removing: [live[1]], adding: [])
        #expect(windowOf(1) == "none")
        Self.expectSame(state, live.enumerated().filter { $0.offset != 1 }.map(\.element), "removed")
    }

    @Test("the time ranges whose window changes: none for no step, three for a day, one across a year")
    func crossingRanges() {
        let old = TimeWindows(asOf: epoch("2023-03-01T00:00:00Z"))
        #expect(GridCountState.crossingRanges(old: old, new: old).isEmpty)
        let day = TimeWindows(asOf: old.asOf + 86_400)
        let three = GridCountState.crossingRanges(old: old, new: day)
        #expect(three.map(\.low) == [old.previousStart, old.currentStart, old.asOf])
        #expect(three.map(\.high) == [day.previousStart, day.currentStart, day.asOf])
        // 366 days reach 2024-03-01: each bound's new value is the next one's old value.
        let year = TimeWindows(asOf: old.asOf + 366 * 86_400)
        #expect(year.currentStart == old.asOf && year.previousStart == old.currentStart)
        let one = GridCountState.crossingRanges(old: old, new: year)
        #expect(one.count == 1 && one.first?.low == old.previousStart && one.first?.high == year.asOf)
    }

    @Test("identical incidents removed in one night all leave, and none crosses a window afterwards")
    func duplicatesRemovedTogether() throws {
        let asOf = epoch("2023-07-31T23:59:59Z")
        let t = TimeWindows(asOf: asOf).currentStart + 3_600
        let copies = (0..<3).map {
            Incident(key: "d\($0)", time: t, precision: .second, lat: 51.5, lon: -0.1, handled: true)
        }
        let other = Incident(key: "o", time: t, precision: .second, lat: 51.501, lon: -0.1, handled: true)
        var state = GridCountState(
            columns: (copies + [other]).columns, parameters: QueryParameters(asOf: asOf), system: .h3(resolution: 8))
        state.night(asOf: asOf, held: copies + [other], removing: Array(copies.prefix(2)), adding: [])
        Self.expectSame(state, [copies[2], other], "two of three copies removed")
        // A day later the remaining two cross T − 1 year, into the previous window.
        state.night(asOf: asOf + 86_400, held: [copies[2], other], removing: [], adding: [])
        Self.expectSame(state, [copies[2], other], "a day later")
    }

    @Test(
        "a night that takes away more than the state holds says so, never traps",
        arguments: [
            GridSystem.geohash(precision: 7), .h3(resolution: 9)
        ])
    func removalNotHeld(_ system: GridSystem) throws {
        let asOf = epoch("2023-07-31T23:59:59Z")
        let t = TimeWindows(asOf: asOf).currentStart + 3_600
        let held = Incident(key: "h", time: t, precision: .second, lat: 51.5, lon: -0.1, handled: true)
        let elsewhere = Incident(key: "e", time: t, precision: .second, lat: 53.8, lon: -1.55, handled: false)
        let older = Incident(key: "o", time: t - 3 * 366 * 86_400, precision: .second, lat: 51.5, lon: -0.1)
        for (name, missing) in [("elsewhere", elsewhere), ("older, in a held cell", older), ("held twice", held)] {
            var state = GridCountState(columns: [held].columns, parameters: QueryParameters(asOf: asOf), system: system)
            let removing = name == "held twice" ? [held, held] : [missing]
            let summary = state.night(asOf: asOf, held: [held], removing: removing, adding: [])
            #expect(!summary.consistent, "\(name)")
        }
        var state = GridCountState(columns: [held].columns, parameters: QueryParameters(asOf: asOf), system: system)
        #expect(state.night(asOf: asOf, held: [held], removing: [held], adding: [elsewhere]).consistent)
        Self.expectSame(state, [elsewhere], "a removal of what is held")
    }

    @Test("across 29 February: T − 1 year of 2024-02-29 is 2023-02-28, and a day later 2023-03-01")
    func leapDay() throws {
        let asOf = epoch("2024-02-29T00:00:00Z")
        let times = [
            epoch("2023-02-28T00:00:00Z"), epoch("2023-02-28T00:00:01Z"), epoch("2023-03-01T00:00:00Z"),
            epoch("2022-02-28T00:00:00Z"), epoch("2022-02-28T00:00:01Z"), epoch("2024-02-29T12:00:00Z")
        ]
        // Duplicates of place and time: two incidents each, all in one cluster.
        let live = (times + times).enumerated().map { k, t in
            Incident(
                key: "k\(k)", time: t, precision: .second, lat: 51.5 + 0.001 * Double(k % 6), lon: -0.1,
                handled: k % 2 == 0)
        }
        var state = GridCountState(
            columns: live.columns, parameters: QueryParameters(asOf: asOf), system: .h3(resolution: 9))
        Self.expectSame(state, live, "on 29 February")
        for step in [0, 1, 365, 1] as [Int64] {
            let next = state.parameters.asOf + step * 86_400
            state.night(asOf: next, held: live, removing: [], adding: [])
            Self.expectSame(state, live, "as-of \(UTCTime.iso8601(next))")
        }
    }
}

/// Random incidents around a few clustered places, with repeated places and times, and times
/// often exactly on (or a second from) a window bound of the current as-of or a coming one.
struct IncidentGenerator {
    var rng: SplitMix64
    private var serial = 0
    static let centres = [(51.507, -0.128), (51.52, -0.10), (51.46, -0.01)]

    /// Places incidents land on now and then (on an area's edge, at a point's radius), with
    /// their repeats: none by default.
    var spots: [(lat: Double, lon: Double)] = []

    init(rng: SplitMix64) { self.rng = rng }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }

    mutating func time(asOf: Int64) -> Int64 {
        let w = TimeWindows(asOf: asOf)
        let later = TimeWindows(asOf: asOf + [1, 29, 366][Int(rng.next() % 3)] * 86_400)
        let bounds = [w.asOf, w.currentStart, w.previousStart, later.asOf, later.currentStart, later.previousStart]
        switch rng.next() % 8 {
        case 0...2: return bounds[Int(rng.next() % 6)] + Int64(rng.next() % 3) - 1
        case 3: return epoch("2024-02-29T06:00:00Z") + Int64(rng.next() % 3) * 86_400 * 365
        default: return w.previousStart - 86_400 * 200 + Int64(rng.next() % (86_400 * 1_000))
        }
    }

    mutating func incident(asOf: Int64, near live: [Incident] = []) -> Incident {
        serial += 1
        let (clat, clon) = Self.centres[Int(rng.next() % 3)]
        let spread = [0.002, 0.01, 0.04][Int(rng.next() % 3)]
        var lat = clat + uniform(-spread...spread), lon = clon + uniform(-spread...spread)
        var t = time(asOf: asOf)
        if !spots.isEmpty && rng.next() % 5 == 0 { (lat, lon) = spots[Int(rng.next() % UInt64(spots.count))] }
        if !live.isEmpty && rng.next() % 4 == 0 {
            // A place (and often a time) seen before.
            let other = live[Int(rng.next() % UInt64(live.count))]
            (lat, lon) = (other.lat, other.lon)
            if rng.next() % 2 == 0 { t = other.time }
        }
        return Incident(
            key: "g\(serial)", time: t, precision: .second, lat: lat, lon: lon,
            category: ["Burglary", "Robbery", "Vehicle crime", nil][Int(rng.next() % 4)],
            handled: [true, false, nil][Int(rng.next() % 3)])
    }

    /// The same record with some of its content changed (SPEC §4: an edit).
    mutating func edited(_ old: Incident, asOf: Int64) -> Incident {
        var new = old
        switch rng.next() % 4 {
        case 0: new.time = time(asOf: asOf)
        case 1: new.lat += uniform(-0.005...0.005)
        case 2: new.handled = [true, false, nil][Int(rng.next() % 3)]
        default: new.category = ["Burglary", "Robbery", nil][Int(rng.next() % 3)]
        }
        return new
    }
}

extension GridCountState {
    /// `apply`, given the incidents `held` before the night: the crossing ones are those whose time
    /// lies in the crossing ranges, as the store's time index gives them to the nightly.
    @discardableResult
    mutating func night(
        asOf: Int64, held: [Incident], removing: [Incident], adding: [Incident], places: ReportPlaces = ReportPlaces()
    ) -> NightSummary {
        let ranges = crossingRanges(to: asOf)
        let crossing = held.filter { i in ranges.contains { i.time > $0.low && i.time <= $0.high } }
        return apply(asOf: asOf, crossing: crossing, removing: removing, adding: adding, places: places)
    }

    /// Records the places' counts from the point and area queries over `live` (a full recompute's).
    mutating func recordFull(_ places: ReportPlaces, _ live: [Incident]) {
        let index = IncidentIndex(columns: live.columns, parameters: parameters)
        let columns = live.columns
        record(
            places, pointAnswers: places.points.map { index.pointsOfInterest($0).map(\.answer) },
            areaResult: places.areas.map { index.areas($0) },
            breakdown: places.breakdown.map { index.breakdown(columns: columns, field: $0) })
    }
}

extension Array where Element == Incident {
    var columns: IncidentColumns {
        var c = IncidentColumns()
        for i in self { c.append(lat: i.lat, lon: i.lon, time: i.time, handled: i.handled, category: i.category) }
        return c
    }
}

/// Random points of interest and areas around the generator's centres, and the spots that put
/// incidents on their boundaries: exactly at a point's radius (the last Double within it and the
/// next one), on an area's vertices and on its edges (horizontal, vertical and slanted).
enum PlaceGenerator {
    static func places(_ rng: inout SplitMix64, radius: Double) -> (ReportPlaces, [(lat: Double, lon: Double)]) {
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        var spots: [(lat: Double, lon: Double)] = []
        var points: [PointOfInterest] = []
        for k in 0..<24 {
            let (clat, clon) = IncidentGenerator.centres[k % 3]
            let p = PointOfInterest(name: "p\(k)", lat: clat + uniform(-0.03...0.03), lon: clon + uniform(-0.04...0.04))
            points.append(p)
            guard k % 2 == 0 else { continue }
            let north = radiusEdge(from: p.lat, towards: p.lat + 0.05, radius: radius) {
                Haversine.distance(lat1: p.lat, lon1: p.lon, lat2: $0, lon2: p.lon)
            }
            let east = radiusEdge(from: p.lon, towards: p.lon + 0.08, radius: radius) {
                Haversine.distance(lat1: p.lat, lon1: p.lon, lat2: p.lat, lon2: $0)
            }
            spots += [(north.0, p.lon), (north.1, p.lon), (p.lat, east.0), (p.lat, east.1)]
        }
        var areas: [NamedArea] = []
        for k in 0..<10 {
            let (clat, clon) = IncidentGenerator.centres[k % 3]
            let lat0 = clat + uniform(-0.03...0.01), lon0 = clon + uniform(-0.04...0.02)
            let lat1 = lat0 + uniform(0.004...0.03), lon1 = lon0 + uniform(0.006...0.04)
            let box: [(lon: Double, lat: Double)] = [
                (lon0, lat0), (lon1, lat0), (lon1, lat1), (lon0, lat1), (lon0, lat0)
            ]
            var polygons = [GeoPolygon(rings: [box])]
            switch k % 4 {
            case 1:
                // A hole in the middle third.
                let (dl, dn) = ((lat1 - lat0) / 3, (lon1 - lon0) / 3)
                let hole: [(lon: Double, lat: Double)] = [
                    (lon0 + dn, lat0 + dl), (lon0 + 2 * dn, lat0 + dl), (lon0 + 2 * dn, lat0 + 2 * dl),
                    (lon0 + dn, lat0 + 2 * dl)
                ]
                polygons = [GeoPolygon(rings: [box, hole])]
                spots += [(hole[0].lat, hole[0].lon), (lat0 + dl, lon0 + 1.5 * dn)]
            case 2:
                // A triangle: its slanted edge's midpoint, as Doubles round it.
                let triangle: [(lon: Double, lat: Double)] = [(lon0, lat0), (lon1, lat0), (lon0, lat1)]
                polygons = [GeoPolygon(rings: [triangle])]
                spots.append(((lat0 + lat1) / 2, (lon0 + lon1) / 2))
            case 3:
                // A MultiPolygon: a second part beside the first, sharing its east edge.
                let width = lon1 - lon0
                polygons.append(
                    GeoPolygon(rings: [[(lon1, lat0), (lon1 + width, lat0), (lon1 + width, lat1), (lon1, lat1)]]))
            default: break
            }
            areas.append(NamedArea(id: "a\(k)", polygons: polygons))
            // Vertices and the middles of the horizontal and vertical edges.
            let (mlat, mlon) = ((lat0 + lat1) / 2, (lon0 + lon1) / 2)
            spots += [(lat0, lon0), (lat1, lon1), (lat0, mlon), (lat1, mlon), (mlat, lon0), (mlat, lon1)]
        }
        return (ReportPlaces(points: points, areas: areas, breakdown: .category), spots)
    }

    /// The last Double from `inside` towards `outside` within `radius` by `f`, and the next one.
    static func radiusEdge(from inside: Double, towards outside: Double, radius: Double, _ f: (Double) -> Double)
        -> (Double, Double)
    {
        var (lo, hi) = (inside, outside)
        while true {
            let mid = lo / 2 + hi / 2
            if mid == lo || mid == hi { return (lo, hi) }
            if f(mid) <= radius { lo = mid } else { hi = mid }
        }
    }
}
