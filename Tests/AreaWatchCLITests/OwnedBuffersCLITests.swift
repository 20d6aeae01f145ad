import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// The same incidents in every encoding whose reading goes through the owned buffers and tables
/// (the parallel CSV blocks and their parsed incidents, the CSV scanner's fields and unescape
/// arena, an oversized record skipped in the read window, gzip's input buffer, the DATE+TIME
/// joiner, the JSON tape's nodes and decoded strings, the key and id-less ordinal tables): each
/// `report --input` counts them alike and writes the same grid, cell for cell.
struct OwnedBuffersCLITests {
    static let rows = 20_000
    static let categories = ["Anti-social behaviour", "Theft, \"other\"", "Café", "Burglary", "x"]

    struct Row {
        var id: String?
        var date: String
        var clock: String
        var lat: String
        var lon: String
        var category: String
    }

    /// Rows drawn from a fixed seed; every tenth has no id (and one in a hundred repeats the
    /// id-less row before it exactly, so id-less ordinals count above 1); row 7,000's category is
    /// longer than a record may be.
    static func draw() -> [Row] {
        var random = SplitMix64(seed: 0x0B0F_FE25)
        var rows: [Row] = []
        for i in 0..<Self.rows {
            if i % 100 == 51, let previous = rows.last, previous.id == nil {
                rows.append(previous)
                continue
            }
            let day = Int(random.next() % 395)
            let month = 6 + day / 30, year = 2017 + (month - 1) / 12
            let date = String(format: "%04d-%02d-%02d", year, (month - 1) % 12 + 1, day % 28 + 1)
            let clock = String(
                format: "%02d:%02d:%02d", Int(random.next() % 24), Int(random.next() % 60),
                Int(random.next() % 60))
            let latOffset: Double = Double(random.next() % 100_000) / 1_000_000
            let lonOffset: Double = Double(random.next() % 150_000) / 1_000_000
            let lat = String(format: "%.6f", 53.65 + latOffset)
            let lon = String(format: "%.6f", -1.95 + lonOffset)
            var category = categories[Int(random.next() % UInt64(categories.count))]
            if i == 7_000 { category = String(repeating: "long ", count: 300_000) }
            rows.append(
                Row(
                    id: i % 10 == 0 ? nil : "r\(i)", date: date, clock: clock, lat: lat,
                    lon: lon, category: category))
        }
        return rows
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value > 127: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func lines(_ header: String, _ rows: [String]) -> String {
        var text = header + "\n"
        for row in rows {
            text += row
            text += "\n"
        }
        return text
    }

    static func csvLine(_ r: Row) -> String {
        let id: String = r.id ?? ""
        let time: String = r.date + "T" + r.clock + "Z"
        return [id, r.lat, r.lon, time, csvField(r.category)].joined(separator: ",")
    }

    static func splitLine(_ r: Row) -> String {
        let id: String = r.id ?? ""
        return [id, r.lat, r.lon, r.date, r.clock, csvField(r.category)].joined(separator: ",")
    }

    static func jsonObject(_ r: Row) -> String {
        var members: [String] = []
        if let id = r.id { members.append("\"id\":" + jsonString(id)) }
        members.append("\"lat\":" + r.lat)
        members.append("\"lon\":" + r.lon)
        members.append("\"time\":" + jsonString(r.date + "T" + r.clock + "Z"))
        members.append("\"category\":" + jsonString(r.category))
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test("CSV, gzip, DATE+TIME columns and JSON with escapes: the same counts and the same grid")
    func everyEncodingReadsAlike() throws {
        let tmp = try TempDir()
        let rows = Self.draw()
        let plain = try tmp.file("plain.csv", Self.lines("id,lat,lon,time,category", rows.map(Self.csvLine)))
        let gzipped = tmp.path + "/gzipped.csv.gz"
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(plain)' > '\(gzipped)'"]
        try gzip.run()
        gzip.waitUntilExit()
        try #require(gzip.terminationStatus == 0)
        let split = try tmp.file("split.csv", Self.lines("id,lat,lon,day,clock,category", rows.map(Self.splitLine)))
        let objects: [String] = rows.map(Self.jsonObject)
        let json = try tmp.file("array.json", "[\n" + objects.joined(separator: ",\n") + "\n]\n")
        var reports: [(String, [String: [UInt8]])] = []
        let runs: [(String, String, [String])] = [
            ("plain", plain, []), ("gzipped", gzipped, []),
            ("split", split, ["--column", "time=day+clock"]), ("json", json, [])
        ]
        for (name, input, extra) in runs {
            let out = tmp.sub(name)
            try areawatchOK(
                [
                    "report", "--input", input, "--out", out, "--as-of", "2018-07-31T23:59:59Z",
                    "--group-by", "category", "--quiet"
                ] + extra)
            let tree = try readTree(out)
            let summary = try JSON.parse(try #require(tree["summary.json"]))
            let file = try #require(summary["inputs"]?[0])
            #expect(file["records"]?.int == Self.rows, "\(name)")
            #expect(file["accepted"]?.int == Self.rows - 1, "\(name): all but the oversized record")
            reports.append((name, tree))
        }
        let first = reports[0].1
        #expect((first["grid.csv"]?.count ?? 0) > 1_000)
        for (name, tree) in reports.dropFirst() {
            for file in ["grid.csv", "grid.geojson"] {
                #expect(tree[file] == first[file], "\(name): \(file) differs from the plain CSV's")
            }
        }
    }
}
