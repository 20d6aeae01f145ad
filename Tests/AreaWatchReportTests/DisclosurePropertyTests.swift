import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

@testable import AreaWatchReport

/// SPEC §10's test of `--min-cell-count K`: add one incident farther than 2 × radius from every
/// other incident, outside every named area and POI radius; with K ≥ 2 the geographic public
/// outputs are byte-identical with and without it. Seeded random datasets, K ∈ {2, 3, 5}.
/// Every output is covered: the emerging-hot-spot files and map (at a precision whose cells hold
/// the lone incident alone) and the tiles' data box too.
@Suite("disclosure control: an isolated incident leaves no trace (SPEC §10)")
struct DisclosurePropertyTests {
    static let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
    static let year: Int64 = 365 * 86_400
    static let categories: [String?] = ["Burglary", "Drugs", "=HYPERLINK(\"x\")", nil]

    struct Point {
        var lat: Double
        var lon: Double
        var time: Int64
        var category: String?
        var handled: Bool?
    }

    /// A random city: clusters of incidents over four years, a few stray ones, areas around some
    /// clusters and POIs at others.
    struct Dataset {
        var incidents: [Point]
        var areas: [NamedArea]
        var pois: [PointOfInterest]
    }

    static func dataset(seed: UInt64) -> Dataset {
        var random = SplitMix64(seed: seed)
        var incidents: [Point] = []
        func time() -> Int64 { asOf - Int64(random.uniform(3600, Double(4 * year))) }
        func category() -> String? { categories[Int(random.next() % UInt64(categories.count))] }
        func handled() -> Bool? { [true, false, nil][Int(random.next() % 3)] }
        var centres: [(lat: Double, lon: Double)] = []
        for _ in 0..<(4 + Int(random.next() % 5)) {
            let c = (lat: random.uniform(53.60, 53.80), lon: random.uniform(-2.00, -1.70))
            centres.append(c)
            let spread = random.uniform(0.001, 0.01)
            for _ in 0..<(3 + Int(random.next() % 60)) {
                incidents.append(
                    Point(
                        lat: c.lat + random.uniform(-spread, spread) * 0.6,
                        lon: c.lon + random.uniform(-spread, spread),
                        time: time(), category: category(), handled: handled()))
            }
        }
        for _ in 0..<15 {
            incidents.append(
                Point(
                    lat: random.uniform(53.60, 53.80), lon: random.uniform(-2.00, -1.70), time: time(),
                    category: category(), handled: handled()))
        }
        var areas: [NamedArea] = []
        for (k, c) in centres.prefix(2).enumerated() {
            let r = random.uniform(0.005, 0.02)
            areas.append(
                NamedArea(
                    id: "area \(k)",
                    polygons: [
                        GeoPolygon(rings: [
                            [
                                (c.lon - r, c.lat - r * 0.6), (c.lon + r, c.lat - r * 0.6),
                                (c.lon + r, c.lat + r * 0.6), (c.lon - r, c.lat + r * 0.6)
                            ]
                        ])
                    ]))
        }
        let pois = centres.suffix(2).enumerated().map {
            PointOfInterest(name: "poi \($0.offset)", lat: $0.element.lat, lon: $0.element.lon)
        }
        return Dataset(incidents: incidents, areas: areas, pois: pois)
    }

