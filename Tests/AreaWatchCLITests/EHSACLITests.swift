import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// `report --ehsa` and `[report] ehsa = true` end to end (SPEC §13): a neighbourhood where
/// incidents start in the last three months, over two years of steady background.
@Suite("emerging hot spots end to end", .timeLimit(.minutes(60)))
struct EHSACLITests {
    static let asOf = "2024-03-31T12:00:00Z"
    /// Where the new cluster is, well inside its geohash-6 cell.
    static let cluster = (lat: 53.7205, lon: -1.8605)

    /// 2,000 background incidents spread over a 0.12° × 0.2° box and 24 months, and 240 in one
    /// spot during the last three months.
    static func input(_ tmp: TempDir) throws -> String {
        var rng = SplitMix64(seed: 0xE45A_2024)
        let end = UTCTime.epochSeconds(CivilTime(year: 2024, month: 3, day: 31, hour: 12))
        let month = Int64(30 * 86_400)
        var text = "id,lat,lon,time,category\n"
        for k in 0..<2_000 {
            let lat = 53.66 + rng.unit() * 0.12, lon = -1.96 + rng.unit() * 0.2
            let t = end - 3600 - Int64(rng.unit() * Double(23 * month))
            text +=
                "b\(k),\(NumberFormat.fixed(lat, decimals: 6)),\(NumberFormat.fixed(lon, decimals: 6)),\(UTCTime.iso8601(t)),Burglary\n"
        }
        for k in 0..<240 {
            let lat = cluster.lat + (rng.unit() - 0.5) * 0.002, lon = cluster.lon + (rng.unit() - 0.5) * 0.004
            let t = end - 3600 - Int64(rng.unit() * Double(3 * month))
            text +=
                "c\(k),\(NumberFormat.fixed(lat, decimals: 6)),\(NumberFormat.fixed(lon, decimals: 6)),\(UTCTime.iso8601(t)),Burglary\n"
        }
        return try tmp.file("incidents.csv", text)
    }

    @Test("report --ehsa labels a cluster of the last months a hot spot; csv, geojson, html and summary agree")
    func reportFlag() throws {
        let tmp = try TempDir()
        let input = try Self.input(tmp)
        try areawatchOK([
            "report", "--input", input, "--out", tmp.sub("out"), "--as-of", Self.asOf, "--tile-zooms", "none",
            "--ehsa", "--quiet"
        ])
        let csv = StrictCSV.parse(try readBytes(tmp.sub("out/ehsa.csv")))
        #expect(csv.violations.isEmpty, "\(csv.violations)")
        #expect(
            Array(csv.header.prefix(11)) == [
                "geohash", "lat", "lon", "label", "trend_z", "trend_p", "tau", "hot_steps",
                "cold_steps", "z_last", "q_last"
            ])
        #expect(
            csv.header.count == 11 + 24 + 1 && csv.header[11] == "z01" && csv.header[34] == "z24"
                && csv.header.last == "wkt")
        let rows = csv.dictionaries
        #expect(rows.map { $0["geohash"]! } == rows.map { $0["geohash"]! }.sorted())
        let clusterCell = Geohash.encode(lat: Self.cluster.lat, lon: Self.cluster.lon, precision: 6)
        let row = try #require(rows.first { $0["geohash"] == clusterCell }, "no row for \(clusterCell)")
        let label = try #require(row["label"])
        #expect(["new hot spot", "consecutive hot spot"].contains(label), "\(row)")
        #expect(Double(row["z_last"]!)! > 3 && Double(row["q_last"]!)! <= 0.05)

        let geojson = try JSON.parse(try readBytes(tmp.sub("out/ehsa.geojson")))
        #expect(geojson["type"]?.string == "FeatureCollection")
        guard case .array(let features)? = geojson["features"] else {
            Issue.record("no features")
            return
        }
        #expect(features.count == rows.count)
        let feature = try #require(features.first { $0["properties"]?["geohash"]?.string == clusterCell })
        #expect(feature["properties"]?["label"]?.string == label && feature["geometry"]?["type"]?.string == "Polygon")

        let html = try readText(tmp.sub("out/report.html"))
        #expect(html.contains("<section id=\"ehsa\">") && html.contains("<a href=\"#ehsa\">Emerging hot spots</a>"))
        #expect(
            html.range(of: "id=\"ehsa\"")!.lowerBound < html.range(of: "id=\"heatmap\"")!.lowerBound, "near the top")

        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(summary["ehsa"]?["steps"]?.int == 24 && summary["ehsa"]?["precision"]?.int == 6)
        #expect(summary["ehsa"]?["locations"]?.int == rows.count)
        #expect(summary["ehsa"]?["labels"]?[label]?.int ?? 0 >= 1)
        #expect(summary["files"]?["ehsa.csv"]?.int ?? 0 > 0 && summary["timings_s"]?["ehsa"] != nil)
    }

    @Test("[report] ehsa = true in the config does what --ehsa does; bad values are usage errors")
    func configAndUsage() throws {
        let tmp = try TempDir()
        let input = try Self.input(tmp)
        _ = try tmp.folder("inbox")
        try copyItem(input, tmp.sub("inbox/incidents.csv"))
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [query]
            as_of = "\(Self.asOf)"
            [report]
            tile_zooms = "none"
            ehsa = true
            ehsa_steps = 12
            ehsa_precision = 7
            ehsa_alpha = 0.01
            min_cell_count = 3
            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(
            summary["ehsa"]?["steps"]?.int == 12 && summary["ehsa"]?["precision"]?.int == 7
                && summary["ehsa"]?["alpha"]?.double == 0.01, "\(summary)")
        let csv = StrictCSV.parse(try readBytes(tmp.sub("out/ehsa.csv")))
        #expect(csv.header.last == "wkt" && csv.header[csv.header.count - 2] == "z12")
        #expect(csv.records.allSatisfy { $0.fields[0].count == 7 })
        // A cell with fewer than 3 incidents is no location at all (SPEC §10, §13): every location
        // computed is written.
        let written = try #require(summary["ehsa"]?["written"]?.int)
        #expect(csv.records.count == written && written == summary["ehsa"]?["locations"]?.int, "\(summary)")

        for bad in [["--ehsa-steps", "9"], ["--ehsa-precision", "13"], ["--ehsa-alpha", "1"]] {
            let r = try areawatch(["report", "--input", input, "--out", tmp.sub("bad"), "--ehsa"] + bad)
            #expect(r.status == 1 && r.stderr.contains("--ehsa-"), "\(r)")
        }
    }
}
