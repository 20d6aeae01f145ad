import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Foundation
import Testing

/// Point in polygon by the winding number (written here, not the engine's crossing rule): the
/// reference for area membership. Test points are never on an edge.
func referenceInRing(_ ring: [(lon: Double, lat: Double)], lat: Double, lon: Double) -> Bool {
    var winding = 0
    for k in 0..<ring.count {
        let a = ring[k], b = ring[(k + 1) % ring.count]
        let side = (b.lon - a.lon) * (lat - a.lat) - (lon - a.lon) * (b.lat - a.lat)
        if a.lat <= lat {
            if b.lat > lat && side > 0 { winding += 1 }
        } else if b.lat <= lat && side < 0 {
            winding -= 1
        }
    }
    return winding != 0
}

func referenceInArea(_ area: NamedArea, lat: Double, lon: Double) -> Bool {
    area.polygons.contains { polygon in
        guard let exterior = polygon.rings.first, referenceInRing(exterior, lat: lat, lon: lon) else { return false }
        return !polygon.rings.dropFirst().contains { referenceInRing($0, lat: lat, lon: lon) }
    }
}

/// A lon/lat rectangle ring, counter-clockwise, closed.
func rectangle(lon: ClosedRange<Double>, lat: ClosedRange<Double>, clockwise: Bool = false) -> [(
    lon: Double, lat: Double
)] {
    let ccw: [(lon: Double, lat: Double)] = [
        (lon.lowerBound, lat.lowerBound), (lon.upperBound, lat.lowerBound),
        (lon.upperBound, lat.upperBound), (lon.lowerBound, lat.upperBound),
        (lon.lowerBound, lat.lowerBound)
    ]
    return clockwise ? ccw.reversed() : ccw
}

/// The exact spherical area of a lon/lat rectangle (parallels as edges): R²·Δλ·(sin φ2 − sin φ1).
func rectangleArea(lon: ClosedRange<Double>, lat: ClosedRange<Double>) -> Double {
    let r = 6_371_008.8, rad = Double.pi / 180
    return r * r * (lon.upperBound - lon.lowerBound) * rad
        * (Foundation.sin(lat.upperBound * rad) - Foundation.sin(lat.lowerBound * rad))
}

@Suite("Named areas (SPEC §7.3)")
struct AreaTests {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let current = epoch("2018-01-15T12:00:00Z")
    static let previous = epoch("2017-01-15T12:00:00Z")
    static let older = epoch("2015-06-01T00:00:00Z")

    static let square = NamedArea(
        id: "square with a hole",
        polygons: [
            GeoPolygon(rings: [
                rectangle(lon: 10...11, lat: 40...41), rectangle(lon: 10.4...10.6, lat: 40.4...40.6, clockwise: true)
            ])
        ])
    static let overlapping = NamedArea(
        id: "overlapping the square",
        polygons: [
            GeoPolygon(rings: [
                rectangle(lon: 10.8...11.5, lat: 40.2...40.8)
            ])
        ])
    static let multi = NamedArea(
        id: "two parts",
        polygons: [
            GeoPolygon(rings: [rectangle(lon: 20...20.1, lat: 40...40.1)]),
            GeoPolygon(rings: [rectangle(lon: 21...21.1, lat: 40...40.1)])
        ])

    static let incidents: [TestIncident] = [
        TestIncident(lat: 40.5, lon: 10.5, time: current, handled: true), // in the hole: none
        TestIncident(lat: 40.45, lon: 10.55, time: previous, handled: nil), // in the hole: none
        TestIncident(lat: 40.2, lon: 10.2, time: current, handled: true), // square only
        TestIncident(lat: 40.9, lon: 10.1, time: previous, handled: false), // square only
        TestIncident(lat: 40.7, lon: 10.3, time: older, handled: true), // square only, older
        TestIncident(lat: 40.5, lon: 10.9, time: current, handled: true), // square and overlapping
        TestIncident(lat: 40.3, lon: 10.95, time: current, handled: false), // square and overlapping
        TestIncident(lat: 40.5, lon: 11.2, time: current, handled: nil), // overlapping only
        TestIncident(lat: 40.05, lon: 20.05, time: current, handled: true), // multi, part 1
        TestIncident(lat: 40.05, lon: 21.05, time: previous, handled: true), // multi, part 2
        TestIncident(lat: 40.02, lon: 21.01, time: current, handled: nil), // multi, part 2
        TestIncident(lat: 40.05, lon: 20.5, time: current, handled: true), // between the parts: none
        TestIncident(lat: 10, lon: 30, time: older, handled: nil), // none, older
        TestIncident(lat: 40.5, lon: 10.5, time: epoch("2019-01-01T00:00:00Z"), handled: true) // future
    ]

