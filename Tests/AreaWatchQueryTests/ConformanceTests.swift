import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Foundation
import Testing

/// The eleven conformance columns of a grid row, formatted as grid.csv writes them (SPEC §8).
func conformanceLine(_ c: GridCell) -> String {
    let yoy = c.yearOverYear
    return [
        c.cell.string, NumberFormat.fixed(c.cell.centre.lat, decimals: 6),
        NumberFormat.fixed(c.cell.centre.lon, decimals: 6),
        String(c.nCurrent), String(c.nPrevious), String(c.rCurrent), String(c.rPrevious), String(yoy.delta),
        yoy.pct.map { NumberFormat.fixed($0, decimals: 4) } ?? "", String(c.handled), c.safetyClass.rawValue
    ]
    .joined(separator: ",")
}

/// Compares a grid with a golden CSV (header + sorted rows, the eleven columns) line by line.
func compareWithGolden(_ grid: GridResult, goldenText: String, label: String) {
    var lines = textLines(goldenText)
    #expect(
        lines.first == "geohash,lat,lon,n_current,n_previous,r_current,r_previous,delta,pct,handled,class",
        "\(label): header")
    lines.removeFirst()
    let ours = grid.cells.map(conformanceLine)
    var differences: [String] = []
    var total = 0
    var i = 0, j = 0
    func note(_ s: String) {
        total += 1
        if differences.count < 8 { differences.append(s) }
    }
    func key(_ line: String) -> Substring { line.prefix { $0 != "," } }
    while i < lines.count || j < ours.count {
        if j >= ours.count || (i < lines.count && key(lines[i]) < key(ours[j])) {
            note("missing  \(lines[i])")
            i += 1
        } else if i >= lines.count || key(ours[j]) < key(lines[i]) {
            note("extra    \(ours[j])")
            j += 1
        } else {
            if lines[i] != ours[j] { note("expected \(lines[i])\n  got      \(ours[j])") }
            i += 1
            j += 1
        }
    }
    #expect(ours.count == lines.count, "\(label): \(ours.count) cells, golden \(lines.count)")
    #expect(total == 0, "\(label): \(total) differing rows, first:\n\(differences.joined(separator: "\n"))")
}

/// Point answers formatted as police-uk-points-r1000.csv.
func conformancePointLine(name: String, lat: String, lon: String, _ a: PointAnswer) -> String {
    let name = name.contains(",") ? "\"\(name)\"" : name
    return [
        name, lat, lon, NumberFormat.compact(a.radius), String(a.current), String(a.previous), String(a.delta),
        a.pct.map { NumberFormat.fixed($0, decimals: 4) } ?? "", String(a.handled), a.safetyClass.rawValue, a.text
    ]
    .joined(separator: ",")
}

/// Counts by brute force over raw data.police.uk CSV files read with the tiny reader: rows with
/// coordinates, 2018-07 current and 2017-07 previous (with as-of 2018-07-31T23:59:59Z).
struct RawPoliceRows {
    var lat: [Double] = []
    var lon: [Double] = []
    var month: [String] = []
    var ids: [String] = []

