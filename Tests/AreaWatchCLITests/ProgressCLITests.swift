import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// Progress that tells the truth (issue 28, item 6), through the built binary with every update
/// shown (`AREAWATCH_PROGRESS=always`): input bars follow the records parsed and end on the real
/// total, the store-load bar counts rows against the store's total and ends on it, and the long
/// steps without a bar (index builds, commit) show as phases with their durations.
@Suite("Progress tells the truth", .serialized)
struct ProgressCLITests {
    static let always = ["AREAWATCH_PROGRESS": "always"]

    struct BarLine: Equatable {
        var percent: Int
        var count: Int
    }

    /// The lines of the bar `label` ("ingest a.csv"): `areawatch: LABEL: P% N UNIT`.
    static func bar(_ label: String, unit: String, in result: CommandResult) -> [BarLine] {
        let prefix = "areawatch: \(label): "
        return result.stderrLines.compactMap { line -> BarLine? in
            guard line.hasPrefix(prefix), line.hasSuffix(" " + unit) else { return nil }
            let parts = line.dropFirst(prefix.count).dropLast(unit.count + 1).split(separator: "% ")
            guard parts.count == 2, let percent = Int(parts[0]),
                let count = Int(parts[1].replacingOccurrences(of: ",", with: ""))
            else { return nil }
            return BarLine(percent: percent, count: count)
        }
    }