    @Test("holes, overlapping areas, MultiPolygon parts and unassigned, by hand")
    func handCounted() throws {
        let index = IncidentIndex(columns: Self.incidents.columns, parameters: QueryParameters(asOf: Self.asOf))
        let result = index.areas([Self.square, Self.overlapping, Self.multi])
        #expect(result.areas.map(\.id) == ["square with a hole", "overlapping the square", "two parts"])
        #expect(result.years == [2015, 2017, 2018])
        let s = result.areas[0], o = result.areas[1], m = result.areas[2]
        #expect((s.nCurrent, s.nPrevious, s.handled) == (3, 1, 2), "the two incidents in the hole are not counted")
        #expect(s.yearCounts == [1, 1, 3])
        #expect((o.nCurrent, o.nPrevious, o.handled) == (3, 0, 1), "incidents in the overlap count in both areas")
        #expect(o.yearCounts == [0, 0, 3])
        #expect((m.nCurrent, m.nPrevious, m.handled) == (2, 1, 1), "both parts of the MultiPolygon count")
        #expect(m.yearCounts == [0, 1, 2])
        #expect(result.unassignedCurrent == 2, "in the hole, and between the parts")
        #expect(result.unassignedPrevious == 1)
        #expect(result.unassignedAll == 4)
        #expect(s.yearOverYear.delta == 2 && s.yearOverYear.pct == 2.0)
        #expect(o.yearOverYear.pct == nil)
    }

    @Test("the same against the reference point-in-polygon, with filters")
    func referenceCounts() throws {
        var rng = SplitMix64(seed: 0xA2EA)
        var rows: [TestIncident] = []
        let windows = ReferenceWindows(asOf: Self.asOf)
        for _ in 0..<3000 {
            let lon = rng.uniform(9.9...21.2), lat = rng.uniform(39.9...41.1)
            // Most of them where the areas are.
            let (la, lo) =
                rng.next() % 3 == 0
                ? (lat, lon)
                : (
                    rng.uniform(39.95...41.05),
                    [rng.uniform(9.95...11.6), rng.uniform(19.95...21.15)][Int(rng.next() % 2)]
                )
            let t = [Self.current, Self.previous, Self.older, epoch("2018-09-01T00:00:00Z")][Int(rng.next() % 4)]
            rows.append(
                TestIncident(
                    lat: la, lon: lo, time: t + Int64(rng.next() % 86_400),
                    handled: [true, false, nil][Int(rng.next() % 3)],
                    category: ["A", "B", nil][Int(rng.next() % 3)]))
        }
        let areas = [Self.square, Self.overlapping, Self.multi]
        for (categories, handled) in [(Set<String>(), Bool?.none), (["A"], nil), ([], true), (["B"], false)] {
            let index = IncidentIndex(
                columns: rows.columns,
                parameters: QueryParameters(asOf: Self.asOf, categories: categories, handled: handled))
            let result = index.areas(areas)
            let kept = rows.filter { r in
                (categories.isEmpty || r.category.map(categories.contains) == true)
                    && (handled == nil || r.handled == handled)
            }
            var unassigned = (0, 0, 0)
            for r in kept where windows.window(r.time) != .future {
                if !areas.contains(where: { referenceInArea($0, lat: r.lat, lon: r.lon) }) {
                    unassigned.2 += 1
                    if windows.window(r.time) == .current { unassigned.0 += 1 }
                    if windows.window(r.time) == .previous { unassigned.1 += 1 }
                }
            }
            for (area, stats) in zip(areas, result.areas) {
                let inside = kept.filter { referenceInArea(area, lat: $0.lat, lon: $0.lon) }
                let c = inside.filter { windows.window($0.time) == .current }
                let p = inside.filter { windows.window($0.time) == .previous }
                #expect(stats.nCurrent == c.count, "\(area.id) \(categories) \(String(describing: handled))")
                #expect(stats.nPrevious == p.count, "\(area.id)")
                #expect(stats.handled == c.filter { $0.handled == true }.count, "\(area.id)")
                let yearTotal = inside.filter { windows.window($0.time) != .future }.count
                #expect(stats.yearCounts.reduce(0, +) == yearTotal, "\(area.id)")
            }
            #expect(result.unassignedCurrent == unassigned.0)
            #expect(result.unassignedPrevious == unassigned.1)
            #expect(result.unassignedAll == unassigned.2)
        }
    }

