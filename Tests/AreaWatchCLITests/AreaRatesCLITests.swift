import AreaWatchTestSupport
import Foundation
import Testing

/// `report --areas F --area-population P` (SPEC §17) through the built binary, on the bundled
/// Calderdale police data with populations that cover every case: a small town centre, two towns,
/// a population 0, a string of digits and none at all. Rates are recomputed here from the counts
/// the report wrote, and the smoothing by the textbook formula, independently of the engine.
@Suite("rates per resident of named areas", .timeLimit(.minutes(60)))
struct AreaRatesCLITests {
    /// The bundled areas with test populations, by area name; nil: no `population` member.
    static let populations: [(name: String, json: String?)] = [
        ("Halifax town centre", "900"),
        ("Halifax (outside the town centre)", nil),
        ("Brighouse", "32872"),
        ("Elland", "0"),
        ("Sowerby Bridge", "\"9948\""),
        ("Upper Calder Valley (Todmorden and Hebden Bridge)", "15925")
    ]
    static let expectedNotes = ["", "missing", "", "not_positive", "not_numeric", ""]
    static let rateColumns = ["population", "rate_current", "rate_previous", "eb_rate_current", "population_note"]

    static func areasFile(_ tmp: TempDir) throws -> String {
        var text = try readText(Datasets.areas)
        for (name, json) in populations {
            let bundled = try #require(text.range(of: "\"properties\":{\"name\":\"\(name)\"")).upperBound
            let end = try #require(text[bundled...].firstIndex(of: "}"))
            text.replaceSubrange(bundled..<end, with: json.map { ",\"population\":\($0)" } ?? "")
        }
        return try tmp.file("areas.geojson", text)
    }

    static func report(_ tmp: TempDir, _ name: String, _ extra: [String]) throws -> String {
        let out = tmp.sub(name)
        try areawatchOK(
            ["report", "--input"] + Datasets.police + [
                "--out", out, "--as-of", Datasets.asOf,
                "--tile-zooms", "none", "--areas", try areasFile(tmp), "--quiet"
            ] + extra)
        return out
    }

    /// Marshall's global empirical Bayes estimate, the prior variance taken as 0 when negative.
    static func empiricalBayes(_ events: [Double], _ populations: [Double]) -> [Double] {
        let m = events.reduce(0, +) / populations.reduce(0, +)
        let meanPopulation = populations.reduce(0, +) / Double(populations.count)
        var spread = 0.0
        for (e, b) in zip(events, populations) { spread += b * pow(e / b - m, 2) }
        let v = max(0, spread / populations.reduce(0, +) - m / meanPopulation)
        return zip(events, populations).map { e, b in m + v / (v + m / b) * (e / b - m) }
    }

    static func close(_ text: String?, _ expected: Double) -> Bool {
        guard let text, let v = Double(text) else { return false }
        return abs(v - expected) <= 1e-12 * max(1, abs(expected))
    }