    init(_ paths: [String]) throws {
        for path in paths {
            let (header, records) = try readCSVRecords(path, columns: ["Latitude", "Longitude", "Month", "Crime ID"])
            let la = try #require(header.firstIndex(of: "Latitude")),
                lo = try #require(header.firstIndex(of: "Longitude"))
            let m = try #require(header.firstIndex(of: "Month")), id = try #require(header.firstIndex(of: "Crime ID"))
            for r in records {
                #expect(r.count == header.count, "\(path): a row with \(r.count) fields")
                guard !r[la].isEmpty, !r[lo].isEmpty else { continue }
                lat.append(try #require(Double(r[la])))
                lon.append(try #require(Double(r[lo])))
                month.append(r[m])
                ids.append(r[id])
            }
        }
    }

    func counts(lat: Double, lon: Double, radius: Double) -> (current: Int, previous: Int) {
        var c = 0, p = 0
        for k in self.lat.indices
        where Haversine.distance(lat1: lat, lon1: lon, lat2: self.lat[k], lon2: self.lon[k]) <= radius {
            if month[k] == "2018-07" { c += 1 } else if month[k] == "2017-07" { p += 1 }
        }
        return (c, p)
    }
}

/// The conformance data of ../shared (beside the package root), when it is there.
enum WestYorkshire {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let files = ["2016-07", "2017-07", "2018-07"].map {
        Paths.shared.appendingPathComponent("data/police-uk/\($0)-west-yorkshire-street.csv").path
    }
    static func conformance(_ name: String) -> String {
        Paths.shared.appendingPathComponent("conformance").appendingPathComponent(name).path
    }

    /// Ingested once for the whole suite.
    static let loaded: Result<LoadedFiles, any Error> = Result { try loadFiles(files) }
    static let index: Result<IncidentIndex, any Error> = loaded.map {
        IncidentIndex(columns: $0.columns, parameters: QueryParameters(asOf: asOf, radius: 1000))
    }
}

@Suite(
    "Conformance: West Yorkshire data in ../shared",
    .enabled(
        if: Paths.sharedAvailable,
        "skipped: to run it, put the West Yorkshire police data and conformance results in ../shared beside the package root (data/police-uk/ and conformance/)"
    ))
struct ConformanceTests {
    @Test("ingest facts: 87,348 records, 83,577 accepted, 3,771 missing_coordinates")
    func ingestFacts() throws {
        let loaded = try WestYorkshire.loaded.get()
        #expect(loaded.reports.map(\.records) == [27_176, 28_537, 31_635])
        #expect(loaded.reports.reduce(0) { $0 + $1.accepted } == 83_577)
        #expect(loaded.reports.reduce(0) { $0 + $1.rejected } == 3_771)
        #expect(loaded.reports.map(\.rejected) == [1_347, 1_541, 883])
        #expect(loaded.reports.allSatisfy { $0.rejectsByReason.keys.sorted() == [.missingCoordinates] })
        #expect(loaded.columns.count == 83_577, "identical id-less rows are distinct incidents")
    }

    @Test("every 2018-07 incident is current, every 2017-07 one previous, 2016-07 neither")
    func windowsPerMonth() throws {
        let loaded = try WestYorkshire.loaded.get()
        let index = try WestYorkshire.index.get()
        #expect(index.count == loaded.columns.count)
        var wrong: [String] = []
        var perMonth: [String: Int] = [:]
        for k in 0..<index.count {
            let t = loaded.columns.time[Int(index.sourceIndex[k])]
            let c = UTCTime.civil(t)
            let month = "\(c.year)-\(c.month < 10 ? "0" : "")\(c.month)"
            perMonth[month, default: 0] += 1
            let expected: WindowMembership = month == "2018-07" ? .current : month == "2017-07" ? .previous : .older
            if index.membership[k] != expected.rawValue, wrong.count < 5 { wrong.append("\(UTCTime.iso8601(t))") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(perMonth == ["2016-07": 25_829, "2017-07": 26_996, "2018-07": 30_752])
        let totals = index.totals()
        #expect(totals.current == 30_752 && totals.previous == 26_996 && totals.older == 25_829)
        #expect(totals.years == [2016, 2017, 2018])
    }

    @Test("grid, precision 7 and 6, radius 1000 m, equals the conformance CSV cell for cell", arguments: [7, 6])
    func grid(precision: Int) throws {
        let index = try WestYorkshire.index.get()
        let golden = try readText(WestYorkshire.conformance("police-uk-grid-p\(precision)-r1000.csv"))
        let grid = index.grid(precision: precision, strategy: .scatter, threads: 2)
        compareWithGolden(grid, goldenText: golden, label: "p\(precision) scatter")
        if precision == 7 {
            #expect(grid.cells.count == 129_273)
            #expect(grid.classCounts == [.dangerous: 76_814, .medium: 13_265, .safe: 39_194])
            #expect(grid.cells.reduce(0) { $0 + $1.nCurrent } == 30_752)
            #expect(grid.cells.reduce(0) { $0 + $1.nPrevious } == 26_996)
        } else {
            #expect(grid.cells.count == 4_033)
            // The R-tree strategy too (cheap at precision 6).
            compareWithGolden(
                index.grid(precision: 6, strategy: .rtreePerCell, threads: 2), goldenText: golden, label: "p6 rtree")
        }
    }

    @Test("the 40 point answers equal police-uk-points-r1000.csv")
    func points() throws {
        let index = try WestYorkshire.index.get()
        let fixture = try readText(try Paths.fixture("police-uk-points-r1000.csv"))
        let shared = try readText(WestYorkshire.conformance("police-uk-points-r1000.csv"))
        #expect(fixture == shared, "Fixtures/police-uk-points-r1000.csv is a copy of the conformance file")
        let rows = parseCSV(shared)
        #expect(
            rows.first == [
                "name", "lat", "lon", "radius_m", "current", "previous", "delta", "pct", "handled", "cls", "text"
            ])
        #expect(rows.count == 41)
        let lines = textLines(shared)
        for (row, line) in zip(rows.dropFirst(), lines.dropFirst()) {
            let a = index.pointAnswer(lat: try #require(Double(row[1])), lon: try #require(Double(row[2])))
            #expect(conformancePointLine(name: row[0], lat: row[1], lon: row[2], a) == line)
        }
    }

    @Test("point answers against brute force over the raw CSV, and the 1000.0000038 m boundary case")
    func rawBruteForce() throws {
        let index = try WestYorkshire.index.get()
        let raw = try RawPoliceRows(WestYorkshire.files)
        #expect(raw.lat.count == 83_577)
        let ids = raw.ids.filter { !$0.isEmpty }
        #expect(Set(ids).count == ids.count, "Crime IDs are unique across the three files: every row is one incident")
        // The cell whose centre is 1000.0000038 m from the incident at (53.741022, −1.888982).
        let cell = try #require(GeohashCell("gcw9tq0"))
        let centre = cell.centre
        #expect(
            NumberFormat.fixed(centre.lat, decimals: 6) == "53.734818"
                && NumberFormat.fixed(centre.lon, decimals: 6) == "-1.877975")
        let d = Haversine.distance(lat1: 53.741022, lon1: -1.888982, lat2: centre.lat, lon2: centre.lon)
        #expect(d > 1000 && d < 1000.00001, "\(d)")
        #expect(raw.lat.indices.contains { raw.lat[$0] == 53.741022 && raw.lon[$0] == -1.888982 })
        let locations: [(Double, Double)] = [
            (centre.lat, centre.lon), (53.7997, -1.5492), (53.796, -1.7594),
            (53.7248, -1.8658), (53.741022, -1.888982), (53.6458, -1.785), (54.0, -1.0)
        ]
        for (lat, lon) in locations {
            let expected = raw.counts(lat: lat, lon: lon, radius: 1000)
            let a = index.pointAnswer(lat: lat, lon: lon)
            #expect(a.current == expected.current && a.previous == expected.previous, "(\(lat), \(lon))")
        }
        let a = index.pointAnswer(lat: centre.lat, lon: centre.lon)
        #expect((a.current, a.previous) == (235, 214), "gcw9tq0 in the conformance grid: r_current 235, r_previous 214")
        // With R = 6,371,000 m the incident would be in: the engine must not count it.
        let moved = raw.counts(lat: centre.lat, lon: centre.lon, radius: 1000.0000039)
        #expect(moved.current + moved.previous > a.current + a.previous)
    }
}

/// The bundled Calderdale sample against golden grids made by the independent Python peers
/// (Fixtures/README.md): self-contained, runs everywhere.
@Suite("Calderdale sample: goldens from the independent peers")
struct CalderdaleGoldenTests {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let loaded: Result<LoadedFiles, any Error> = Result { try loadFiles(Paths.calderdaleFiles) }

    @Test("grid equals the golden grid", arguments: [7, 6])
    func grid(precision: Int) throws {
        let loaded = try Self.loaded.get()
        #expect(loaded.reports.map(\.accepted) == [2125, 2345, 2559])
        #expect(loaded.reports.map(\.rejected) == [40, 40, 40])
        let index = IncidentIndex(columns: loaded.columns, parameters: QueryParameters(asOf: Self.asOf, radius: 1000))
        let name = precision == 7 ? "calderdale-grid-p7-r1000.csv.gz" : "calderdale-grid-p6-r1000.csv"
        let golden = try readText(try Paths.fixture(name))
        // Both strategies, 1 and 2 threads (at precision 7 the slower R-tree strategy with 2
        // threads only: the brute-force suite compares its thread counts).
        for strategy in GridStrategy.allCases {
            for threads in [1, 2] where strategy == .scatter || threads == 2 || precision == 6 {
                compareWithGolden(
                    index.grid(precision: precision, strategy: strategy, threads: threads), goldenText: golden,
                    label: "Calderdale p\(precision) \(strategy) threads \(threads)")
            }
        }
    }

    @Test("point answers at the 40 conformance locations equal brute force over the raw sample")
    func points() throws {
        let loaded = try Self.loaded.get()
        let raw = try RawPoliceRows(Paths.calderdaleFiles)
        #expect(raw.lat.count == loaded.columns.count)
        let rows = parseCSV(try readText(try Paths.fixture("police-uk-points-r1000.csv"))).dropFirst()
        #expect(rows.count == 40)
        for radius in [1000.0, 2500] {
            let index = IncidentIndex(
                columns: loaded.columns, parameters: QueryParameters(asOf: Self.asOf, radius: radius))
            var nonZero = 0
            for row in rows {
                let lat = try #require(Double(row[1])), lon = try #require(Double(row[2]))
                let expected = raw.counts(lat: lat, lon: lon, radius: radius)
                let a = index.pointAnswer(lat: lat, lon: lon)
                #expect(a.current == expected.current && a.previous == expected.previous, "\(row[0]) r \(radius)")
                #expect(a.handled == 0)
                if expected.current > 0 { nonZero += 1 }
            }
            #expect(nonZero >= 3, "some of the locations are in Calderdale")
        }
    }
}