    @Test("spherical area of known shapes: R²·Δλ·(sin φ2 − sin φ1)")
    func sphericalArea() throws {
        // 1° × 1° at the equator ≈ 12,364 km².
        let cell = GeoPolygon(rings: [rectangle(lon: 0...1, lat: 0...1)])
        let exact = rectangleArea(lon: 0...1, lat: 0...1)
        #expect(abs(exact / 1e6 - 12_364) < 1)
        #expect(abs(cell.sphericalArea - exact) <= 1e-9 * exact)
        // Orientation and whether the ring repeats its first position do not matter.
        let clockwise = GeoPolygon(rings: [rectangle(lon: 0...1, lat: 0...1, clockwise: true)])
        #expect(abs(clockwise.sphericalArea - exact) <= 1e-9 * exact)
        let open = GeoPolygon(rings: [Array(rectangle(lon: 0...1, lat: 0...1).dropLast())])
        #expect(abs(open.sphericalArea - exact) <= 1e-9 * exact)
        // High and southern latitudes, wide boxes.
        for (lon, lat) in [
            (10.0...20.0, 50.0...60.0), (-75.0...(-60.0), -55.0...(-40.0)), (170.0...179.5, -20.0...(-10.0)),
            (-1.9...(-1.8), 53.7...53.75), (0.0...90.0, 0.0...80.0)
        ] {
            let expected = rectangleArea(lon: lon, lat: lat)
            let got = GeoPolygon(rings: [rectangle(lon: lon, lat: lat)]).sphericalArea
            #expect(abs(got - expected) <= 1e-9 * expected, "\(lon) × \(lat): \(got) vs \(expected)")
        }
        // A hole is subtracted; a MultiPolygon adds its parts.
        let holed = GeoPolygon(rings: [
            rectangle(lon: 0...1, lat: 0...1), rectangle(lon: 0.2...0.8, lat: 0.2...0.8, clockwise: true)
        ])
        let expectedHoled = exact - rectangleArea(lon: 0.2...0.8, lat: 0.2...0.8)
        #expect(abs(holed.sphericalArea - expectedHoled) <= 1e-9 * exact)
        let two = NamedArea(id: "two", polygons: [cell, GeoPolygon(rings: [rectangle(lon: 10...12, lat: 45...46)])])
        let expectedTwo = exact + rectangleArea(lon: 10...12, lat: 45...46)
        #expect(abs(two.sphericalArea - expectedTwo) <= 1e-9 * expectedTwo)
        // The area reported per area is in km².
        let index = IncidentIndex(columns: IncidentColumns(), parameters: QueryParameters(asOf: Self.asOf))
        let stats = index.areas([NamedArea(id: "cell", polygons: [cell]), two]).areas
        #expect(abs(stats[0].areaKm2 - exact / 1e6) <= 1e-9 * exact / 1e6)
        #expect(abs(stats[1].areaKm2 - expectedTwo / 1e6) <= 1e-9 * expectedTwo / 1e6)
        #expect(stats[0].nCurrent == 0 && stats[0].densityEquivalent == 0 && stats[0].safetyClass == .safe)
    }

