import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// Emerging hot spots hardened, end to end: the cube's size is counted and refused above
/// `--max-ehsa-bins` before any work (SPEC §8, §13), and with `--min-cell-count K` an incident
/// alone in its cell leaves `ehsa.csv`, `ehsa.geojson` and the report's EHSA map unchanged,
/// even next to written locations (SPEC §10).
@Suite("emerging hot spots: bounded and disclosure-safe", .timeLimit(.minutes(60)))
struct EHSAHardeningCLITests {
    static let asOf = "2024-03-31T12:00:00Z"

    /// `lat,lon` with 7 decimals.
    static func point(_ lat: Double, _ lon: Double) -> String {
        NumberFormat.fixed(lat, decimals: 7) + "," + NumberFormat.fixed(lon, decimals: 7)
    }

    /// `count` incidents at distinct points (so distinct geohash-12 cells) over 0.2° × 0.3° and
    /// the last 20 months.
    static func scattered(_ tmp: TempDir, count: Int) throws -> String {
        var rng = SplitMix64(seed: 0xB0D5)
        let end = UTCTime.epochSeconds(CivilTime(year: 2024, month: 3, day: 31, hour: 12))
        var text = "id,lat,lon,time\n"
        for k in 0..<count {
            let lat = 53.6 + rng.unit() * 0.2, lon = -2.0 + rng.unit() * 0.3
            let t = end - 60 - Int64(rng.unit() * Double(600 * 86_400))
            text += "s\(k),\(point(lat, lon)),\(UTCTime.iso8601(t))\n"
        }
        return try tmp.file("scattered.csv", "\(text)")
    }

