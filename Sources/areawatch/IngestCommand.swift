import ArgumentParser
import AreaWatchIngest
import AreaWatchJobs
import AreaWatchStore

extension AreaWatch {
    struct Ingest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ingest incident files into the store (one transaction per file).")

        @Argument(help: "CSV or JSON files (.gz decompressed on the fly).")
        var files: [String]

        @OptionGroup var store: StoreOptions
        @OptionGroup var reading: ReadingOptions

        @Flag(help: "Re-read files whose SHA-256 was already ingested.")
        var force = false

        @Option(help: "Exit 3 when the share of rejected records exceeds this (0…1).")
        var maxRejectRate = 1.0

        @Option(help: "Where to write the rejects (default: beside the store, NAME-rejects.csv).")
        var rejects: String?

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give at least one file to ingest") }
            guard (0...1).contains(maxRejectRate) else { throw ValidationError("--max-reject-rate must be within 0…1") }
        }

        func run() throws {
            let progress = ProgressReporter(quiet: output.quiet)
            let lock = try StoreLock(storePath: store.db)
            defer { withExtendedLifetime(lock) {} }
            let storeHandle = try IncidentStore(path: store.db, create: true)
            let settings = IngestSettings(files: files, options: try reading.ingestOptions(), force: force,
                                          maxRejectRate: maxRejectRate,
                                          rejectsPath: rejects ?? IngestSettings.defaultRejectsPath(storePath: store.db))
            let outcome = try IngestJob.run(settings, store: storeHandle, progress: progress)
            print(IngestTable.render(outcome))
            if !outcome.failures.isEmpty {
                throw JobError(.inputOrStore, outcome.failures.map(\.description).joined(separator: "\nareawatch: "))
            }
            if outcome.rejectRate > maxRejectRate {
                throw JobError(.rejectRateExceeded, "reject rate \(Percent.text(outcome.rejectRate)) exceeds --max-reject-rate \(maxRejectRate)")
            }
        }
    }
}

/// The per-file summary table `ingest` prints on stdout.
enum IngestTable {
    static func render(_ outcome: IngestOutcome) -> String {
        var rows = [["file", "format", "records", "accepted", "new", "updated", "unchanged", "rejected", "rejects by reason"]]
        for r in outcome.reports {
            let reasons = r.rejectsByReason.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")
            rows.append([r.file, r.skipped ? "skipped (already ingested)" : r.format, String(r.records), String(r.accepted),
                         String(r.inserted), String(r.updated), String(r.duplicates), String(r.rejected), reasons])
        }
        for f in outcome.failures {
            rows.append([f.file, "INPUT ERROR", "-", "-", "-", "-", "-", "-", f.position])
        }
        var text = Table.render(rows)
        text += "\nrejects: \(outcome.rejectsWritten) written to \(outcome.rejectsPath)"
        return text
    }
}

enum Percent {
    static func text(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }
}

/// Plain aligned text tables for the terminal.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
