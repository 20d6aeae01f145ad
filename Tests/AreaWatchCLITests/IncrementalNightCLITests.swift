import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// SPEC §20 end to end: nights of new, edited, duplicate and rejected records into one store,
/// the as-of stepping 0, 1, 29 and 366 days across 29 February (and once backwards), the radius
/// and the filters changed once each, nights without a new file, an ingest outside the nightly,
/// points of interest, areas and a breakdown (carried on by deltas, the points file changed
/// once), and an output the state does not cover asked for once. After every night the
/// nightly's report folder equals a report made from a copy of the store without the state
/// (every file byte for byte except `timings_s` in summary.json), and its stderr says whether
/// the grid was updated incrementally or recomputed, and why.
@Suite("incremental nightly (CLI)", .timeLimit(.minutes(60)))
struct IncrementalNightCLITests {
    struct Night {
        var asOf: Int64
        var radius = 500
        /// Points of interest and areas (SPEC §7.3, §7.4): "bundled" (the bundled files),
        /// "edited" (the points file with one more point, on the crossing rows), or none.
        var places: String? = nil
        /// A breakdown by category (SPEC §7.5).
        var breakdown = false
        /// Emerging hot spots (SPEC §13), which the state does not cover.
        var ehsa = false
        /// `categories` and `handled` filters (SPEC §7).
        var filtered = false
        /// The report grid: "geohash:7" or an H3 grid (SPEC §18).
        var grid = "geohash:7"
        /// Whether the night brings a new inbox file.
        var file = true
        /// "incremental" or the start of the reason for a full recompute.
        var expect: String
    }

    /// One night's file: `fresh` new incidents, `edits` earlier ones changed (time, place,
    /// handled or category), `duplicates` earlier ones sent again unchanged, every 40th row
    /// rejected (no latitude). Times spread over the three years before `asOf` and a week after.
    static func file(night: Int, fresh: Int, edits: Int, duplicates: Int, asOf: Int64, rng: inout SplitMix64)
        -> String
    {
        var text = "id,time,lat,lon,category,handled\n"
        func row(_ id: String, _ rng: inout SplitMix64, reject: Bool = false) -> String {
            let t = asOf + 7 * 86_400 - Int64(rng.next() % UInt64(3 * 366 * 86_400))
            let lat = 53.72 + (rng.unit() - 0.5) * 0.03, lon = -1.86 + (rng.unit() - 0.5) * 0.05
            let category = ["Burglary", "Robbery", "Vehicle crime"][Int(rng.next() % 3)]
            let handled = ["true", "false", ""][Int(rng.next() % 3)]
            let latText = reject ? "" : String(format: "%.6f", lat)
            return "\(id),\(Civil.iso(t)),\(latText),\(String(format: "%.6f", lon)),\(category),\(handled)\n"
        }
        for n in 0..<fresh { text += row("n\(night)-\(n)", &rng, reject: n % 40 == 39) }
        guard night > 0 else { return text }
        for n in 0..<edits { text += row("n\(Int(rng.next() % UInt64(night)))-\(n * 3 % 38)", &rng) }
        return text + (duplicates > 0 ? duplicatesOf(night: night - 1, count: duplicates) : "")
    }

