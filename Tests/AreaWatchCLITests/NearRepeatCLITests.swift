import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// `report --near-repeat` (SPEC §16) through the built binary, on a seeded city block where some
/// incidents repeat near an earlier one within days: the table's observed pairs equal a brute-force
/// count over every pair of the input, the permutations are reproducible by seed, the strong
/// near-repeat cell is significant, and the pair bound refuses before anything is written.
@Suite("near-repeat (Knox test)", .timeLimit(.minutes(60)))
struct NearRepeatCLITests {
    struct Incident {
        var time: Int64
        var lat: Double
        var lon: Double
    }

    static let asOf = Civil.epoch(2018, 7, 31, 23, 59, 59)
    static let edges: [Double] = [100, 200, 300, 400]
    static let days: Int64 = 14, timeBands: Int64 = 4

    /// 260 incidents of the current window in a ~1.2 km block (60 of them within 60 m and 3 days of
    /// an earlier one, 10 at an earlier one's exact place), and 40 of the previous window.
    static func incidents(seed: UInt64) -> (current: [Incident], csv: String) {
        var rng = SplitMix64(seed: seed)
        var current: [Incident] = []
        for n in 0..<260 {
            if n >= 20 && n % 4 == 0 {
                let base = current[Int(rng.next() % UInt64(current.count))]
                let dt = Int64(rng.next() % (3 * 86_400))
                let same = n % 24 == 0
                let lat = same ? base.lat : base.lat + (rng.unit() - 0.5) * 0.0008
                let lon = same ? base.lon : base.lon + (rng.unit() - 0.5) * 0.0012
                current.append(Incident(time: min(asOf, base.time + dt), lat: lat, lon: lon))
            } else {
                current.append(
                    Incident(
                        time: asOf - Int64(rng.next() % (364 * 86_400)),
                        lat: 53.72 + (rng.unit() - 0.5) * 0.011, lon: -1.86 + (rng.unit() - 0.5) * 0.018))
            }
        }
        var csv = "id,time,lat,lon,category\n"
        for (n, i) in current.enumerated() {
            csv +=
                "c\(n),\(Civil.iso(i.time)),\(String(format: "%.6f", i.lat)),\(String(format: "%.6f", i.lon)),Burglary\n"
        }
        for n in 0..<40 {
            let t = asOf - 366 * 86_400 - Int64(rng.next() % (300 * 86_400))
            csv +=
                "p\(n),\(Civil.iso(t)),\(String(format: "%.6f", 53.72 + (rng.unit() - 0.5) * 0.011)),"
                + "\(String(format: "%.6f", -1.86 + (rng.unit() - 0.5) * 0.018)),Burglary\n"
        }
        // The incidents as the engine reads them: coordinates at the file's six decimals.
        let read = current.map {
            Incident(time: $0.time, lat: (($0.lat * 1e6).rounded()) / 1e6, lon: (($0.lon * 1e6).rounded()) / 1e6)
        }
        return (read, csv)
    }

