import ArgumentParser
import AreaWatchCore
import AreaWatchJobs
import AreaWatchStore

extension AreaWatch {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what the store holds.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let stats = try IncidentStore(path: store.db, create: false).stats()
            if json {
                print(StatsOutput.json(stats, path: store.db).serialized(pretty: true), terminator: "")
            } else {
                print(StatsOutput.text(stats, path: store.db))
            }
        }
    }
}

enum StatsOutput {
    static func text(_ s: StoreStats, path: String) -> String {
        var lines = ["store: \(path)", "incidents: \(s.incidents)"]
        if let first = s.firstTime, let last = s.lastTime {
            lines.append("time range: \(UTCTime.iso8601(first)) … \(UTCTime.iso8601(last))")
        }
        if let b = s.bounds {
            lines.append("bounding box: lat \(b.minLat) … \(b.maxLat), lon \(b.minLon) … \(b.maxLon)")
        }
        lines.append("spatial index entries: \(s.spatialIndexEntries)")
        lines.append("categories (\(s.categories.count)):")
        for c in s.categories.prefix(30) { lines.append("  \(c.count)\t\(c.name.isEmpty ? "(none)" : c.name)") }
        if s.categories.count > 30 { lines.append("  … \(s.categories.count - 30) more") }
        lines.append("ingests (\(s.ingests.count)):")
        var rows = [["finished", "file", "records", "accepted", "new", "updated", "unchanged", "rejected"]]
        for i in s.ingests {
            rows.append([i.finishedAt, i.file, String(i.records), String(i.accepted), String(i.inserted), String(i.updated),
                         String(i.duplicates), String(i.rejected)])
        }
        lines.append(Table.render(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }

    static func json(_ s: StoreStats, path: String) -> JSONValue {
        .object([
            ("store", .string(path)),
            ("incidents", .int(s.incidents)),
            ("first_time", s.firstTime.map { .string(UTCTime.iso8601($0)) } ?? .null),
            ("last_time", s.lastTime.map { .string(UTCTime.iso8601($0)) } ?? .null),
            ("bounds", s.bounds.map { .array([.number($0.minLon), .number($0.minLat), .number($0.maxLon), .number($0.maxLat)]) } ?? .null),
            ("spatial_index_entries", .int(s.spatialIndexEntries)),
            ("categories", .object(s.categories.map { ($0.name, .int($0.count)) })),
            ("ingests", .array(s.ingests.map { i in
                .object([("file", .string(i.file)), ("sha256", .string(i.sha256)), ("records", .int(i.records)),
                         ("accepted", .int(i.accepted)), ("inserted", .int(i.inserted)), ("updated", .int(i.updated)),
                         ("duplicates", .int(i.duplicates)), ("rejected", .int(i.rejected)), ("finished_at", .string(i.finishedAt))])
            })),
        ])
    }
}