    /// Rows `x-0`…`x-9` around the window bounds of the step from 2024-02-29T22:00 to
    /// 2024-03-01T22:00 (night 2 to night 3): in (old, new] of T, T − 1 year and T − 2 years, on a
    /// bound, just outside one; `edited`, the same ids with other times (in or out of the ranges),
    /// places and handled flags.
    static func crossingRows(edited: Bool) -> String {
        let times = [
            Civil.epoch(2023, 3, 1, 10, 0, 0), Civil.epoch(2022, 3, 1, 10, 0, 0), Civil.epoch(2024, 3, 1, 10, 0, 0),
            Civil.epoch(2023, 3, 1, 22, 0, 0), Civil.epoch(2023, 2, 28, 22, 0, 0), Civil.epoch(2021, 6, 1, 0, 0, 0),
            Civil.epoch(2023, 9, 1, 0, 0, 0), Civil.epoch(2024, 3, 1, 22, 0, 0), Civil.epoch(2022, 3, 1, 22, 0, 0),
            Civil.epoch(2024, 3, 5, 0, 0, 0)
        ]
        let later = [
            Civil.epoch(2020, 1, 1, 0, 0, 0), Civil.epoch(2023, 3, 1, 11, 0, 0), Civil.epoch(2023, 6, 1, 0, 0, 0),
            Civil.epoch(2022, 3, 1, 12, 0, 0), Civil.epoch(2024, 3, 1, 9, 0, 0), Civil.epoch(2023, 3, 1, 12, 0, 0),
            Civil.epoch(2024, 3, 1, 20, 0, 0), Civil.epoch(2021, 1, 1, 0, 0, 0), Civil.epoch(2023, 3, 1, 22, 0, 0),
            Civil.epoch(2022, 3, 1, 5, 0, 0)
        ]
        var text = "id,time,lat,lon,category,handled\n"
        for k in 0..<10 {
            let lat = 53.72 + 0.001 * Double(k) + (edited && k % 3 == 0 ? 0.0005 : 0)
            let handled = edited && k % 2 == 1 ? "false" : "true"
            text += "x-\(k),\(Civil.iso(edited ? later[k] : times[k])),\(lat),-1.86,Burglary,\(handled)\n"
        }
        return text
    }

    /// The first `count` rows of an earlier night's file, sent again unchanged.
    nonisolated(unsafe) static var sent: [Int: [String]] = [:]
    static func duplicatesOf(night: Int, count: Int) -> String {
        (sent[night] ?? []).prefix(count).joined()
    }

    static let nights: [Night] = {
        let base = Civil.epoch(2023, 2, 28, 22, 0, 0)
        let day: Int64 = 86_400
        return [
            Night(asOf: base, expect: "full recompute: no grid count state"),
            Night(asOf: base + 366 * day, expect: "incremental"), // 2024-02-29
            Night(asOf: base + 366 * day, expect: "incremental"), // step 0
            Night(asOf: base + 367 * day, expect: "incremental"), // 2024-03-01
            Night(asOf: base + 396 * day, expect: "incremental"), // +29
            Night(asOf: base + 395 * day, expect: "full recompute: the as-of moved backwards"),
            Night(asOf: base + 396 * day, radius: 800, expect: "full recompute: the query settings differ"),
            Night(asOf: base + 397 * day, radius: 800, expect: "incremental"),
            // Points of interest and areas bind the state; from the next night they are deltas too.
            Night(
                asOf: base + 397 * day, radius: 800, places: "bundled",
                expect: "full recompute: the points of interest differ from the grid count state's (it counts none)"),
            Night(asOf: base + 398 * day, radius: 800, places: "bundled", expect: "incremental"),
            Night(asOf: base + 764 * day, radius: 800, places: "bundled", expect: "incremental"), // +366, 2025-04-01
            // After an ingest outside the nightly.
            Night(
                asOf: base + 765 * day, radius: 800, places: "bundled",
                expect: "full recompute: the store is not the one"),
            Night(asOf: base + 765 * day, radius: 800, places: "bundled", expect: "incremental"),
            // Nights without a new file: the as-of alone, then nothing at all.
            Night(asOf: base + 766 * day, radius: 800, places: "bundled", file: false, expect: "incremental: "),
            Night(
                asOf: base + 766 * day, radius: 800, places: "bundled", file: false,
                expect: "incremental: 0 incidents changed, 0 cells"),
            // Filters bind the state too; with them the delta skips what they leave out.
            Night(
                asOf: base + 767 * day, radius: 800, places: "bundled", filtered: true,
                expect: "full recompute: the query settings"),
            Night(asOf: base + 796 * day, radius: 800, places: "bundled", filtered: true, expect: "incremental"),
            // Another grid system binds the state too; H3 nights carry on by deltas as well.
            Night(
                asOf: base + 797 * day, places: "bundled", grid: "h3:9", expect: "full recompute: the query settings"),
            Night(asOf: base + 798 * day, places: "bundled", grid: "h3:9", expect: "incremental"),
            // The points file edited: recomputed; then the edited file carries on.
            Night(
                asOf: base + 799 * day, places: "edited", grid: "h3:9",
                expect: "full recompute: the points of interest differ from the grid count state's (the file changed)"),
            Night(asOf: base + 800 * day, places: "edited", grid: "h3:9", expect: "incremental"),
            // Without the places: recomputed, said so.
            Night(
                asOf: base + 801 * day, grid: "h3:9",
                expect: "full recompute: the points of interest differ from the grid count state's (the report asks"),
            // A breakdown by category binds the state too, then carries on by deltas.
            Night(
                asOf: base + 802 * day, breakdown: true, grid: "h3:9",
                expect: "full recompute: the breakdown differs from the grid count state's (it counts none)"),
            Night(asOf: base + 803 * day, breakdown: true, grid: "h3:9", expect: "incremental"),
            // An output the state does not cover: recomputed, and no state saved, so the next
            // night's store has moved on from the last one saved.
            Night(
                asOf: base + 804 * day, breakdown: true, ehsa: true, grid: "h3:9",
                expect: "full recompute: the report asks for emerging hot spots"),
            Night(
                asOf: base + 805 * day, breakdown: true, grid: "h3:9",
                expect: "full recompute: the store is not the one")
        ]
    }()

