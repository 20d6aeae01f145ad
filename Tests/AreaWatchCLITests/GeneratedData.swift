import AreaWatchCore
import AreaWatchTestSupport
import Foundation

/// Seeded incident CSV files for the crash and concurrency tests: the same bytes on every run.
enum GeneratedData {
    /// Rows per generated file are multiplied by `AREAWATCH_E2E_SCALE` (default 1) for longer
    /// soak runs; the default keeps the whole suite well under a minute in a debug build.
    static let scale: Int = max(1, Int(ProcessInfo.processInfo.environment["AREAWATCH_E2E_SCALE"] ?? "") ?? 1)

    struct File {
        var name: String
        var text: String
        /// Rows that are accepted (the others lack a latitude: missing_coordinates).
        var accepted: Int
        var rows: Int
    }

    /// `rows` incidents around Halifax: ids `<tag>-<n>` (every 10th row id-less, a few of those
    /// identical), times within `days` days before 2018-07-31, every 250th row without latitude.
    static func file(_ tag: String, rows: Int, seed: UInt64, days: Int = 700, spread: Double = 0.04) -> File {
        var rng = SplitMix64(seed: seed)
        let end = Civil.epoch(2018, 7, 31, 23, 0, 0)
        let categories = [
            "Burglary", "Vehicle crime", "Anti-social behaviour", "Violence and sexual offences", "Robbery", ""
        ]
        var text = "id,time,lat,lon,category,handled,description\n"
        text.reserveCapacity(rows * 80)
        var accepted = 0
        var last = ""
        for n in 0..<rows {
            if n % 30 == 0 && !last.isEmpty {
                text += last // an identical id-less row: a distinct incident (SPEC §4)
                accepted += 1
                last = ""
                continue
            }
            let t = end - Int64(rng.next() % UInt64(days * 86_400))
            let lat = 53.72 + (rng.unit() - 0.5) * spread
            let lon = -1.86 + (rng.unit() - 0.5) * spread * 1.6
            let category = categories[Int(rng.next() % UInt64(categories.count))]
            let handled = ["true", "false", ""][Int(rng.next() % 3)]
            let id = n % 10 == 9 ? "" : "\(tag)-\(n)"
            let latText = n % 250 == 249 ? "" : String(format: "%.6f", lat)
            let row =
                "\(id),\(Civil.iso(t)),\(latText),\(String(format: "%.6f", lon)),\(category),\(handled),note \(n)\n"
            text += row
            if !latText.isEmpty { accepted += 1 }
            last = id.isEmpty && !latText.isEmpty ? row : ""
        }
        return File(name: "\(tag).csv", text: text, accepted: accepted, rows: rows)
    }

    /// Several files with distinct row counts, written into `folder`; returns (path, file).
    static func write(_ specs: [(String, Int)], into folder: String, seed: UInt64, days: Int = 700) throws -> [(
        path: String, file: File
    )] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try specs.enumerated().map { k, spec in
            let f = file(spec.0, rows: spec.1 * scale, seed: seed &+ UInt64(k) &* 7919, days: days)
            let path = folder + "/" + f.name
            try f.text.write(toFile: path, atomically: false, encoding: .utf8)
            return (path, f)
        }
    }
}
