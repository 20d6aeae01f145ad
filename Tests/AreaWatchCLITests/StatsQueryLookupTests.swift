import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// `stats`, `query` (SPEC §7.1) and `lookup` (SPEC §8) on the bundled nightly job's store and
/// report, checked against an independent reading of the inputs and against each other.
@Suite("stats, query, lookup", .timeLimit(.minutes(60)))
struct StatsQueryLookupTests {
    static let halifax = (lat: "53.7248", lon: "-1.8658")
    static let queryFields = [
        "lat", "lon", "radius_m", "as_of", "current", "previous", "delta", "pct", "handled", "class",
        "label", "text", "coverage", "p_change", "excluded_future"
    ]

    // MARK: stats

    @Test("stats (text and --json) agree with the inputs")
    func stats() throws {
        let run = try BundledRun.get()
        let incidents = try Model.all()
        let times = incidents.map(\.time)
        let first = Civil.iso(times.min()!), last = Civil.iso(times.max()!)
        var categories: [String: Int] = [:]
        for i in incidents { categories[i.category ?? "", default: 0] += 1 }

        let text = try areawatchOK(["stats", "--db", run.store])
        let lines = text.stdoutLines
        #expect(lines.contains("incidents: \(incidents.count)"), "\(text)")
        #expect(lines.contains("spatial index entries: \(incidents.count)"), "\(text)")
        #expect(lines.contains("time range: \(first) … \(last)"), "\(text)")
        #expect(lines.contains("categories (\(categories.count)):"), "\(text)")
        #expect(lines.contains("ingests (5):"), "\(text)")
        for (name, count) in categories {
            #expect(lines.contains("  \(count)\t\(name.isEmpty ? "(none)" : name)"), "category \(name): \(text)")
        }

        let j = try areawatchOK(["stats", "--db", run.store, "--json"])
        let json = try JSON.parse(j.stdout)
        #expect(
            json.keys == [
                "store", "incidents", "first_time", "last_time", "bounds", "spatial_index_entries", "categories",
                "ingests"
            ])
        #expect(json["incidents"]?.int == incidents.count)
        #expect(json["spatial_index_entries"]?.int == incidents.count)
        #expect(json["first_time"]?.string == first && json["last_time"]?.string == last)
        let bounds = json["bounds"]?.array?.compactMap(\.double) ?? []
        #expect(
            bounds == [
                incidents.map(\.lon).min()!, incidents.map(\.lat).min()!, incidents.map(\.lon).max()!,
                incidents.map(\.lat).max()!
            ])
        var statsCategories: [String: Int] = [:]
        for (k, v) in json["categories"]?.members ?? [] { statsCategories[k] = v.int }
        #expect(statsCategories == categories)

        // The ingests log: the five inbox files in path order, with their counts.
        let ingests = try #require(json["ingests"]?.array)
        #expect(
            ingests.compactMap { $0["file"]?.string }.map { ($0 as NSString).lastPathComponent }
                == (Datasets.police + Datasets.watchme).map { ($0 as NSString).lastPathComponent })
        for (entry, police) in zip(ingests, try Model.police()) {
            #expect(
                entry["records"]?.int == police.rows && entry["accepted"]?.int == police.incidents.count
                    && entry["inserted"]?.int == police.incidents.count
                    && entry["rejected"]?.int == police.rejectedLines.count, "\(entry)")
        }
        let manifest = try JSON.parse(try readBytes(dataset("watchme/manifest.json")))
        for (entry, name) in zip(
            ingests.suffix(2), ["watchme-export-2018-07-31.json", "watchme-export-2018-08-01-edits.json"])
        {
            #expect(entry["sha256"] == manifest["files"]?[name]?["sha256"], "\(entry)")
        }
        let edits = try #require(manifest["files"]?["watchme-export-2018-08-01-edits.json"]?["ingest_after_first_file"])
        #expect(
            ingests[4]["inserted"] == edits["new"] && ingests[4]["updated"] == edits["updated"]
                && ingests[4]["duplicates"] == edits["duplicate"] && ingests[4]["rejected"] == edits["rejected"])
    }

    // MARK: query

    /// The answer the model gives at a point, checked against a `query --json` answer.
    static func expectAgrees(
        _ answer: JSON, with model: ModelAnswer, excludedFuture: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let current = answer["current"]?.int, let previous = answer["previous"]?.int,
            let handled = answer["handled"]?.int
        else {
            Issue.record("no counts in \(answer)", sourceLocation: sourceLocation)
            return
        }
        #expect(
            model.current.contains(current), "current \(current), expected \(model.current)",
            sourceLocation: sourceLocation)
        #expect(
            model.previous.contains(previous), "previous \(previous), expected \(model.previous)",
            sourceLocation: sourceLocation)
        #expect(
            model.handled.contains(handled), "handled \(handled), expected \(model.handled)",
            sourceLocation: sourceLocation)
        let delta = current - previous
        #expect(answer["delta"]?.int == delta, sourceLocation: sourceLocation)
        if previous == 0 {
            #expect(answer["pct"] == .null, sourceLocation: sourceLocation)
        } else {
            #expect(
                answer["pct"]?.numberText == fixed(Double(delta) / Double(previous), 4), "\(answer)",
                sourceLocation: sourceLocation)
        }
        let safetyClass = classify(current)
        #expect(answer["class"]?.string == safetyClass, sourceLocation: sourceLocation)
        #expect(answer["label"]?.string == label(of: safetyClass), sourceLocation: sourceLocation)
        #expect(
            answer["text"]?.string == "\(abs(delta)) event(s) \(delta >= 0 ? "more" : "less") than previous year",
            sourceLocation: sourceLocation)
        if let excludedFuture {
            #expect(answer["excluded_future"]?.int == excludedFuture, sourceLocation: sourceLocation)
        }
    }

    @Test("query --json: exactly the SPEC §7.1 fields, the golden answer at Halifax town centre, as recomputed")
    func queryJSON() throws {
        let run = try BundledRun.get()
        let r = try areawatchOK([
            "query", "--db", run.store, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon,
            "--as-of", Datasets.asOf, "--json"
        ])
        let golden = try readText(try fixturePath("query-halifax-town-centre.json"))
        #expect(r.stdout == golden, "query --json differs from Fixtures/query-halifax-town-centre.json:\n\(r.stdout)")
        let answer = try JSON.parse(r.stdout)
        #expect(answer.keys == Self.queryFields)
        #expect(
            answer["lat"]?.double == 53.7248 && answer["lon"]?.double == -1.8658 && answer["radius_m"]?.double == 1000)
        #expect(answer["as_of"]?.string == Datasets.asOf)
        let incidents = try Model.all()
        let model = ModelAnswer(incidents: incidents, lat: 53.7248, lon: -1.8658, asOf: Model.asOf)
        Self.expectAgrees(answer, with: model, excludedFuture: model.excludedFuture)
    }

    @Test("query text output: label, counts, year-over-year text, as-of")
    func queryText() throws {
        let run = try BundledRun.get()
        let r = try areawatchOK([
            "query", "--db", run.store, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon,
            "--as-of", Datasets.asOf
        ])
        let golden = try readText(try fixturePath("query-halifax-town-centre.txt"))
        #expect(r.stdout == golden, "query differs from Fixtures/query-halifax-town-centre.txt:\n\(r.stdout)")
        let j = try JSON.parse(
            try areawatchOK([
                "query", "--db", run.store, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon,
                "--as-of", Datasets.asOf, "--json"
            ]).stdout)
        let lines = r.stdoutLines
        #expect(lines.first == "\(j["label"]!.string!) (\(j["class"]!.string!))")
        #expect(lines.contains("\(j["current"]!.int!) event(s) during last year within 1000 m"))
        #expect(lines.contains(j["text"]!.string!))
    }

    @Test("query --list: the counted incidents, nearest first, in text and JSON")
    func queryList() throws {
        let run = try BundledRun.get()
        let args = [
            "query", "--db", run.store, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon, "--as-of", Datasets.asOf,
            "--list"
        ]
        let j = try JSON.parse(try areawatchOK(args + ["--json"]).stdout)
        let listed = try #require(j["incidents"]?.array)
        let current = try #require(j["current"]?.int), previous = try #require(j["previous"]?.int)
        #expect(listed.count == current + previous)
        #expect(listed.filter { $0["window"]?.string == "current" }.count == current)
        #expect(listed.filter { $0["window"]?.string == "previous" }.count == previous)
        let distances = listed.compactMap { $0["distance_m"]?.double }
        #expect(
            distances.count == listed.count && distances == distances.sorted() && distances.allSatisfy { $0 <= 1000 })
        #expect(listed.allSatisfy { $0.keys == ["key", "time", "distance_m", "category", "handled", "window"] })
        #expect(Set(listed.compactMap { $0["key"]?.string }).count == listed.count, "a key listed twice")

        let text = try areawatchOK(args)
        let header = text.stdoutLines.firstIndex {
            IngestTable.cells($0) == ["key", "time", "distance_m", "window", "category", "handled"]
        }
        let h = try #require(header, "\(text)")
        #expect(text.stdoutLines.count - h - 1 == listed.count)
    }

    @Test("query filters: --category (repeatable) and --handled, as recomputed")
    func queryFilters() throws {
        let run = try BundledRun.get()
        let incidents = try Model.all()
        let base = [
            "query", "--db", run.store, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon, "--as-of", Datasets.asOf,
            "--json"
        ]
        let cases: [([String], (ModelIncident) -> Bool)] = [
            (["--category", "Burglary"], { $0.category == "Burglary" }),
            (
                ["--category", "Burglary", "--category", "Robbery"],
                { $0.category == "Burglary" || $0.category == "Robbery" }
            ),
            (["--handled", "true"], { $0.handled == true }),
            (["--handled", "false"], { $0.handled == false }),
            (["--category", "No such category"], { _ in false })
        ]
        for (options, filter) in cases.dropLast() {
            let r = try areawatchOK(base + options)
            let model = ModelAnswer(incidents: incidents, lat: 53.7248, lon: -1.8658, asOf: Model.asOf, filter: filter)
            Self.expectAgrees(try JSON.parse(r.stdout), with: model)
        }
        // A filter that leaves no incident anywhere: no data for any location (SPEC §7.1).
        let none = try JSON.parse(try areawatchOK(base + cases.last!.0).stdout)
        #expect(
            none["current"]?.int == 0 && none["previous"]?.int == 0 && none["coverage"]?.string == "none"
                && none["class"]?.isNull == true && none["label"]?.string == "No data for this location", "\(none)")
    }

    @Test("query --input reads the files without a store and creates none")
    func queryInput() throws {
        let tmp = try TempDir()
        let files = Array(Datasets.police.suffix(2))
        let r = try areawatchOK(
            ["query", "--input"] + files + ["--lat", "53.7208", "--lon", "-1.8537", "--as-of", Datasets.asOf, "--json"],
            cwd: tmp.path)
        var incidents: [ModelIncident] = []
        for p in try Model.police().suffix(2) { incidents += p.incidents }
        Self.expectAgrees(
            try JSON.parse(r.stdout),
            with: ModelAnswer(incidents: incidents, lat: 53.7208, lon: -1.8537, asOf: Model.asOf),
            excludedFuture: 0)
        #expect(listFolder(tmp.path).isEmpty, "query --input wrote \(listFolder(tmp.path))")
        let both = try areawatch([
            "query", "--input", files[0], "--db", tmp.sub("x.db"), "--lat", "53.7", "--lon", "-1.8"
        ])
        #expect(both.status == 1, "--db with --input: \(both)")
    }

    @Test("each WatchMe export alone gives the manifest's point answers")
    func watchmeManifestPoints() throws {
        let manifest = try JSON.parse(try readBytes(dataset("watchme/manifest.json")))
        let tmp = try TempDir()
        for (path, name) in zip(
            Datasets.watchme, ["watchme-export-2018-07-31.json", "watchme-export-2018-08-01-edits.json"])
        {
            // One store per export (the nine answers then cost one parse of the export).
            let db = tmp.sub(name + ".db")
            try areawatchOK(["ingest", path, "--db", db, "--quiet"])
            let points = try #require(manifest["files"]?[name]?["point_queries"]?.array)
            for point in points {
                let lat = try #require(point["lat"]?.numberText), lon = try #require(point["lon"]?.numberText)
                let r = try areawatchOK([
                    "query", "--db", db, "--lat", lat, "--lon", lon, "--as-of", try #require(point["as_of"]?.string),
                    "--json"
                ])
                let a = try JSON.parse(r.stdout)
                let where_ = "\(name) at \(point["name"]?.string ?? "?")"
                #expect(
                    a["current"] == point["current"] && a["previous"] == point["previous"]
                        && a["delta"] == point["delta"]
                        && a["handled"] == point["handled"] && a["class"] == point["class"],
                    "\(where_): \(a) vs \(point)")
                let pct = point["pct"]?.double.map { fixed($0, 4) }
                #expect(a["pct"]?.numberText == pct, "\(where_)")
            }
        }
    }

    // MARK: lookup

    @Test("lookup answers as query does at the centres of a sample of reported cells (SPEC §8 acceptance)")
    func lookupAgreesWithQuery() throws {
        let run = try BundledRun.get()
        let grid = StrictCSV.parse(try run.file("grid.csv")).dictionaries
        try #require(!grid.isEmpty)
        let lattice = Lattice(precision: 7)
        var rng = SplitMix64(seed: 8)
        var sample = (0..<4).map { _ in grid[Int(rng.next() % UInt64(grid.count))] }
        sample.append(grid.max { Int($0["r_current"]!)! < Int($1["r_current"]!)! }!)
        if let quiet = grid.first(where: { $0["r_current"] == "0" }) { sample.append(quiet) }
        if let medium = grid.first(where: { $0["class"] == "medium" && $0["r_previous"] != "0" }) {
            sample.append(medium)
        }
        for row in sample {
            let geohash = try #require(row["geohash"])
            let centre = lattice.centre(try #require(lattice.cell(geohash: geohash)))
            let at = ["--lat", exact(centre.lat), "--lon", exact(centre.lon)]
            let q = try JSON.parse(
                try areawatchOK(["query", "--db", run.store, "--as-of", Datasets.asOf, "--json"] + at).stdout)
            let l = try JSON.parse(try areawatchOK(["lookup", "--tiles", run.out + "/tiles", "--json"] + at).stdout)
            #expect(l["geohash"]?.string == geohash, "\(l)")
            #expect(l["found"]?.bool == true, "\(geohash): \(l)")
            for field in ["current", "previous", "delta", "class", "label", "text", "as_of"] {
                #expect(
                    l[field] == q[field],
                    "\(geohash) \(field): lookup \(l[field]?.description ?? "-"), query \(q[field]?.description ?? "-")"
                )
            }
            #expect(
                q["current"]?.int == Int(row["r_current"]!) && q["previous"]?.int == Int(row["r_previous"]!),
                "\(geohash): \(q) vs grid.csv \(row)")
        }
    }

    @Test("lookup golden answer at Halifax; inside the data, far from incidents: safe, counts 0; outside: no data")
    func lookupGoldenAndFarAway() throws {
        let run = try BundledRun.get()
        let tiles = run.out + "/tiles"
        let golden = try readText(try fixturePath("lookup-halifax-town-centre.json"))
        let r = try areawatchOK([
            "lookup", "--tiles", tiles, "--lat", Self.halifax.lat, "--lon", Self.halifax.lon, "--json"
        ])
        #expect(r.stdout == golden, "lookup --json differs from Fixtures/lookup-halifax-town-centre.json:\n\(r.stdout)")

        // Outside the data's box grown by the radius (SPEC §7.1): no class, "No data for this location".
        for (lat, lon) in [("-33.8688", "151.2093"), ("53.9", "-1.5")] {
            let far = try JSON.parse(
                try areawatchOK(["lookup", "--tiles", tiles, "--lat", lat, "--lon", lon, "--json"]).stdout)
            #expect(
                far["class"]?.isNull == true && far["current"]?.int == 0 && far["previous"]?.int == 0
                    && far["found"]?.bool == false && far["label"]?.string == "No data for this location"
                    && far["coverage"]?.string == "none", "\(lat),\(lon): \(far)")
        }
        // Inside it, with no incident within the radius: Safe Area with counts 0.
        let (insideLat, insideLon) = ("53.625", "-1.75")
        let inside = try JSON.parse(
            try areawatchOK([
                "lookup", "--tiles", tiles, "--lat", insideLat, "--lon", insideLon,
                "--json"
            ]).stdout)
        #expect(
            inside["class"]?.string == "safe" && inside["current"]?.int == 0 && inside["found"]?.bool == false
                && inside["label"]?.string == "Safe Area" && inside["coverage"]?.string == "data", "\(inside)")
        let text = try areawatchOK(["lookup", "--tiles", tiles, "--lat", insideLat, "--lon", insideLon])
        #expect(text.stdoutLines.first == "Safe Area (safe)", "\(text)")
        let q = try JSON.parse(
            try areawatchOK([
                "query", "--db", run.store, "--lat", insideLat, "--lon", insideLon,
                "--as-of", Datasets.asOf, "--json"
            ]).stdout)
        #expect(q["current"]?.int == 0 && q["class"]?.string == "safe" && q["coverage"]?.string == "data", "\(q)")

        let missing = try areawatch(["lookup", "--tiles", run.dir + "/no-tiles", "--lat", "53.7", "--lon", "-1.8"])
        #expect(missing.status == 2 && missing.stderr.contains("no-tiles"), "\(missing)")
    }
}