    /// `editedPOI`: where the edited points file is (the report names the file it read).
    static func config(_ night: Night, editedPOI: String = "") -> String {
        """
        store = "s.db"
        out = "out"
        incremental = true
        [inbox]
        folder = "inbox"
        include = ["*.csv"]
        [query]
        as_of = "\(Civil.iso(night.asOf))"
        radius = \(night.radius)
        \(night.filtered ? "categories = [\"Burglary\", \"Robbery\"]\nhandled = true" : "")
        [report]
        grid = "\(night.grid)"
        tile_zooms = "12-13"
        \(night.places != nil ? "areas = \"\(Datasets.areas)\"\narea_id = \"name\"\npoi = \"\(night.places == "edited" ? editedPOI : Datasets.poi)\"" : "")
        \(night.breakdown ? "group_by = \"category\"" : "")
        \(night.ehsa ? "ehsa = true" : "")
        """
    }

    /// The bundled points file with one more point, on the crossing rows.
    static func editedPOI() throws -> String {
        try String(contentsOfFile: Datasets.poi, encoding: .utf8) + "Crossing rows,53.7245,-1.86\n"
    }

    @Test("every night's report equals a full recompute; stderr says incremental or why not")
    func nightsMatchFullRecompute() throws {
        let tmp = try TempDir()
        let inbox = try tmp.folder("inbox")
        _ = try tmp.file("poi-edited.csv", try Self.editedPOI())
        var rng = SplitMix64(seed: 33)
        for (k, night) in Self.nights.enumerated() {
            let text = Self.file(
                night: k, fresh: k == 0 ? 1500 : 120, edits: k == 0 ? 0 : 25, duplicates: k == 0 ? 0 : 15,
                asOf: night.asOf, rng: &rng)
            Self.sent[k] = text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst().map { $0 + "\n" }
            if night.file { _ = try tmp.file("inbox/night-\(k).csv", text) }
            if k == 2 || k == 3 {
                // Rows on and beside the bounds night 3's one-day step moves, then edited by night 3:
                // out of the ranges, into them, within them (the content before the night crosses).
                _ = try tmp.file("inbox/night-\(k)x.csv", Self.crossingRows(edited: k == 3))
            }
            if k == 3 {
                // A second file editing rows the first file of the same night added.
                let edits = (0..<20).map { n in
                    "n3-\(n),\(Civil.iso(night.asOf - Int64(n) * 86_400)),53.7\(n % 10),-1.85,Robbery,true\n"
                }
                _ = try tmp.file("inbox/night-3b.csv", "id,time,lat,lon,category,handled\n" + edits.joined())
            }
            _ = try tmp.file("job.toml", Self.config(night, editedPOI: tmp.sub("poi-edited.csv")))
            // Run from the folder: summary.json names the store as the config gives it ("s.db").
            let run = try areawatchOK(["run", "--config", "job.toml"], cwd: tmp.path)
            let lines = run.stderrLines.filter { $0.contains("incremental:") || $0.contains("full recompute:") }
            #expect(lines.count == 1 && lines[0].contains(night.expect), "night \(k): \(lines)")
            try Self.checkAgainstFullRecompute(tmp, night: night, index: k)
            if k == 10 {
                // Written outside the nightly: the state's stamp no longer matches the store.
                // (A file the store's log already holds would be skipped: one new row makes it new.)
                let outside = text + "outside-1,\(Civil.iso(night.asOf - 3_600)),53.721,-1.861,Robbery,true\n"
                try areawatchOK(["ingest", "--db", tmp.sub("s.db"), try tmp.file("outside.csv", outside)])
            }
        }
        #expect(exists(inbox))
    }

