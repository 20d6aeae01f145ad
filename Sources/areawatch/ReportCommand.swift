import ArgumentParser
import AreaWatchCore
import AreaWatchJobs
import AreaWatchQuery

extension AreaWatch {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the grid heatmap, tiles, summary and HTML report (plus areas, POI, breakdown when asked).")

        @OptionGroup var source: SourceOptions
        @OptionGroup var query: QueryOptions

        @Option(help: "The report folder (replaced atomically).")
        var out = "reports/latest"

        @Option(help: "Geohash precision of the grid cells (1…12).")
        var precision = 7

        @Option(help: "Named areas: a GeoJSON file of Polygon/MultiPolygon features.")
        var areas: String?

        @Option(help: "The property that names each area.")
        var areaId = "name"

        @Option(help: "Points of interest: a CSV (name, lat, lon) or GeoJSON points with a name.")
        var poi: String?

        @Option(help: "Breakdown by category or by an attribute (input column).")
        var groupBy: String?

        @Option(help: "Zooms of the widget tiles, e.g. 10-14; 'none' writes no tiles.")
        var tileZooms = "10-14"

        @Option(help: "Withhold counts below this from public outputs (tiles, GeoJSON, HTML).")
        var minCellCount = 1

        @Option(help: "Attribution written into the TileJSON and the HTML footer.")
        var attribution = "areawatch"

        @Option(help: "Worker threads for the grid (default: all cores).")
        var threads = ReportSettings.processorCount

        @Option(help: "Grid algorithm: scatter (default) or rtree (an R-tree count per cell centre).")
        var gridStrategy: GridStrategy = .scatter

        @OptionGroup var output: OutputOptions

        func run() throws {
            var settings = ReportSettings(source: try source.source(), out: out, parameters: try query.parameters())
            settings.precision = precision
            if tileZooms == "none" {
                settings.tileZooms = nil
            } else {
                guard let zooms = RunConfig.parseZooms(tileZooms) else { throw ValidationError("--tile-zooms must look like 10-14") }
                settings.tileZooms = zooms
            }
            settings.minCellCount = minCellCount
            settings.areasPath = areas
            settings.areaIdProperty = areaId
            settings.poiPath = poi
            settings.groupBy = groupBy
            settings.attribution = attribution
            settings.threads = max(1, threads)
            settings.strategy = gridStrategy
            let progress = ProgressReporter(quiet: output.quiet)
            let result = try ReportJob.run(settings, progress: progress)
            print(ReportOutput.text(result, out: out))
        }
    }
}

enum ReportOutput {
    static func text(_ run: ReportRun, out: String) -> String {
        let c = run.content
        let classes = c.grid.classCounts
        var lines = [
            "report: \(out) (as of \(UTCTime.iso8601(c.parameters.asOf)))",
            "grid: \(c.grid.cells.count) cells at precision \(c.grid.precision): dangerous \(classes[.dangerous] ?? 0), "
                + "medium \(classes[.medium] ?? 0), safe \(classes[.safe] ?? 0)",
            "incidents: current \(c.totals.current), previous \(c.totals.previous), older \(c.totals.older), "
                + "excluded_future \(c.totals.excludedFuture)",
        ]
        for (name, bytes) in run.outcome.files { lines.append("  \(name)\t\(bytes) bytes") }
        if run.outcome.tiles > 0 { lines.append("  tiles: \(run.outcome.tiles) files") }
        return lines.joined(separator: "\n")
    }
}