    /// The rules every bar keeps: lines on the way, never backwards, never past the total, a
    /// percent that matches the count (rows of similar size), the last line the real total.
    static func expectTruthful(
        _ lines: [BarLine], total: Int, _ what: String, _ result: CommandResult,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            lines.count >= 2 && lines.dropLast().contains { $0.percent < 100 },
            "\(what): no line before the end\n\(result)", sourceLocation: sourceLocation)
        #expect(
            zip(lines, lines.dropFirst()).allSatisfy { $0.percent <= $1.percent && $0.count <= $1.count },
            "\(what): went backwards: \(lines)", sourceLocation: sourceLocation)
        #expect(
            lines.allSatisfy { $0.count <= total }, "\(what): past \(total): \(lines)",
            sourceLocation: sourceLocation)
        #expect(
            lines.dropLast().allSatisfy { $0.percent < 100 }, "\(what): 100% early: \(lines)",
            sourceLocation: sourceLocation)
        let ahead = lines.filter { abs(Double($0.percent) - 100 * Double($0.count) / Double(total)) > 5 }
        #expect(ahead.isEmpty, "\(what): percent and count disagree: \(ahead)", sourceLocation: sourceLocation)
        #expect(
            lines.last == BarLine(percent: 100, count: total), "\(what): last \(String(describing: lines.last))",
            sourceLocation: sourceLocation)
        let text = "\(what): 100% \(NumberFormat.grouped(total))"
        #expect(result.stderrLines.contains { $0.contains(text) }, "\(text)\n\(result)", sourceLocation: sourceLocation)
    }

    /// An NDJSON file of `rows` incidents, each accepted (read by the streaming reader).
    static func ndjson(rows: Int) -> String {
        var random = SplitMix64(seed: 0x9_2803)
        var text = ""
        for n in 0..<rows {
            let lat = 53.72 + (random.unit() - 0.5) * 0.04, lon = -1.86 + (random.unit() - 0.5) * 0.06
            text +=
                "{\"id\": \"j\(n)\", \"time\": \"2018-0\(1 + n % 7)-1\(n % 10)T08:00:00Z\", "
                + "\"lat\": \(fixed(lat, 6)), \"lon\": \(fixed(lon, 6)), \"category\": \"Robbery\"}\n"
        }
        return text
    }

    /// Index of the first stderr line containing `text`, or nil.
    static func line(_ text: String, in result: CommandResult) -> Int? {
        result.stderrLines.firstIndex { $0.contains(text) }
    }

    @Test("ingest and report: bars on the real totals, phases with their durations")
    func ingestAndReport() throws {
        let tmp = try TempDir()
        // Many 1 MiB blocks of the parallel CSV parse; more than 65,536 NDJSON records.
        let csv = try #require(GeneratedData.write([("big", 120_000)], into: tmp.sub("in"), seed: 28).first)
        let json = try tmp.file("more.ndjson", Self.ndjson(rows: 70_000))
        let db = tmp.sub("store.db")
        let ingest = try areawatch(["ingest", csv.path, json, "--db", db], timeout: 600, environment: Self.always)
        try #require(ingest.status == 0, "\(ingest)")
        Self.expectTruthful(
            Self.bar("ingest big.csv", unit: "records", in: ingest), total: csv.file.rows,
            "ingest big.csv", ingest)
        Self.expectTruthful(
            Self.bar("ingest more.ndjson", unit: "records", in: ingest), total: 70_000,
            "ingest more.ndjson", ingest)
        // The first file is a bulk load into an empty store: the index builds, then the commit,
        // each when it starts and with its duration, after the input's last line.
        let inputEnd = try #require(Self.line("ingest big.csv: 100%", in: ingest))
        var previous = inputEnd
        for phase in [
            "big.csv: building the geohash and time indexes", "big.csv: building the spatial index",
            "big.csv: committing"
        ] {
            let start = try #require(Self.line("areawatch: \(phase) …", in: ingest), "\(phase)\n\(ingest)")
            let end = try #require(Self.line("areawatch: \(phase): ", in: ingest), "\(phase)\n\(ingest)")
            #expect(previous < start && start < end, "\(phase) out of order\n\(ingest)")
            #expect(ingest.stderrLines[end].hasSuffix(" s"), "\(ingest.stderrLines[end])")
            previous = end
        }
        #expect(Self.line("more.ndjson: committing: ", in: ingest) != nil, "\(ingest)")

        // The store read row by row (no column snapshot): the load bar against the store's rows.
        let stored = csv.file.accepted + 70_000
        removeItem(db + ".columns")
        let report = try areawatch(
            [
                "report", "--db", db, "--out", tmp.sub("out"), "--as-of", Datasets.asOf,
                "--precision", "6", "--tile-zooms", "none"
            ], timeout: 600, environment: Self.always)
        try #require(report.status == 0, "\(report)")
        Self.expectTruthful(
            Self.bar("load store.db", unit: "incidents", in: report), total: stored,
            "load store.db", report)

        // The ad-hoc path reads the files with the same bars.
        let adHoc = try areawatch(
            [
                "report", "--input", csv.path, json, "--out", tmp.sub("adhoc"),
                "--as-of", Datasets.asOf, "--precision", "6", "--tile-zooms", "none"
            ],
            timeout: 600, environment: Self.always)
        try #require(adHoc.status == 0, "\(adHoc)")
        Self.expectTruthful(
            Self.bar("read big.csv", unit: "records", in: adHoc), total: csv.file.rows,
            "read big.csv", adHoc)
        Self.expectTruthful(
            Self.bar("read more.ndjson", unit: "records", in: adHoc), total: 70_000,
            "read more.ndjson", adHoc)
    }

    @Test("--quiet and AREAWATCH_PROGRESS=never show no bar; a short run without a terminal shows none")
    func quietAndNever() throws {
        let tmp = try TempDir()
        let csv = try #require(GeneratedData.write([("small", 3_000)], into: tmp.sub("in"), seed: 29).first)
        let quiet = try areawatch(["ingest", csv.path, "--db", tmp.sub("a.db"), "--quiet"], environment: Self.always)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet)")
        let never = try areawatch(
            ["ingest", csv.path, "--db", tmp.sub("b.db")],
            environment: ["AREAWATCH_PROGRESS": "never"])
        #expect(never.status == 0 && Self.bar("ingest small.csv", unit: "records", in: never).isEmpty, "\(never)")
        #expect(Self.line("small.csv: committing: ", in: never) != nil, "phases are log lines\n\(never)")
        let auto = try areawatch(
            ["ingest", csv.path, "--db", tmp.sub("c.db")],
            environment: ["AREAWATCH_PROGRESS": "auto"])
        #expect(auto.status == 0 && Self.bar("ingest small.csv", unit: "records", in: auto).isEmpty, "\(auto)")
        let odd = try areawatch(
            ["ingest", csv.path, "--db", tmp.sub("d.db")],
            environment: ["AREAWATCH_PROGRESS": "yes"])
        #expect(odd.status == 0 && odd.stderrLines.first?.contains("warning: AREAWATCH_PROGRESS=yes") == true, "\(odd)")
    }
}
