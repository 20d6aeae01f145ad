import AreaWatchJobs
import ArgumentParser

struct AreaWatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "areawatch",
        abstract: "Area-danger analytics for incident datasets: ingest, query, report.",
        discussion: """
            Ingest incident exports (WatchMe JSON, arrays, NDJSON, GeoJSON, CSV) into an SQLite + SpatiaLite \
            store; answer "how safe is this location?" with year-over-year counts; write grid heatmaps \
            (GeoJSON, CSV), widget tiles and an HTML report. Exit status: 0 success, 1 usage error, 2 input \
            or store error, 3 reject rate exceeded, 4 another run holds the lock.
            """,
        version: ReportJob.engineVersion,
        subcommands: [
            Ingest.self, Stats.self, Query.self, Report.self, Lookup.self, Serve.self, Run.self, Check.self,
            Benchmark.self,
            Canonical.self, Dedup.self, ShardGrid.self, MergeReport.self, CheckOut.self
        ])
}