    @Test("areas.csv and areas.geojson: rates from the written counts, the smoothing by brute force, every note")
    func ratesEndToEnd() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp, "rates", ["--area-population", "population"])
        let csv = StrictCSV.parse(try readText(out + "/areas.csv"))
        #expect(csv.violations.isEmpty, "\(csv.violations)")
        let header = csv.header
        let change = try #require(header.firstIndex(of: "change"))
        #expect(Array(header[(change + 1)...(change + 5)]) == Self.rateColumns, "\(header)")
        #expect(header[change + 6].hasPrefix("y"), "\(header)")
        let rows = csv.dictionaries
        #expect(rows.map { $0["name"] ?? "" } == Self.populations.map(\.name))
        #expect(rows.map { $0["population_note"] ?? "?" } == Self.expectedNotes)
        #expect(rows.map { $0["population"] ?? "?" } == ["900", "", "32872", "0", "", "15925"])

        let rated = [0, 2, 5]
        let people = [900.0, 32_872, 15_925]
        let current = try rated.map { try #require(Double(rows[$0]["n_current"] ?? "")) }
        let previous = try rated.map { try #require(Double(rows[$0]["n_previous"] ?? "")) }
        #expect(current.allSatisfy { $0 > 0 }, "the test needs incidents in every rated area: \(current)")
        let smoothed = Self.empiricalBayes(current, people)
        for (j, k) in rated.enumerated() {
            #expect(Self.close(rows[k]["rate_current"], current[j] / people[j] * 100_000), "\(rows[k])")
            #expect(Self.close(rows[k]["rate_previous"], previous[j] / people[j] * 100_000), "\(rows[k])")
            #expect(Self.close(rows[k]["eb_rate_current"], smoothed[j] * 100_000), "\(rows[k])")
        }
        // The town centre, with far fewer residents, is pulled hardest toward the rate of all three.
        let m = current.reduce(0, +) / people.reduce(0, +)
        let pull = current.indices.map { j in
            let raw = current[j] / people[j]
            return abs(smoothed[j] - raw) / abs(raw - m)
        }
        #expect(pull[0] > pull[1] && pull[0] > pull[2], "\(pull)")
        #expect(Double(rows[0]["eb_rate_current"] ?? "") != Double(rows[0]["rate_current"] ?? ""))
        for k in [1, 3, 4] {
            #expect(["rate_current", "rate_previous", "eb_rate_current"].allSatisfy { rows[k][$0] == "" }, "\(rows[k])")
        }

        let geojson = try JSON.parse(try readText(out + "/areas.geojson"))
        let features = try #require(geojson["features"]?.array)
        #expect(features.count == 6)
        for (k, feature) in features.enumerated() {
            let p = try #require(feature["properties"])
            let keys = p.keys
            let at = try #require(keys.firstIndex(of: "change"))
            #expect(Array(keys[(at + 1)...(at + 5)]) == Self.rateColumns && keys[at + 6] == "years", "\(keys)")
            for column in Self.rateColumns {
                let cell = rows[k][column] ?? "?"
                let value = p[column]
                if cell.isEmpty {
                    #expect(value == .null, "\(k) \(column)")
                } else if column == "population_note" {
                    #expect(value?.string == cell, "\(k)")
                } else {
                    #expect(value?.numberText == cell, "\(k) \(column): \(String(describing: value)) vs \(cell)")
                }
            }
        }
    }

    @Test("--rate-per scales the rates; without --area-population areas.csv is the same less the five columns")
    func ratePerAndUnchanged() throws {
        let tmp = try TempDir()
        let thousand = try Self.report(tmp, "k", ["--area-population", "population", "--rate-per", "1000"])
        let perThousand = StrictCSV.parse(try readText(thousand + "/areas.csv"))
        let perDefault = StrictCSV.parse(
            try readText(
                try Self.report(tmp, "d", ["--area-population", "population"])
                    + "/areas.csv"))
        for (a, b) in zip(perThousand.dictionaries, perDefault.dictionaries) {
            for column in ["rate_current", "rate_previous", "eb_rate_current"] where b[column] != "" {
                #expect(Self.close(a[column], Double(b[column]!)! / 100), "\(column): \(a) \(b)")
            }
        }
        let plainFolder = try Self.report(tmp, "plain", [])
        let plain = try readText(plainFolder + "/areas.csv")
        let change = try #require(perDefault.header.firstIndex(of: "change"))
        let stripped = perDefault.rows.map { row in
            (Array(row.fields[...change]) + Array(row.fields[(change + 6)...])).map { field in
                StrictCSV.needsQuotes(field) ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
            }.joined(separator: ",") + "\n"
        }.joined()
        #expect(stripped == plain)
        // Every other output is the same file (grid.gpkg holds the areas layer), and the page has
        // no rates without populations.
        let withRates = try readTree(tmp.sub("d")), without = try readTree(plainFolder)
        let others = reportDifferences(withRates, without).filter {
            ![
                "areas.csv differs", "areas.geojson differs", "areas.parquet differs", "grid.gpkg differs",
                "report.html differs", "summary.json differs beyond timings_s"
            ].contains($0)
        }
        #expect(others.isEmpty, "\(others)")
        // summary.json: the same but for the sizes of the files that gained the rates.
        func summary(_ tree: [String: [UInt8]]) throws -> [(String, JSON)] {
            try summaryWithoutTimings(try #require(tree["summary.json"])).members.filter { $0.0 != "files" }
        }
        #expect(JSON.object(try summary(withRates)) == JSON.object(try summary(without)))
        let page = try readText(plainFolder + "/report.html")
        #expect(!page.contains("area-rates") && !page.contains("eb_rate_current"))
    }

    @Test("report.html ranks the areas by eb_rate_current and says why, only with populations")
    func htmlRanking() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp, "html", ["--area-population", "population"])
        let csv = StrictCSV.parse(try readText(out + "/areas.csv")).dictionaries
        let page = try readText(out + "/report.html")
        #expect(page.contains("<p class=\"note\" id=\"area-rates\">Ranked by eb_rate_current"))
        let section = String(try #require(page.range(of: "<section id=\"areas\">").map { page[$0.lowerBound...] }))
        let table = String(section[..<(section.range(of: "</section>")?.lowerBound ?? section.endIndex)])
        let positions = try Self.populations.map { area in
            try #require(
                table.range(of: ">" + area.name + "<")?.lowerBound,
                "\(area.name) not in the areas table")
        }
        let ranked = [0, 2, 5].sorted { Double(csv[$0]["eb_rate_current"]!)! > Double(csv[$1]["eb_rate_current"]!)! }
        let expected = ranked + [1, 3, 4]
        #expect(positions.indices.sorted { positions[$0] < positions[$1] } == expected, "\(expected)")
        let plain = try readText(try Self.report(tmp, "plain", []) + "/report.html")
        let plainStart = try #require(plain.range(of: "<section id=\"areas\">")).lowerBound
        let plainSection = String(plain[plainStart...])
        let plainPositions = Self.populations.compactMap { plainSection.range(of: ">" + $0.name + "<")?.lowerBound }
        #expect(
            plainPositions == plainPositions.sorted() && plainPositions.count == 6,
            "input order without populations")
    }

    @Test(
        "options: --area-population without --areas, --rate-per out of range: exit 1 naming the option",
        arguments: [
            (["--area-population", "population"], "--area-population needs --areas"),
            (["--areas", Datasets.areas, "--area-population", "population", "--rate-per", "0"], "(0, 1000000000]"),
            (["--areas", Datasets.areas, "--rate-per", "-5"], "(0, 1000000000]"),
            (
                ["--areas", Datasets.areas, "--area-population", "population", "--rate-per", "2000000000"],
                "(0, 1000000000]"
            ),
            (["--areas", Datasets.areas, "--area-population", "population", "--rate-per", "many"], "--rate-per")
        ])
    func options(arguments: [String], message: String) throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try areawatch(
            ["report", "--input", Datasets.police[2], "--out", out, "--as-of", Datasets.asOf]
                + arguments)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(message), "\(r)")
        #expect(!exists(out))
    }

    @Test("nightly config: area_population without areas, rate_per out of range: exit 1 naming the key")
    func configKeys() throws {
        let tmp = try TempDir()
        for (table, word) in [
            ("area_population = \"population\"\n", "--area-population needs --areas"),
            ("rate_per = 0\n", "rate_per")
        ] {
            let config = try tmp.file(
                "job.toml",
                "store = \"s.db\"\nout = \"out\"\n[inbox]\nfolder = \"in\"\n"
                    + "include = [\"*.csv\"]\n[report]\n" + table)
            try FileManager.default.createDirectory(atPath: tmp.sub("in"), withIntermediateDirectories: true)
            try copyItem(Datasets.police[2], tmp.sub("in/a.csv"))
            let r = try areawatch(["run", "--config", config, "--quiet"])
            #expect(r.status == 1, "\(r)")
            #expect(r.stderr.contains(word), "\(r)")
            removeItem(tmp.sub("in/a.csv"))
        }
    }

    @Test("the scale-out job's report step refuses --area-population (it writes no areas), before any work")
    func scaleOutRefuses() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try areawatch([
            "merge-report", "--parts", tmp.path, "--out", out, "--as-of", Datasets.asOf,
            "--area-population", "population"
        ])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("--area-population") && r.stderr.contains("areawatch report"), "\(r)")
        #expect(!exists(out))
    }

    @Test("disclosure control: a withheld count withholds its rate and stays out of the smoothing")
    func withheld() throws {
        let tmp = try TempDir()
        let exact = StrictCSV.parse(
            try readText(
                try Self.report(tmp, "e", ["--area-population", "population"])
                    + "/areas.csv")
        ).dictionaries
        let counts = [0, 2, 5].map { Int(exact[$0]["n_current"]!)! }
        // K between the smallest and the others: one rated area's current count is withheld.
        let k = counts.min()! + 1
        #expect(counts.filter { $0 >= k }.count == 2, "\(counts)")
        let shown = StrictCSV.parse(
            try readText(
                try Self.report(
                    tmp, "k",
                    [
                        "--area-population", "population",
                        "--min-cell-count", String(k)
                    ])
                    + "/areas.csv")
        ).dictionaries
        let kept = [0, 2, 5].filter { Int(exact[$0]["n_current"]!)! >= k }
        let hidden = [0, 2, 5].first { !kept.contains($0) }!
        #expect(shown[hidden]["rate_current"] == "" && shown[hidden]["eb_rate_current"] == "", "\(shown[hidden])")
        let people: [Int: Double] = [0: 900, 2: 32_872, 5: 15_925]
        let smoothed = Self.empiricalBayes(kept.map { Double(exact[$0]["n_current"]!)! }, kept.map { people[$0]! })
        for (j, area) in kept.enumerated() {
            #expect(Self.close(shown[area]["eb_rate_current"], smoothed[j] * 100_000), "\(shown[area])")
        }
    }
}