    @Test(
        "incremental is the default; incremental = false recomputes: no state, no line about it; a non-boolean is refused"
    )
    func optOut() throws {
        let tmp = try TempDir()
        _ = try tmp.folder("inbox")
        var rng = SplitMix64(seed: 34)
        let night = Self.nights[0]
        for k in 0..<2 {
            let text = Self.file(
                night: k, fresh: 200, edits: k == 0 ? 0 : 10, duplicates: 0, asOf: night.asOf, rng: &rng)
            _ = try tmp.file("inbox/night-\(k).csv", text)
            _ = try tmp.file(
                "job.toml",
                Self.config(night).replacingOccurrences(of: "incremental = true", with: "incremental = false"))
            let run = try areawatchOK(["run", "--config", "job.toml"], cwd: tmp.path)
            #expect(!run.stderrLines.contains { $0.contains("incremental:") || $0.contains("full recompute:") })
            #expect(!exists(tmp.sub("s.db.gridstate")), "night \(k)")
        }
        // Without the key: the first night builds the state (a recompute, said), the next uses it.
        _ = try tmp.file("job.toml", Self.config(night).replacingOccurrences(of: "incremental = true\n", with: ""))
        for (k, expected) in ["full recompute: no grid count state", "incremental: "].enumerated() {
            if k == 1 {
                let text = Self.file(night: 2, fresh: 50, edits: 5, duplicates: 0, asOf: night.asOf, rng: &rng)
                _ = try tmp.file("inbox/night-2.csv", text)
            }
            let run = try areawatchOK(["run", "--config", "job.toml"], cwd: tmp.path)
            let said = run.stderrLines.filter { $0.contains("incremental:") || $0.contains("full recompute:") }
            #expect(said.count == 1 && said[0].contains(expected), "default night \(k): \(said)")
            #expect(exists(tmp.sub("s.db.gridstate")), "default night \(k)")
        }
        _ = try tmp.file(
            "job.toml", Self.config(night).replacingOccurrences(of: "incremental = true", with: "incremental = \"yes\"")
        )
        let refused = try areawatch(["run", "--config", "job.toml"], cwd: tmp.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("incremental must be true or false"), "\(refused.stderr)")
    }

    static func checkAgainstFullRecompute(_ tmp: TempDir, night: Night, index k: Int) throws {
        // The copy has the store's name (summary.json names the store as given), in its own folder.
        let folder = try tmp.folder("full-\(k)")
        try copyItem(tmp.sub("s.db"), folder + "/s.db")
        if exists(tmp.sub("s.db-wal")) { try copyItem(tmp.sub("s.db-wal"), folder + "/s.db-wal") }
        var arguments = [
            "report", "--db", "s.db", "--out", "out", "--as-of", Civil.iso(night.asOf), "--grid", night.grid,
            "--tile-zooms", "12-13", "--radius", "\(night.radius)", "--quiet"
        ]
        if night.places != nil {
            let poi = night.places == "edited" ? tmp.sub("poi-edited.csv") : Datasets.poi
            arguments += ["--areas", Datasets.areas, "--area-id", "name", "--poi", poi]
        }
        if night.breakdown { arguments += ["--group-by", "category"] }
        if night.ehsa { arguments += ["--ehsa"] }
        if night.filtered { arguments += ["--category", "Burglary", "--category", "Robbery", "--handled", "true"] }
        try areawatchOK(arguments, cwd: folder)
        #expect(!exists(folder + "/s.db.gridstate"))
        let differences = reportDifferences(try readTree(tmp.sub("out")), try readTree(folder + "/out"))
        #expect(differences.isEmpty, "night \(k): \(differences)")
        removeItem(folder)
    }
}
