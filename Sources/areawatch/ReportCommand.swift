import AreaWatchCore
import AreaWatchJobs
import AreaWatchQuery
import AreaWatchReport
import ArgumentParser

extension AreaWatch {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the grid heatmap, tiles, summary and HTML report (plus areas, POI, breakdown when asked).")

        @OptionGroup var source: SourceOptions
        @OptionGroup var query: QuerySettings
        @OptionGroup var report: ReportSettings
        @Option(help: "With --input: write the rejected records here (source,record,id,reason,excerpt).")
        var rejects: String?

        @OptionGroup var output: OutputOptions

        func validate() throws {
            if rejects != nil && source.input.isEmpty {
                throw ValidationError("--rejects is for --input: a store's rejects file is written by ingest and run")
            }
        }

        func run() throws {
            var request = ReportRequest(source: source.source, query: query, report: report)
            request.rejectsPath = rejects
            let result = try ReportJob.run(request, progress: ProgressReporter(quiet: output.quiet))
            print(ReportOutput.text(result, out: report.out))
        }
    }
}

enum ReportOutput {
    static func text(_ run: ReportRun, out: String) -> String {
        let c = run.content
        let classes = c.grid.classCounts
        var lines = [
            "report: \(TerminalText.escaped(out)) (as of \(UTCTime.iso8601(c.parameters.asOf)))",
            "grid: \(c.grid.cells.count) cells at precision \(c.grid.precision): dangerous \(classes[.dangerous] ?? 0), "
                + "medium \(classes[.medium] ?? 0), safe \(classes[.safe] ?? 0)",
            "incidents: current \(c.totals.current), previous \(c.totals.previous), older \(c.totals.older), "
                + "excluded_future \(c.totals.excludedFuture)"
        ]
        for (name, bytes) in run.outcome.files { lines.append("  \(name)\t\(bytes) bytes") }
        if run.outcome.tiles > 0 { lines.append("  tiles: \(run.outcome.tiles) files") }
        return lines.joined(separator: "\n")
    }
}