    /// A random incident farther than 2 × radius (plus a metre) from every incident, outside
    /// every area's box and farther than the radius from every POI.
    static func isolatedIncident(_ d: Dataset, radius: Double, seed: UInt64) -> Point {
        var random = SplitMix64(seed: seed &* 31 &+ 7)
        while true {
            let lat = random.uniform(53.50, 53.90), lon = random.uniform(-2.15, -1.55)
            guard
                d.incidents.allSatisfy({
                    Haversine.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon) > 2 * radius + 1
                }),
                d.pois.allSatisfy({ Haversine.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon) > radius + 1 }
                ),
                d.areas.allSatisfy({
                    !($0.bounds.minLat...$0.bounds.maxLat).contains(lat)
                        || !($0.bounds.minLon...$0.bounds.maxLon).contains(lon)
                })
            else { continue }
            // Any window: current, previous, an older year, a year of its own (2009).
            let times = [
                asOf - year / 2, asOf - year - year / 2, asOf - 3 * year,
                UTCTime.epochSeconds(CivilTime(year: 2009, month: 5, day: 1))
            ]
            return Point(
                lat: lat, lon: lon, time: times[Int(random.next() % 4)], category: categories[Int(random.next() % 4)],
                handled: [true, false, nil][Int(random.next() % 3)])
        }
    }

    static func content(_ incidents: [Point], _ d: Dataset, radius: Double, precision: Int, k: Int) -> ReportContent {
        var columns = IncidentColumns()
        for i in incidents {
            columns.append(lat: i.lat, lon: i.lon, time: i.time, handled: i.handled, category: i.category)
        }
        let parameters = QueryParameters(asOf: asOf, radius: radius)
        let index = IncidentIndex(columns: columns, parameters: parameters)
        var content = ReportContent(
            parameters: parameters, grid: index.grid(precision: precision), totals: index.totals(), tileZooms: 10...14,
            disclosure: Disclosure(minCellCount: k),
            areas: AreaReport(result: index.areas(d.areas), areas: d.areas, idProperty: "name"),
            pointsOfInterest: index.pointsOfInterest(d.pois),
            breakdown: index.breakdown(columns: columns, field: "category"),
            sourceKind: "files", sourcePath: nil, inputs: [], timings: [], attribution: "test", engineVersion: "0")
        // EHSA cells whose diagonal is below 2 × radius, so the lone incident is alone in its cell.
        let ehsa = EmergingHotSpotParameters(grid: .geohash(precision: radius >= 1000 ? 6 : 7), steps: 24)
        let cube = HotSpotCube(index: index, time: columns.time, parameters: ehsa, minimumIncidents: k)
        let result = EmergingHotSpots.analyse(cube, alpha: ehsa.alpha)
        content.ehsa = EHSAReport(parameters: ehsa, locations: result.locations, summary: result.summary)
        content.extent = .known(
            DataExtent(
                columns: columns, parameters: parameters, cellPrecision: precision,
                minCellCount: k))
        return content
    }

    /// Every file of a report folder written by the real writer, by relative path.
    static func written(_ content: ReportContent) throws -> [String: [UInt8]] {
        let base = NSTemporaryDirectory() + "areawatch-disclosure-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        _ = try ReportWriter.write(content, to: base + "/report", clock: { 0 })
        var files: [String: [UInt8]] = [:]
        let root = base + "/report"
        for case let path as String in FileManager.default.enumerator(atPath: root)! {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[path] = Array(FileManager.default.contents(atPath: root + "/" + path)!)
            }
        }
        return files
    }

    /// The sections of report.html the property covers (heatmap, cell tables, areas, POI).
    static func geographicSections(_ html: [UInt8]) -> [String] {
        let page = String(decoding: html, as: UTF8.self)
        return ["heatmap", "top-cells", "areas", "poi", "ehsa"].map { id in
            guard let start = page.range(of: "<section id=\"\(id)\">") else { return "" }
            return String(page[start.lowerBound...].prefix { _ in true }.components(separatedBy: "</section>")[0])
        }
    }

    /// Differences between two reports in the outputs the property covers.
    static func geographicDifferences(_ a: [String: [UInt8]], _ b: [String: [UInt8]]) -> [String] {
        let covered = { (path: String) in
            path != "summary.json" && path != "breakdown.csv" && path != "report.html"
                && path != "timeseries.csv"
        }
        var out: [String] = []
        for path in Set(a.keys).union(b.keys).sorted() where covered(path) && a[path] != b[path] {
            out.append(
                a[path] == nil
                    ? "\(path) only with the incident" : b[path] == nil ? "\(path) only without it" : "\(path) differs")
        }
        if geographicSections(a["report.html"] ?? []) != geographicSections(b["report.html"] ?? []) {
            out.append("report.html sections differ")
        }
        if areaSeries(a["timeseries.csv"]) != areaSeries(b["timeseries.csv"]) {
            out.append("timeseries.csv area rows differ")
        }
        return out
    }

    /// timeseries.csv as SPEC §10's property covers it: the named areas' shown counts. The `all`
    /// rows are whole-data totals (like the calendar-year trend), and an empty area count is
    /// "nothing there" whatever month span the whole data gives the file.
    static func areaSeries(_ bytes: [UInt8]?) -> [String] {
        String(decoding: bytes ?? [], as: UTF8.self).split(separator: "\n").dropFirst()
            .filter { !$0.hasPrefix("all,") && !$0.hasSuffix(",") }.map(String.init)
    }

    static let cases: [(seed: UInt64, k: Int, radius: Double, precision: Int)] = [
        (1, 2, 300, 7), (2, 3, 300, 7), (3, 5, 300, 7), (4, 2, 1000, 6), (5, 3, 1000, 6), (6, 5, 1000, 7),
        (7, 3, 500, 7)
    ]

    @Test(
        "with K ≥ 2 the geographic outputs are byte-identical with and without an isolated incident", arguments: cases)
    func isolatedIncidentLeavesNoTrace(_ c: (seed: UInt64, k: Int, radius: Double, precision: Int)) throws {
        let d = Self.dataset(seed: c.seed)
        let lone = Self.isolatedIncident(d, radius: c.radius, seed: c.seed)
        let without = try Self.written(Self.content(d.incidents, d, radius: c.radius, precision: c.precision, k: c.k))
        let with = try Self.written(
            Self.content(d.incidents + [lone], d, radius: c.radius, precision: c.precision, k: c.k))
        let differences = Self.geographicDifferences(without, with)
        #expect(differences.isEmpty, "seed \(c.seed), K \(c.k): \(differences.prefix(10))")
        // Not vacuous: without disclosure control the incident shows (the attack of SPEC §10).
        let exactWithout = try Self.written(
            Self.content(d.incidents, d, radius: c.radius, precision: c.precision, k: 1))
        let exactWith = try Self.written(
            Self.content(d.incidents + [lone], d, radius: c.radius, precision: c.precision, k: 1))
        #expect(!Self.geographicDifferences(exactWithout, exactWith).isEmpty)
        #expect(
            without["grid.csv"] != exactWithout["grid.csv"],
            "nothing was withheld: the dataset is too dense to test the rule")
        let tileJSON = without["tiles/tilejson.json"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(
            without["ehsa.csv"] != nil && tileJSON.contains("\"data_bounds\""),
            "the EHSA files and the data box are among the outputs compared")
    }

    @Test("EHSA: with K ≥ 2 the lone incident is no location; with K = 1 it is one whenever it falls in the cube")
    func ehsaLoneIncident() throws {
        var withheldSomewhere = false
        for c in Self.cases {
            let d = Self.dataset(seed: c.seed)
            let lone = Self.isolatedIncident(d, radius: c.radius, seed: c.seed)
            let exact = Self.content(d.incidents + [lone], d, radius: c.radius, precision: c.precision, k: 1)
            let guarded = Self.content(d.incidents + [lone], d, radius: c.radius, precision: c.precision, k: c.k)
            let ehsa = try #require(exact.ehsa)
            let cell = GeohashCell(lat: lone.lat, lon: lone.lon, precision: ehsa.parameters.grid.geohashPrecision!)
            let inCube = MonthlySteps(asOf: Self.asOf, count: 24).step(of: lone.time) != nil
            #expect(ehsa.locations.contains { $0.cell == cell } == inCube, "seed \(c.seed)")
            #expect(!(guarded.ehsa?.locations.contains { $0.cell == cell } ?? true), "seed \(c.seed)")
            withheldSomewhere = withheldSomewhere || inCube
        }
        #expect(withheldSomewhere, "no case put the lone incident inside the cube")
    }

    @Test("published figures are ≥ K or withheld; every cell with a figure to show is published", arguments: cases)
    func publishedFiguresFollowTheRule(_ c: (seed: UInt64, k: Int, radius: Double, precision: Int)) throws {
        let d = Self.dataset(seed: c.seed)
        let exact = Self.content(d.incidents, d, radius: c.radius, precision: c.precision, k: c.k)
        let report = try Self.written(exact)
        let lines = String(decoding: try #require(report["grid.csv"]), as: UTF8.self).split(separator: "\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var published = Set<String>()
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            published.insert(fields[0])
            // n_current … handled and the year columns: empty or at least K.
            for (name, value) in zip(header, fields)
            where ["n_current", "n_previous", "r_current", "r_previous", "handled"].contains(name)
                || name.hasPrefix("y")
            {
                #expect(value.isEmpty || Int(value)! >= c.k, "\(fields[0]) \(name) = \(value)")
            }
            let delta = fields[7], pct = fields[8], rc = fields[5], rp = fields[6]
            if rc.isEmpty || rp.isEmpty {
                #expect(delta.isEmpty && pct.isEmpty, "\(fields[0]): derived figure of a withheld count")
            }
        }
        // An independent statement of which cells must be published.
        for cell in exact.grid.cells {
            let counts =
                [cell.nCurrent, cell.nPrevious, cell.rCurrent, cell.rPrevious, cell.handled]
                + exact.grid.yearCounts(of: cell)
            let shows = counts.contains { $0 >= c.k } || cell.safetyClass != .safe
            #expect(published.contains(cell.cell.string) == shows, "\(cell.cell.string): \(counts)")
        }
        // Year columns: only years some published cell shows.
        let years = header.filter { $0.hasPrefix("y") }.map { Int($0.dropFirst())! }
        #expect(Set(years).isSubset(of: Set(exact.grid.years)))
        // Tiles and GeoJSON carry no count between 0 and K − 1.
        for (path, bytes) in report where path.hasPrefix("tiles/") && path != "tiles/tilejson.json" {
            let tile = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            for case let entry as [Any] in (tile["cells"] as? [String: Any] ?? [:]).values {
                for case let n as NSNumber in entry.prefix(2) { #expect(n.intValue >= c.k, "\(path): \(entry)") }
            }
        }
        // Breakdown: every shown count at least K (delta may be negative), no row with nothing shown.
        let breakdownLines = String(decoding: try #require(report["breakdown.csv"]), as: UTF8.self).split(
            separator: "\n")
        let numericColumns = breakdownLines[0].split(separator: ",").count - 1
        for line in breakdownLines.dropFirst() {
            let fields = Array(
                line.split(separator: ",", omittingEmptySubsequences: false).map(String.init).suffix(numericColumns))
            // current, previous, delta, pct, p_change, q_change, change, then the years.
            let counts = [fields[0], fields[1]] + fields.dropFirst(7)
            #expect(counts.allSatisfy { $0.isEmpty || Int($0)! >= c.k }, "\(line)")
            #expect(counts.contains { !$0.isEmpty }, "a breakdown row with nothing to show: \(line)")
            if fields[0].isEmpty || fields[1].isEmpty {
                let derived = fields[2...6].allSatisfy { $0.isEmpty }
                #expect(derived, "a figure derived from a withheld count: \(line)")
            }
        }
        #expect(!(report["areas.geojson"].map { String(decoding: $0, as: UTF8.self).contains("unassigned") } ?? true))
    }
}