    /// 0.1° × 0.1° at the equator is ≈ 123.64 km²; with radius 1000 m one incident there is worth
    /// ≈ 0.0254 incidents in a circle, so 196/197 and 393/394 incidents straddle the class bounds.
    @Test(
        "density-equivalent class: n_current × π·radius² / area",
        arguments: [(196, SafetyClass.safe), (197, .medium), (393, .medium), (394, .dangerous)])
    func densityClass(n: Int, expected: SafetyClass) throws {
        let area = NamedArea(id: "box", polygons: [GeoPolygon(rings: [rectangle(lon: 0...0.1, lat: 0...0.1)])])
        var rng = SplitMix64(seed: UInt64(n))
        var rows = (0..<n).map { _ in
            TestIncident(
                lat: rng.uniform(0.001...0.099), lon: rng.uniform(0.001...0.099), time: Self.current, handled: nil)
        }
        // Previous-window and outside incidents change nothing.
        rows.append(TestIncident(lat: 0.05, lon: 0.05, time: Self.previous, handled: nil))
        rows.append(TestIncident(lat: 0.05, lon: 0.2, time: Self.current, handled: nil))
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: Self.asOf, radius: 1000))
        let stats = try #require(index.areas([area]).areas.first)
        let areaM2 = rectangleArea(lon: 0...0.1, lat: 0...0.1)
        let density = Double(n) * Double.pi * 1000 * 1000 / areaM2
        #expect(stats.nCurrent == n)
        #expect(abs(stats.densityEquivalent - density) <= 1e-9 * density)
        #expect(stats.safetyClass == expected, "density \(density)")
        // With a radius of 500 m the circle is a quarter: the class follows.
        let half = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: Self.asOf, radius: 500))
        let quarter = try #require(half.areas([area]).areas.first)
        #expect(abs(quarter.densityEquivalent - density / 4) <= 1e-9 * density)
        #expect(quarter.safetyClass == .safe)
    }

    @Test("Calderdale areas file: counts equal the reference point-in-polygon")
    func calderdaleAreas() throws {
        let areas = try FeatureReaders.areas(path: Paths.dataset("areas/calderdale-areas.geojson"), idProperty: "name")
        #expect(areas.count == 6)
        let loaded = try loadFiles(Paths.calderdaleFiles)
        let rows = testIncidents(of: loaded.columns)
        let windows = ReferenceWindows(asOf: Self.asOf)
        let index = IncidentIndex(columns: loaded.columns, parameters: QueryParameters(asOf: Self.asOf))
        let result = index.areas(areas)
        #expect(result.years == [2016, 2017, 2018])
        var assigned = [Bool](repeating: false, count: rows.count)
        for (area, stats) in zip(areas, result.areas) {
            #expect(stats.id == area.id)
            var c = 0, p = 0, years = [0, 0, 0]
            for (k, r) in rows.enumerated() where referenceInArea(area, lat: r.lat, lon: r.lon) {
                assigned[k] = true
                switch windows.window(r.time) {
                case .current: c += 1
                case .previous: p += 1
                default: break
                }
                years[UTCTime.year(of: r.time) - 2016] += 1
            }
            #expect(stats.nCurrent == c, "\(area.id)")
            #expect(stats.nPrevious == p, "\(area.id)")
            #expect(stats.yearCounts == years, "\(area.id)")
            #expect(stats.handled == 0, "police data has no handled")
            #expect(stats.nCurrent > 0, "\(area.id): the sample has incidents there")
            let density = Double(stats.nCurrent) * Double.pi * 1e6 / (stats.areaKm2 * 1e6)
            #expect(abs(stats.densityEquivalent - density) <= 1e-9 * density)
            #expect(stats.safetyClass == (density < 5 ? .safe : density < 10 ? .medium : .dangerous))
        }
        #expect(result.unassignedAll == assigned.filter { !$0 }.count)
        #expect(result.unassignedAll > 0)
        // The hole: the town centre and the rest of Halifax share no incident, and together they
        // are what the outer ring holds.
        let centre = try #require(areas.first { $0.id == "Halifax town centre" })
        let outside = try #require(areas.first { $0.id == "Halifax (outside the town centre)" })
        #expect(outside.polygons.first?.rings.count == 2)
        let outer = NamedArea(id: "outer", polygons: [GeoPolygon(rings: [outside.polygons[0].rings[0]])])
        let both = index.areas([centre, outside, outer]).areas
        #expect(both[0].nCurrent + both[1].nCurrent == both[2].nCurrent)
        #expect(both[0].nPrevious + both[1].nPrevious == both[2].nPrevious)
        let multi = try #require(areas.first { $0.polygons.count == 2 }, "the file has a MultiPolygon")
        #expect(multi.id.hasPrefix("Upper Calder Valley"))
    }
}