    @Test("--ehsa-precision 12 --ehsa-steps 1200: refused with exit 1 before any work, naming the count and the option")
    func cubeAboveTheBoundIsRefused() throws {
        let tmp = try TempDir()
        // 20,000 locations × 1,200 steps = 24,000,000 bins: above the default 20,000,000.
        let input = try Self.scattered(tmp, count: 20_000)
        let started = monotonicNow()
        let r = try areawatch([
            "report", "--input", input, "--out", tmp.sub("out"), "--as-of", Self.asOf, "--ehsa",
            "--ehsa-precision", "12", "--ehsa-steps", "1200", "--tile-zooms", "none"
        ])
        let seconds = monotonicNow() - started
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderr.contains("24000000 bins") && r.stderr.contains("20000 cells of geohash-12 × 1200 months"),
            "\(r.stderr)")
        #expect(r.stderr.contains("--max-ehsa-bins 20000000"), "\(r.stderr)")
        #expect(r.stderrLines.count == 1 || r.stderrLines.last!.contains("--max-ehsa-bins"), "\(r.stderr)")
        #expect(!exists(tmp.sub("out")), "nothing written")
        #expect(seconds < 60, "refused in \(seconds) s")
    }

    @Test("the bound: exactly --max-ehsa-bins bins is accepted, one more refused")
    func exactBound() throws {
        let tmp = try TempDir()
        let input = try Self.scattered(tmp, count: 300)
        let base = [
            "report", "--input", input, "--as-of", Self.asOf, "--ehsa", "--ehsa-precision", "7",
            "--ehsa-steps", "24", "--tile-zooms", "none", "--quiet"
        ]
        try areawatchOK(base + ["--out", tmp.sub("all")])
        let locations = StrictCSV.parse(try readBytes(tmp.sub("all/ehsa.csv"))).dictionaries.count
        #expect(locations > 100)
        try areawatchOK(base + ["--out", tmp.sub("exact"), "--max-ehsa-bins", "\(locations * 24)"])
        let over = try areawatch(base + ["--out", tmp.sub("over"), "--max-ehsa-bins", "\(locations * 24 - 1)"])
        #expect(over.status == 1 && over.stderr.contains("\(locations * 24) bins"), "\(over)")
        let bad = try areawatch(base + ["--out", tmp.sub("bad"), "--max-ehsa-bins", "0"])
        #expect(bad.status == 1 && bad.stderr.contains("--max-ehsa-bins"), "\(bad)")
    }

    /// Two years of incidents in a 3 × 3 block of geohash-6 cells, more in the middle lately.
    static func block(_ tmp: TempDir, name: String, extra: String = "") throws -> String {
        var rng = SplitMix64(seed: 0xD15C)
        let end = UTCTime.epochSeconds(CivilTime(year: 2024, month: 3, day: 31, hour: 12))
        let centre = GeohashCell(lat: 53.7205, lon: -1.8605, precision: 6)
        let h = GeohashCell.latSpan(6), w = GeohashCell.lonSpan(6)
        var text = "id,lat,lon,time\n"
        var k = 0
        for dy in -1...1 {
            for dx in -1...1 {
                let b = centre.bounds
                let count = dx == 0 && dy == 0 ? 120 : 30
                for _ in 0..<count {
                    let lat = b.minLat + Double(dy) * h + (0.1 + 0.8 * rng.unit()) * h
                    let lon = b.minLon + Double(dx) * w + (0.1 + 0.8 * rng.unit()) * w
                    let recent = dx == 0 && dy == 0 && rng.unit() < 0.6
                    let t = end - 60 - Int64(rng.unit() * Double((recent ? 60 : 700) * 86_400))
                    text += "b\(k),\(point(lat, lon)),\(UTCTime.iso8601(t))\n"
                    k += 1
                }
            }
        }
        return try tmp.file(name, text + extra)
    }

    @Test("--min-cell-count 3: an incident alone in the cell next to written locations changes no EHSA output")
    func loneIncidentLeavesNoTrace() throws {
        let tmp = try TempDir()
        // The lone incident: in the cell two columns east of the block's centre, adjacent to the
        // block's east column, inside the cube's last step.
        let centre = GeohashCell(lat: 53.7205, lon: -1.8605, precision: 6).bounds
        let lone = (lat: (centre.minLat + centre.maxLat) / 2, lon: centre.minLon + 2.5 * GeohashCell.lonSpan(6))
        let without = try Self.block(tmp, name: "without.csv")
        let with = try Self.block(tmp, name: "with.csv", extra: "lone,\(lone.lat),\(lone.lon),2024-03-20T10:00:00Z\n")
        func run(_ input: String, k: Int) throws -> [String: [UInt8]] {
            let out = tmp.sub("\(URL(fileURLWithPath: input).lastPathComponent)-k\(k)")
            try areawatchOK([
                "report", "--input", input, "--out", out, "--as-of", Self.asOf, "--ehsa",
                "--min-cell-count", "\(k)", "--tile-zooms", "none", "--quiet"
            ])
            let html = try readText(out + "/report.html")
            let start = try #require(html.range(of: "<section id=\"ehsa\">"))
            let section = String(html[start.lowerBound...]).components(separatedBy: "</section>")[0]
            return [
                "ehsa.csv": try readBytes(out + "/ehsa.csv"), "ehsa.geojson": try readBytes(out + "/ehsa.geojson"),
                "report.html#ehsa": Array(section.utf8)
            ]
        }
        let k3 = (try run(without, k: 3), try run(with, k: 3))
        for name in k3.0.keys.sorted() {
            #expect(k3.0[name] == k3.1[name], "\(name) differs with the lone incident, K = 3")
        }
        // Not vacuous: without disclosure control the incident is a location of its own and moves
        // its neighbours' z-scores.
        let k1 = (try run(without, k: 1), try run(with, k: 1))
        #expect(k1.0["ehsa.csv"] != k1.1["ehsa.csv"])
        let rows = StrictCSV.parse(k1.1["ehsa.csv"]!).dictionaries
        let loneCell = Geohash.encode(lat: lone.lat, lon: lone.lon, precision: 6)
        #expect(rows.contains { $0["geohash"] == loneCell }, "the lone incident's cell is a location with K = 1")
    }
}