    /// SPEC §7's haversine distance in metres.
    static func distance(_ a: Incident, _ b: Incident) -> Double {
        let r = Double.pi / 180
        let h =
            pow(sin((b.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(b.lat * r)
            * pow(sin((b.lon - a.lon) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// Observed pairs per (distance band, time band), distance band first, and the spatial pairs.
    static func bruteForce(_ xs: [Incident]) -> (cells: [Int], spatialPairs: Int) {
        var cells = [Int](repeating: 0, count: (edges.count + 1) * Int(timeBands))
        var spatial = 0
        let w = days * 86_400
        for i in 0..<xs.count {
            for j in (i + 1)..<xs.count {
                let d = distance(xs[i], xs[j])
                guard d <= edges.last! else { continue }
                spatial += 1
                let s = d == 0 ? 0 : 1 + edges.firstIndex { d <= $0 }!
                let dt = abs(xs[i].time - xs[j].time)
                guard dt <= w * timeBands else { continue }
                let k = dt == 0 ? 1 : Int((dt + w - 1) / w)
                cells[s * Int(timeBands) + k - 1] += 1
            }
        }
        return (cells, spatial)
    }

    static func rows(_ csv: String) -> [[String]] {
        csv.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test(
        "nearrepeat.csv: observed pairs equal a brute-force count, reproducible by seed, the near-repeat cell significant"
    )
    func tableAgainstBruteForce() throws {
        let tmp = try TempDir()
        let (current, csv) = Self.incidents(seed: 0x4E52)
        let input = try tmp.file("city.csv", csv)
        func run(_ out: String, seed: String) throws -> (csv: String, summary: [String: Any], html: String) {
            try areawatchOK([
                "report", "--input", input, "--as-of", Datasets.asOf, "--precision", "6", "--tile-zooms", "none",
                "--near-repeat", "--nr-seed", seed, "--out", tmp.sub(out), "--quiet"
            ])
            let summary = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: tmp.sub(out + "/summary.json"))))
            return (
                try readText(tmp.sub(out + "/nearrepeat.csv")), try #require(summary as? [String: Any]),
                try readText(tmp.sub(out + "/report.html"))
            )
        }
        let first = try run("a", seed: "1")
        #expect(
            first.csv.hasPrefix(
                "d_from_m,d_to_m,t_from_days,t_to_days,observed,expected,knox_ratio,p_value,significant\n"))
        let rows = Self.rows(first.csv)
        #expect(rows.count == 20, "\(first.csv)")
        let (brute, spatialPairs) = Self.bruteForce(current)
        #expect(rows.map { Int($0[4]) } == brute.map { Optional($0) }, "\(first.csv)\nbrute force: \(brute)")
        // Band labels: same location 0,0, then (0,100], (100,200] …; days (0,14], (14,28] …
        #expect(
            rows[0][0...3] == ["0", "0", "0", "14"] && rows[5][0...3] == ["0", "100", "14", "28"]
                && rows[19][0...3] == ["300", "400", "42", "56"], "\(rows)")
        for r in rows {
            let p = try #require(Double(r[7])), observed = try #require(Double(r[4])),
                expected = try #require(Double(r[5]))
            #expect(abs(p * 100 - (p * 100).rounded()) < 1e-9 && p > 0 && p <= 1, "p-value not (1 + k) / 100: \(r)")
            #expect(r[6] == (expected == 0 ? "" : NumberFormat.compact(observed / expected)), "\(r)")
            #expect(r[8] == (p <= 0.05 && expected > 0 && observed / expected > 1 ? "true" : "false"), "\(r)")
        }
        // Up to 60 m and 3 days apart: the (0, 100] m × 0–14 days cell stands out.
        #expect(rows[4][8] == "true", "\(rows[4])")
        let summary = try #require(first.summary["near_repeat"] as? [String: Any])
        #expect(summary["incidents"] as? Int == current.count && summary["pairs"] as? Int == spatialPairs, "\(summary)")
        #expect(summary["seed"] as? String == "1" && summary["permutations"] as? Int == 99, "\(summary)")
        #expect(first.html.contains("<section id=\"near-repeat\">"), "no near-repeat section")
        #expect(first.html.contains("<table class=\"near-repeat\">"), "no Knox table on the page")

        let again = try run("b", seed: "1")
        #expect(again.csv == first.csv, "the same seed gave another table")
        let other = try run("c", seed: "18446744073709551615")
        #expect(Self.rows(other.csv).map { $0[4] } == rows.map { $0[4] }, "the seed changed the observed pairs")
    }

    @Test("month-only times (the police sample): warned on stderr, the page says why instead of a table, the csv kept")
    func monthOnlyTimes() throws {
        let tmp = try TempDir()
        let out = tmp.sub("police")
        let result = try areawatchOK(
            ["report"] + Datasets.police.flatMap { ["--input", $0] }
                + [
                    "--as-of", Datasets.asOf, "--precision", "6", "--tile-zooms", "none",
                    "--near-repeat", "--out", out
                ])
        #expect(result.stderr.contains("near-repeat: every time is the first of a month"), "\(result.stderr)")
        let html = try readText(out + "/report.html")
        #expect(html.contains("<section id=\"near-repeat\">") && html.contains("gives each incident's month only"))
        #expect(!html.contains("<table class=\"near-repeat\">"), "a Knox table of month-rounded times was drawn")
        let rows = Self.rows(try readText(out + "/nearrepeat.csv"))
        #expect(rows.count == 20 && rows.reduce(0) { $0 + (Int($1[4]) ?? 0) } > 0, "\(rows)")
    }

    @Test(
        "an independent implementation (numpy, SPEC §16's generator in Python) writes the same nearrepeat.csv, byte for byte"
    )
    func sameAsThePeer() throws {
        let probe = try runTool("/usr/bin/env", ["python3", "-c", "import numpy, scipy"])
        guard probe.status == 0 else {
            print("skipped: to run it, install numpy and scipy for python3 (make bench-deps installs them)")
            return
        }
        let tmp = try TempDir()
        let (current, csv) = Self.incidents(seed: 0x9E37)
        let input = try tmp.file("city.csv", csv)
        // The peer reads the current window's incidents alone (time, lat, lon).
        var window = "time,lat,lon\n"
        for i in current {
            window += "\(i.time),\(String(format: "%.6f", i.lat)),\(String(format: "%.6f", i.lon))\n"
        }
        let peerInput = try tmp.file("window.csv", window)
        try areawatchOK([
            "report", "--input", input, "--as-of", Datasets.asOf, "--precision", "6", "--tile-zooms", "none",
            "--near-repeat", "--nr-permutations", "49", "--nr-seed", "12345", "--out", tmp.sub("out"), "--quiet"
        ])
        let peer = try runTool(
            "/usr/bin/env",
            [
                "python3", packageRoot + "/Benchmarks/peers/nearrepeat_peer.py", peerInput,
                "--permutations", "49", "--seed", "12345", "--exact-rng",
                "--out", tmp.sub("peer.csv")
            ], timeout: 300)
        #expect(peer.status == 0, "\(peer)")
        let ours = try readText(tmp.sub("out/nearrepeat.csv")), theirs = try readText(tmp.sub("peer.csv"))
        #expect(ours == theirs, "areawatch:\n\(ours)\npeer:\n\(theirs)")
    }

    @Test("the pair bound refuses before anything is written; out-of-range options are usage errors")
    func boundsAndOptions() throws {
        let tmp = try TempDir()
        let input = try tmp.file("city.csv", Self.incidents(seed: 7).csv)
        let base = [
            "report", "--input", input, "--as-of", Datasets.asOf, "--tile-zooms", "none", "--near-repeat",
            "--out", tmp.sub("out")
        ]
        let refused = try areawatch(base + ["--nr-max-pairs", "5"])
        #expect(refused.status == 1 && refused.stderr.contains("more than --nr-max-pairs 5"), "\(refused)")
        #expect(!exists(tmp.sub("out")), "a refused run wrote its folder")
        for bad in [
            ["--nr-distances", "200,100"], ["--nr-distances", "0,100"], ["--nr-distances", "100,6000"],
            ["--nr-days", "0"], ["--nr-days", "400"], ["--nr-time-bands", "53"],
            ["--nr-days", "100", "--nr-time-bands", "8"],
            ["--nr-permutations", "8"], ["--nr-permutations", "10000"], ["--nr-alpha", "1"], ["--nr-seed", "-1"]
        ] {
            let r = try areawatch(base + bad)
            #expect(r.status == 1 && r.stderr.contains("--nr-"), "\(bad): \(r)")
        }
        #expect(!exists(tmp.sub("out")))
    }
}