@Suite("Points of interest (SPEC §7.4)")
struct PointOfInterestTests {
    @Test("datasets/poi.csv: every POI gets the point answer, equal to brute force")
    func bundledPOIs() throws {
        let pois = try FeatureReaders.pointsOfInterest(path: Paths.dataset("poi.csv"))
        #expect(pois.count == 12)
        #expect(pois.contains { $0.name == "Halifax bus station, Winding Road" }, "the quoted name with a comma")
        let loaded = try loadFiles(Paths.calderdaleFiles + [Paths.dataset("watchme/watchme-export-2018-07-31.json")])
        let rows = testIncidents(of: loaded.columns)
        let asOf = epoch("2018-07-31T23:59:59Z")
        for radius in [500.0, 1000, 2500] {
            let index = IncidentIndex(columns: loaded.columns, parameters: QueryParameters(asOf: asOf, radius: radius))
            let answers = index.pointsOfInterest(pois)
            #expect(answers.map(\.poi) == pois)
            for (poi, answer) in answers {
                #expect(answer == index.pointAnswer(lat: poi.lat, lon: poi.lon), "\(poi.name)")
                let expected = referencePoint(
                    rows, windows: ReferenceWindows(asOf: asOf), lat: poi.lat, lon: poi.lon, radius: radius)
                #expect(
                    ReferencePoint(current: answer.current, previous: answer.previous, handled: answer.handled)
                        == expected,
                    "\(poi.name) r \(radius)")
                #expect(answer.safetyClass.rawValue == referenceClass(expected.current))
            }
        }
    }
}

@Suite("Breakdown and totals (SPEC §7, §7.5)")
struct BreakdownTests {
    static let asOf = epoch("2018-07-31T23:59:59Z")

    /// Raw Calderdale rows read with the tiny CSV reader: (month, crime type, outcome) of the
    /// rows with coordinates.
    static func rawRows() throws -> [(month: String, type: String, outcome: String)] {
        var out: [(String, String, String)] = []
        for path in Paths.calderdaleFiles {
            let (header, records) = try readCSVRecords(path)
            let month = try #require(header.firstIndex(of: "Month")),
                type = try #require(header.firstIndex(of: "Crime type"))
            let outcome = try #require(header.firstIndex(of: "Last outcome category"))
            let lat = try #require(header.firstIndex(of: "Latitude")),
                lon = try #require(header.firstIndex(of: "Longitude"))
            for r in records where !r[lat].isEmpty && !r[lon].isEmpty { out.append((r[month], r[type], r[outcome])) }
        }
        return out
    }

    static func check(_ b: BreakdownResult, totals: Totals, raw: [(month: String, value: String)]) {
        #expect(b.years == totals.years)
        #expect(b.rows.reduce(0) { $0 + $1.current } == totals.current)
        #expect(b.rows.reduce(0) { $0 + $1.previous } == totals.previous)
        for (k, _) in totals.years.enumerated() {
            #expect(b.rows.reduce(0) { $0 + $1.yearCounts[k] } == totals.yearCounts[k])
        }
        let values = b.rows.map(\.value)
        #expect(Set(values).count == values.count, "one row per value")
        #expect(values == values.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        // Per value against the raw file: 2018-07 is current, 2017-07 previous.
        var expected: [String: (Int, Int, Int)] = [:]
        for r in raw {
            var e = expected[r.value] ?? (0, 0, 0)
            switch r.month {
            case "2018-07": e.0 += 1
            case "2017-07": e.1 += 1
            default: e.2 += 1
            }
            expected[r.value] = e
        }
        #expect(Set(values) == Set(expected.keys))
        for row in b.rows {
            let e = expected[row.value] ?? (-1, -1, -1)
            #expect(row.current == e.0 && row.previous == e.1, "\(b.field) = \"\(row.value)\"")
            #expect(row.yearCounts == [e.2, e.1, e.0], "\(b.field) = \"\(row.value)\"")
            #expect(row.yearOverYear.delta == e.0 - e.1)
        }
    }

