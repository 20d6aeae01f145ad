import AreaWatchCore
import AreaWatchJobs
import AreaWatchReport
import AreaWatchStore
import ArgumentParser

extension AreaWatch {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what the store holds.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let stats = try StatsJob.run(storePath: store.db)
            if json {
                print(AnswerJSON.stats(stats, path: store.db).serialized(pretty: true), terminator: "")
            } else {
                print(StatsOutput.text(stats, path: store.db))
            }
        }
    }
}

enum StatsOutput {
    static func text(_ s: StoreStats, path: String) -> String {
        var lines = ["store: \(TerminalText.escaped(path))", "incidents: \(s.incidents)"]
        if let first = s.firstTime, let last = s.lastTime {
            lines.append("time range: \(UTCTime.iso8601(first)) … \(UTCTime.iso8601(last))")
        }
        if let b = s.bounds {
            lines.append("bounding box: lat \(b.minLat) … \(b.maxLat), lon \(b.minLon) … \(b.maxLon)")
        }
        lines.append("spatial index entries: \(s.spatialIndexEntries)")
        lines.append("categories (\(s.categories.count)):")
        for c in s.categories.prefix(30) {
            lines.append("  \(c.count)\t\(c.name.isEmpty ? "(none)" : TerminalText.escaped(c.name))")
        }
        if s.categories.count > 30 { lines.append("  … \(s.categories.count - 30) more") }
        lines.append("ingests (\(s.ingests.count)):")
        var rows = [["finished", "file", "records", "accepted", "new", "updated", "unchanged", "rejected"]]
        for i in s.ingests {
            rows.append([
                i.finishedAt, i.file, String(i.records), String(i.accepted), String(i.inserted), String(i.updated),
                String(i.duplicates), String(i.rejected)
            ])
        }
        lines.append(Table.render(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }
}
