import AreaWatchTestSupport
import Foundation
import Testing

/// `report --formats LIST` and the `formats` key of the nightly config (SPEC §19) through the
/// built binary on the bundled police data: a job writes exactly the files of the formats it
/// names, and the ones it writes are the bytes the full report writes.
@Suite("report --formats", .timeLimit(.minutes(60)))
struct OutputFormatsCLITests {
    static let common = [
        "--as-of", Datasets.asOf, "--quiet", "--ehsa", "--ehsa-steps", "12",
        "--areas", Datasets.areas, "--poi", Datasets.poi
    ]

    static func report(_ tmp: TempDir, _ name: String, _ extra: [String]) throws -> [String: [UInt8]] {
        let out = tmp.sub(name)
        try areawatchOK(["report", "--input"] + Datasets.police + ["--out", out] + common + extra)
        return try readTree(out)
    }

    static func top(_ tree: [String: [UInt8]]) -> Set<String> {
        Set(tree.keys.map { String($0.split(separator: "/")[0]) }).subtracting([".areawatch-report"])
    }

    static func summaryFiles(_ tree: [String: [UInt8]]) throws -> Set<String> {
        let summary = try JSON.parse(try #require(tree["summary.json"]))
        return Set(try #require(summary["files"]).members.map(\.0))
    }

    @Test("each list writes exactly its files, byte for byte the full report's, and summary.json lists them")
    func subsets() throws {
        let tmp = try TempDir()
        let full = try Self.report(tmp, "full", [])
        #expect(
            Self.top(full) == [
                "grid.csv", "grid.csvt", "grid.prj", "areas.csv", "areas.geojson", "poi.csv",
                "timeseries.csv", "ehsa.csv", "ehsa.prj", "ehsa.geojson", "tiles", "grid.pmtiles",
                "grid.geojson", "report.html", "grid.parquet", "areas.parquet", "ehsa.parquet",
                "grid.gpkg", "summary.json"
            ])
        let cases: [(String, Set<String>)] = [
            (
                "csv,pmtiles",
                [
                    "grid.csv", "grid.csvt", "grid.prj", "areas.csv", "poi.csv", "timeseries.csv", "ehsa.csv",
                    "ehsa.prj", "grid.pmtiles"
                ]
            ),
            (" geojson , html", ["areas.geojson", "ehsa.geojson", "grid.geojson", "report.html"]),
            ("tiles", ["tiles"]),
            ("parquet", ["grid.parquet", "areas.parquet", "ehsa.parquet"]),
            ("gpkg", ["grid.gpkg"])
        ]
        for (k, (list, expected)) in cases.enumerated() {
            let tree = try Self.report(tmp, "f\(k)", ["--formats", list])
            #expect(Self.top(tree) == expected.union(["summary.json"]), "--formats \(list)")
            // summary.json lists every file written before it.
            #expect(
                try Self.summaryFiles(tree) == Set(expected.map { $0 == "tiles" ? "tiles/" : $0 }), "--formats \(list)")
            for (path, bytes) in tree where path != "summary.json" {
                #expect(full[path] == bytes, "--formats \(list): \(path) differs from the full report's")
            }
        }
    }

    @Test(
        "a list with an unknown, empty or repeated name is refused with exit 1, naming it; nothing is written",
        arguments: [
            ("shp", "does not know \"shp\""), ("csv,", "has an empty name"), ("csv,csv", "names \"csv\" twice"),
            ("", "has an empty name")
        ])
    func refused(_ list: String, _ message: String) throws {
        let tmp = try TempDir()
        let r = try areawatch(
            ["report", "--input"] + Datasets.police + ["--out", tmp.sub("out"), "--formats", list]
                + Self.common)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(message) && r.stderr.contains("--formats"), "\(r)")
        #expect(!exists(tmp.sub("out")))
    }

    @Test("the nightly config's `formats` is the option's list")
    func config() throws {
        let tmp = try TempDir()
        let inbox = tmp.sub("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        for file in Datasets.police {
            try FileManager.default.copyItem(atPath: file, toPath: inbox + "/" + (file as NSString).lastPathComponent)
        }
        let config = try tmp.file(
            "job.toml",
            """
            store = "\(tmp.sub("store.db"))"
            out = "\(tmp.sub("out"))"
            [inbox]
            folder = "\(inbox)"
            [query]
            as_of = "\(Datasets.asOf)"
            [report]
            formats = ["csv", "pmtiles"]
            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        #expect(
            Self.top(try readTree(tmp.sub("out")))
                == ["grid.csv", "grid.csvt", "grid.prj", "timeseries.csv", "grid.pmtiles", "summary.json"])
    }
}