    @Test("Calderdale by category and by Last outcome category: per value equals the raw CSV, sums equal totals")
    func calderdale() throws {
        let raw = try Self.rawRows()
        #expect(raw.count == 2125 + 2345 + 2559)
        let loaded = try loadFiles(Paths.calderdaleFiles, groupBy: "Last outcome category")
        let index = IncidentIndex(columns: loaded.columns, parameters: QueryParameters(asOf: Self.asOf))
        let totals = index.totals()
        #expect(totals.years == [2016, 2017, 2018])
        #expect(totals.yearCounts == [2125, 2345, 2559])
        #expect(totals.current == 2559 && totals.previous == 2345 && totals.older == 2125 && totals.excludedFuture == 0)

        let byCategory = index.breakdown(columns: loaded.columns, field: "category")
        #expect(byCategory.field == "category")
        Self.check(byCategory, totals: totals, raw: raw.map { ($0.month, $0.type) })
        #expect(byCategory.rows.contains { $0.value == "Anti-social behaviour" })

        let byOutcome = index.breakdown(columns: loaded.columns, field: "Last outcome category")
        Self.check(byOutcome, totals: totals, raw: raw.map { ($0.month, $0.outcome) })
        #expect(byOutcome.rows.first?.value == "", "anti-social behaviour rows have no outcome: the empty value")

        // With a category filter the breakdown holds that category only, and still sums to the totals.
        let filtered = IncidentIndex(
            columns: loaded.columns,
            parameters: QueryParameters(asOf: Self.asOf, categories: ["Burglary", "Robbery"]))
        let fb = filtered.breakdown(columns: loaded.columns, field: "category")
        #expect(fb.rows.map(\.value) == ["Burglary", "Robbery"])
        Self.check(
            fb, totals: filtered.totals(),
            raw: raw.filter { ["Burglary", "Robbery"].contains($0.type) }.map { ($0.month, $0.type) })
    }

    @Test("totals: UTC calendar years at their edges, future excluded")
    func calendarYears() {
        let rows: [TestIncident] = [
            ("1969-12-31T23:59:59Z", 1), ("1970-01-01T00:00:00Z", 1), ("2000-02-29T12:00:00Z", 1),
            ("2015-12-31T23:59:59Z", 2), ("2016-01-01T00:00:00Z", 3), ("2016-12-31T23:59:59Z", 1),
            ("2017-12-31T23:59:59Z", 1), ("2018-01-01T00:00:00Z", 1), ("2018-07-31T23:59:59Z", 1),
            ("2018-08-01T00:00:00Z", 2), ("2019-01-01T00:00:00Z", 1)
        ].flatMap { iso, n in
            (0..<n).map { k in TestIncident(lat: 10 + Double(k), lon: 20, time: epoch(iso), handled: nil) }
        }
        let index = IncidentIndex(columns: rows.columns, parameters: QueryParameters(asOf: Self.asOf))
        let t = index.totals()
        #expect(t.years == [1969, 1970, 2000, 2015, 2016, 2017, 2018])
        #expect(t.yearCounts == [1, 1, 1, 2, 4, 1, 2])
        #expect(t.excludedFuture == 3)
        #expect(t.current == 3, "2017-12-31, 2018-01-01, 2018-07-31T23:59:59Z")
        #expect(t.previous == 1, "2016-12-31")
        #expect(t.older == 8)
        #expect(index.yearsPresent == t.years)
    }
}

@Suite("Degenerate area files (SPEC §7.3)")
struct DegenerateAreaFileTests {
    @Test(
        "zero area or no part, antimeridian crossing: an input error naming file and feature, no infinite density",
        arguments: [
            ("[[[0,0],[1,1],[2,2],[0,0]]]", "zero area"),
            ("[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0,0],[0,1],[1,1],[1,0],[0,0]]]", "zero area"),
            ("[[[179,-17],[-179,-17],[-179,-16],[179,-16],[179,-17]]]", "antimeridian"),
            ("[]", "MultiPolygon without any polygon has zero area")
        ])
    func degenerate(_ coordinates: String, _ expected: String) throws {
        let path = NSTemporaryDirectory() + "areawatch-degenerate-\(UUID().uuidString).geojson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good =
            "{\"type\":\"Feature\",\"properties\":{\"name\":\"ok\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}}"
        let type = coordinates == "[]" ? "MultiPolygon" : "Polygon"
        let bad =
            "{\"type\":\"Feature\",\"properties\":{\"name\":\"bad\"},"
            + "\"geometry\":{\"type\":\"\(type)\",\"coordinates\":\(coordinates)}}"
        try "{\"type\":\"FeatureCollection\",\"features\":[\(good),\(bad)]}".write(
            toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try FeatureReaders.areas(path: path, idProperty: "name")
            Issue.record("accepted a degenerate area")
        } catch {
            let message = "\(error)"
            #expect(
                message.contains(path) && message.contains("features[1]") && message.contains(expected), "\(message)")
        }
    }
}
