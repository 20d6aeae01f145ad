import AreaWatchCore
import AreaWatchIngest
import AreaWatchJobs
import ArgumentParser

extension AreaWatch {
    struct Ingest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ingest incident files into the store (one transaction per file).")

        @Argument(help: "CSV or JSON files (.gz decompressed on the fly).")
        var files: [String]

        @OptionGroup var store: StoreOptions
        @OptionGroup var reading: ReadingSettings
        @OptionGroup var policy: IngestPolicy
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give at least one file to ingest") }
        }

        func run() throws {
            try ColumnCheck.headers(of: files, reading: reading)
            let outcome = try IngestJob.run(
                IngestRequest(storePath: store.db, files: files, reading: reading, policy: policy),
                progress: ProgressReporter(quiet: output.quiet))
            print(IngestTable.render(outcome))
            if let failure = outcome.failure(maxRejectRate: policy.maxRejectRate.value) { throw failure }
        }
    }
}

/// The per-file summary table `ingest` prints on stdout.
enum IngestTable {
    static func render(_ outcome: IngestOutcome) -> String {
        var rows = [
            ["file", "format", "records", "accepted", "new", "updated", "unchanged", "rejected", "rejects by reason"]
        ]
        for r in outcome.reports {
            let reasons = r.rejectsByReason.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }.joined(
                separator: " ")
            rows.append([
                r.file, r.skipped ? "skipped (already ingested)" : r.format, String(r.records), String(r.accepted),
                String(r.inserted), String(r.updated), String(r.duplicates), String(r.rejected), reasons
            ])
        }
        for f in outcome.failures {
            rows.append([f.file, "INPUT ERROR", "-", "-", "-", "-", "-", "-", f.position])
        }
        var text = Table.render(rows)
        text +=
            "\nrejects: \(outcome.rejectsWritten) written to \(TerminalText.escaped(outcome.rejectsPath))"
            + " (every file the store holds)"
        return text
    }
}

/// Plain aligned text tables for the terminal; cells come from inputs, so control characters
/// are escaped (TerminalText).
enum Table {
    static func render(_ rawRows: [[String]]) -> String {
        let rows = rawRows.map { $0.map { TerminalText.escaped($0) } }
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
