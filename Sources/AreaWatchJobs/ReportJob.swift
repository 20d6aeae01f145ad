#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport

/// `areawatch report` settings (SPEC §7.2–7.5, §8).
public struct ReportSettings: Sendable {
    public var source: IncidentSource
    public var out: String
    public var parameters: QueryParameters
    public var precision = 7
    public var tileZooms: ClosedRange<Int>? = 10...14
    public var minCellCount = 1
    public var areasPath: String?
    public var areaIdProperty = "name"
    public var poiPath: String?
    public var groupBy: String?
    public var attribution = "areawatch"
    public var threads = ReportSettings.processorCount
    public var strategy = GridStrategy.scatter

    public init(source: IncidentSource, out: String, parameters: QueryParameters) {
        self.source = source
        self.out = out
        self.parameters = parameters
    }

    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Usage errors caught before any work.
    public func validate() throws {
        guard (1...Geohash.maxPrecision).contains(precision) else { throw JobError(.usage, "--precision must be 1…12") }
        guard parameters.radius.isFinite, parameters.radius >= 0 else { throw JobError(.usage, "--radius must be a non-negative number of metres") }
        if let zooms = tileZooms, zooms.lowerBound < 0 || zooms.upperBound > 24 {
            throw JobError(.usage, "--tile-zooms must lie within 0…24")
        }
        guard minCellCount >= 1 else { throw JobError(.usage, "--min-cell-count must be at least 1") }
    }
}

/// Everything the report stage computed, before and after writing.
public struct ReportRun: Sendable {
    public var content: ReportContent
    public var outcome: ReportOutcome
}

public enum ReportJob {
    public static let engineVersion = "0.1.0"

    public static func run(_ settings: ReportSettings, progress: ProgressReporter, priorTimings: [(String, Double)] = []) throws -> ReportRun {
        try settings.validate()
        var timings = priorTimings
        var clock = ProgressReporter.now()
        func lap(_ stage: String) {
            let now = ProgressReporter.now()
            timings.append((stage, now - clock))
            clock = now
        }
        // Auxiliary inputs first: a bad areas or POI file fails before the long work.
        let areas = try settings.areasPath.map { try FeatureReaders.areas(path: $0, idProperty: settings.areaIdProperty) }
        let pois = try settings.poiPath.map { try FeatureReaders.pointsOfInterest(path: $0) }

        progress.log("loading incidents")
        let loaded = try IncidentLoading.load(settings.source, groupBy: settings.groupBy, keepKeys: false, progress: progress)
        lap(settings.source.isStore ? "load" : "ingest")
        progress.log("indexing \(loaded.columns.count) incidents")
        let index = IncidentIndex(columns: loaded.columns, parameters: settings.parameters)
        lap("index")
        progress.log("grid at precision \(settings.precision), radius \(NumberFormat.compact(settings.parameters.radius)) m")
        let grid = index.grid(precision: settings.precision, strategy: settings.strategy, threads: settings.threads)
        lap("grid")
        let areaReport = areas.map { AreaReport(result: index.areas($0), areas: $0, idProperty: settings.areaIdProperty) }
        let poiAnswers = pois.map { index.pointsOfInterest($0, threads: settings.threads) }
        let breakdown = settings.groupBy.map { index.breakdown(columns: loaded.columns, field: $0) }
        let totals = index.totals()
        lap("queries")

        let content = ReportContent(
            parameters: settings.parameters, grid: grid, totals: totals, tileZooms: settings.tileZooms,
            disclosure: Disclosure(minCellCount: settings.minCellCount), areas: areaReport, pointsOfInterest: poiAnswers,
            breakdown: breakdown, sourceKind: loaded.sourceKind, sourcePath: loaded.sourcePath, inputs: loaded.inputs,
            timings: timings, attribution: settings.attribution, engineVersion: engineVersion)
        progress.log("writing \(settings.out) (\(grid.cells.count) cells)")
        let outcome = try ReportWriter.write(content, to: settings.out, clock: ProgressReporter.now)
        return ReportRun(content: content, outcome: outcome)
    }
}

extension IncidentSource {
    var isStore: Bool {
        if case .store = self { return true }
        return false
    }
}
