import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport
import Glibc

/// What a report is made from: the incidents' source, the query and the report settings.
public struct ReportRequest: Sendable {
    public var source: IncidentSource
    public var query: QuerySettings
    public var report: ReportSettings
    /// More paths the report folder must not hold (the nightly job's inbox and rejects file).
    public var protected: [String]
    /// How a store's column snapshot is used.
    public var snapshot: SnapshotUse = .readOnly
    /// Where the rejects of input files are written (`report --input --rejects`); nil: nowhere.
    public var rejectsPath: String?
    /// The nightly's grid count state and delta (SPEC §20); nil: the grid is recomputed.
    public var incremental: IncrementalNight?

    public init(source: IncidentSource, query: QuerySettings, report: ReportSettings, protected: [String] = []) {
        self.source = source
        self.query = query
        self.report = report
        self.protected = protected
    }

    /// Everything the report folder must not hold: the store or input files, the areas and POI
    /// files, and `protected`.
    var protectedPaths: [String] {
        var paths = protected + [report.areas, report.poi, rejectsPath].compactMap { $0 }
        switch source {
        case .store(let path): paths.append(path)
        case .files(let files, _): paths += files
        }
        return paths
    }
}

/// Everything the report stage computed, before and after writing.
public struct ReportRun: Sendable {
    public var content: ReportContent
    public var outcome: ReportOutcome
}

public enum ReportJob {
    public static let engineVersion = "0.1.0"

    public static func run(_ request: ReportRequest, progress: ProgressReporter, priorTimings: [(String, Double)] = [])
        throws -> ReportRun
    {
        let settings = request.report
        try check(request)
        AtomicDirectory.startWritingBack(filesystemOf: settings.out)
        var clock = StageClock(timings: priorTimings, progress: progress)
        // Auxiliary inputs first: a bad areas or POI file fails before the long work.
        let auxiliary = try AuxiliaryInputs(settings)

        progress.log("loading incidents")
        let rejects = try adHocRejects(request)
        var loaded = try IncidentLoading.load(
            request.source, groupBy: settings.groupBy, keepKeys: false,
            snapshot: request.snapshot, rejects: rejects, progress: progress)
        clock.incidents = loaded.columns.count
        if let field = settings.groupBy, let problem = GroupByCheck.problem(field, in: loaded.columns) {
            throw JobError(.usage, problem)
        }
        // The extent's published box is the union of the report grid's cells (SPEC §8, §18).
        let (parameters, extent, cells) = request.query.resolved(
            for: loaded.columns, grid: settings.gridSystem,
            minCellCount: settings.minCellCount, progress: progress)
        clock.lap(request.source.isStore ? "load" : "ingest")
        var analysis = try analyse(
            &loaded, parameters: parameters, ownCells: cells, request: request, places: auxiliary.places,
            clock: &clock, progress: progress)
        let grid = analysis.grid
        var content = answerQueries(
            analysis, loaded: loaded, auxiliary: auxiliary, parameters: parameters, settings: settings)
        if analysis.index != nil {
            // A recompute's state: the places' counts are those of the answers just made.
            analysis.state?.record(
                auxiliary.places, pointAnswers: content.pointsOfInterest?.map(\.answer),
                areaResult: content.areas?.result, breakdown: content.breakdown)
        }
        if let warning = extent?.emptyWindowsWarning(
            current: content.totals.current, previous: content.totals.previous,
            asOf: parameters.asOf)
        {
            progress.warn(warning)
        }
        clock.lap("queries")
        // An incremental night has no index, and never asks for EHSA (SPEC §20).
        content.ehsa =
            settings.ehsa
            ? ehsaReport(
                analysis.index!, time: loaded.columns.time, settings: settings,
                progress: progress) : nil
        if content.ehsa != nil { clock.lap("ehsa") }
        content.timings = clock.timings
        content.nearRepeat = analysis.nearRepeat
        content.rejects = loaded.rejects
        content.extent = .known(extent)
        progress.log("writing \(settings.out) (\(grid.cells.count) cells)")
        let outcome = try ReportWriter.write(
            content, to: settings.out, protecting: request.protectedPaths,
            clock: ProgressReporter.now)
        if let state = analysis.state, let note = request.incremental?.save(state, settings: settings) {
            progress.warn(note)
        }
        if let rejects {
            try rejects.commit()
            progress.log("rejects: \(rejects.count) written to \(rejects.path)")
        }
        return ReportRun(content: content, outcome: outcome)
    }

    /// Ad-hoc rejects go beside their final name until the report is published; what a killed
    /// run left there goes first. A store's rejects are in the store.
    static func adHocRejects(_ request: ReportRequest) throws -> RejectsWriter? {
        guard !request.source.isStore, let path = request.rejectsPath else { return nil }
        RejectsWriter.removeOrphans(of: path)
        return try RejectsWriter(path: path)
    }

    /// The areas, points of interest, breakdown and totals, and the report's content around them.
    /// Without an index (an incremental night, SPEC §20) the areas, points of interest
    /// and the breakdown (by category) come from the grid count state, and the totals are given.
    static func answerQueries(
        _ analysis: Analysis, loaded: LoadedIncidents, auxiliary: AuxiliaryInputs,
        parameters: QueryParameters, settings: ReportSettings
    ) -> ReportContent {
        let grid = analysis.grid
        var areaReport = auxiliary.areas.map { areas in
            AreaReport(
                result: analysis.index?.areas(areas) ?? analysis.state!.areaResult(areas), areas: areas,
                idProperty: settings.areaId)
        }
        if let populations = auxiliary.populations, let property = settings.areaPopulation {
            areaReport?.population = AreaPopulations(
                property: property, ratePer: settings.ratePer.value,
                values: populations)
        }
        let poiAnswers = auxiliary.pois.map { points in
            analysis.index?.pointsOfInterest(points, threads: settings.workerThreads)
                ?? analysis.state!.pointAnswers(points)
        }
        guard let index = analysis.index else {
            return content(
                parameters: parameters, grid: grid, totals: analysis.totals!, loaded: loaded, settings: settings,
                areas: areaReport, pointsOfInterest: poiAnswers,
                breakdown: settings.groupBy.map { _ in analysis.state!.breakdownResult() })
        }
        let breakdown = settings.groupBy.map { index.breakdown(columns: loaded.columns, field: $0) }
        return content(
            parameters: parameters, grid: grid, totals: analysis.totals ?? index.totals(), loaded: loaded,
            settings: settings, areas: areaReport, pointsOfInterest: poiAnswers, breakdown: breakdown)
    }

    static func content(
        parameters: QueryParameters, grid: GridResult, totals: Totals, loaded: LoadedIncidents,
        settings: ReportSettings, areas: AreaReport? = nil,
        pointsOfInterest: [(poi: PointOfInterest, answer: PointAnswer)]? = nil,
        breakdown: BreakdownResult? = nil
    ) -> ReportContent {
        var content = ReportContent(
            parameters: parameters, grid: grid, totals: totals, tileZooms: settings.tileZooms.zooms,
            disclosure: Disclosure(minCellCount: settings.minCellCount), areas: areas,
            pointsOfInterest: pointsOfInterest,
            breakdown: breakdown, sourceKind: loaded.sourceKind, sourcePath: loaded.sourcePath, inputs: loaded.inputs,
            timings: [], attribution: settings.attribution, engineVersion: engineVersion)
        content.fdr = settings.fdr.value
        content.formats = settings.formats
        content.publicURL = settings.publicURL
        return content
    }
}

/// The areas, their populations and the points of interest a report reads besides incidents.
struct AuxiliaryInputs {
    let areas: [NamedArea]?
    let populations: [AreaPopulation]?
    let pois: [PointOfInterest]?
    /// The points of interest, areas and breakdown field, as the grid count state binds them (SPEC §20).
    let places: ReportPlaces

    init(_ settings: ReportSettings) throws {
        areas = try settings.areas.map { try FeatureReaders.areas(path: $0, idProperty: settings.areaId) }
        populations = try settings.areaPopulation.map { property in
            try FeatureReaders.areaPopulations(path: settings.areas!, property: property)
        }
        pois = try settings.poi.map { try FeatureReaders.pointsOfInterest(path: $0) }
        places = ReportPlaces(points: pois, areas: areas, breakdown: settings.groupBy)
    }
}

/// The stages' timings, each logged as it ends with the peak memory so far, per incident once
/// the incidents are loaded: where the time and memory go (docs/PERFORMANCE.md).
struct StageClock {
    private(set) var timings: [(String, Double)]
    var incidents = 0
    private let progress: ProgressReporter
    private var started = ProgressReporter.now()

    init(timings: [(String, Double)], progress: ProgressReporter) {
        self.timings = timings
        self.progress = progress
    }

    mutating func lap(_ stage: String) {
        let now = ProgressReporter.now()
        let seconds = now - started
        timings.append((stage, seconds))
        started = now
        let peak = PeakMemory.bytes
        progress.log(
            "\(stage): \(NumberFormat.fixed(seconds, decimals: 3)) s, peak memory \(peak >> 20) MB"
                + (incidents > 0 ? " (\(peak / incidents) bytes per incident)" : ""))
    }
}

extension ReportJob {
    /// The command line and the config validate the settings; a request built in code is
    /// checked here too, before any work (the cube refuses bad parameters by trapping).
    static func check(_ request: ReportRequest) throws {
        let settings = request.report
        if settings.ehsa, let problem = settings.ehsaParameters.problem { throw JobError(.usage, problem) }
        if let problem = settings.areaPopulationProblem { throw JobError(.usage, problem) }
        try ReportFolder.checkReplaceable(settings.out, protecting: request.protectedPaths)
        if case .files(let paths, _) = request.source {
            try InputFiles.check(paths, action: "no report was written")
            if let rejects = request.rejectsPath {
                let others = [settings.areas, settings.poi].compactMap { $0 }
                try StoreRejectsFile.checkPath(rejects, storePath: nil, inputs: paths + others)
            }
        }
    }

    /// The breakdown and the hot-spot cube read the columns after indexing; otherwise the index
    /// takes them and frees them before it builds its R-tree (a third less peak memory at 10M).
    /// The R-tree only serves point queries (points of interest) and the per-cell grid.
    static func makeIndex(
        _ loaded: inout LoadedIncidents, parameters: QueryParameters, pointQueries: Bool,
        settings: ReportSettings
    ) -> IncidentIndex {
        let pointQueries = pointQueries || settings.gridStrategy == .rtreePerCell
        if settings.groupBy != nil || settings.ehsa || settings.nearRepeat {
            return IncidentIndex(columns: loaded.columns, parameters: parameters, pointQueries: pointQueries)
        }
        let columns = loaded.columns
        loaded.columns = IncidentColumns()
        return IncidentIndex(columns: consume columns, parameters: parameters, pointQueries: pointQueries)
    }

    /// `--max-cells`: refused before the grid is computed, from an estimate of its cells.
    static func checkGridSize(_ estimate: Double, radius: Double, settings: ReportSettings) throws {
        let grid = settings.gridSystem
        guard estimate <= Double(settings.maxCells) else {
            let lower = grid.geohashPrecision == nil ? "the resolution" : "--precision"
            throw JobError(
                .usage,
                "the grid would have about \(NumberFormat.compact(estimate.rounded())) cells at "
                    + "\(grid.fineness) and radius \(NumberFormat.compact(radius)) m, more than --max-cells "
                    + "\(settings.maxCells); lower \(lower) or --radius, or raise --max-cells")
        }
    }

    /// SPEC §13, §18: the emerging hot spots of the grid's cells over the months before the as-of.
    static func ehsaReport(
        _ index: IncidentIndex, time: [Int64], settings: ReportSettings,
        progress: ProgressReporter
    ) -> EHSAReport {
        let ehsaParameters = settings.ehsaParameters
        progress.log(
            "emerging hot spots: \(ehsaParameters.cellsName) cells × \(ehsaParameters.steps) months")
        let cube = HotSpotCube(
            index: index, time: time, parameters: ehsaParameters,
            minimumIncidents: settings.minCellCount, threads: settings.workerThreads)
        let result = EmergingHotSpots.analyse(cube, alpha: ehsaParameters.alpha)
        return EHSAReport(parameters: ehsaParameters, locations: result.locations, summary: result.summary)
    }

    /// SPEC §16: the Knox table of the current window, refused (exit 1) above `--nr-max-pairs`
    /// before any pair is stored.
    static func nearRepeatReport(
        _ index: IncidentIndex, time: [Int64], settings: ReportSettings,
        progress: ProgressReporter
    ) throws -> NearRepeatReport {
        let parameters = settings.nearRepeatParameters
        let reach = NumberFormat.compact(parameters.bands.distanceEdges.last ?? 0)
        progress.log(
            "near-repeat: \(parameters.permutations) permutations, pairs within \(reach) m and "
                + "\(parameters.bands.maxSeconds / 86_400) days")
        switch NearRepeatAnalysis.run(index, time: time, parameters: parameters, threads: settings.workerThreads) {
        case .table(let table):
            if table.timesAreMonthStarts {
                progress.warn(
                    "near-repeat: every time is the first of a month (month-only data): days apart are "
                        + "not known, so the table reflects that rounding; report.html shows no table")
            }
            return NearRepeatReport(parameters: parameters, table: table)
        case .tooManyPairs(let count):
            throw JobError(
                .usage,
                "near-repeat: \(NumberFormat.compact(Double(count))) pairs of incidents within "
                    + "\(reach) m, more than --nr-max-pairs "
                    + "\(parameters.maxPairs); lower the last --nr-distances edge, or raise --nr-max-pairs")
        }
    }
}

extension ReportJob {
    /// SPEC §8, §13: the emerging-hot-spot cube's exact size, counted before any of it is built;
    /// above `--max-ehsa-bins` the report is refused (a cube of 1.2 billion bins needs ~30 GB).
    static func checkCubeSize(_ index: IncidentIndex, time: [Int64], settings: ReportSettings) throws {
        let parameters = settings.ehsaParameters
        let size = HotSpotCube.size(
            index: index, time: time, parameters: parameters,
            minimumIncidents: settings.minCellCount, threads: settings.workerThreads)
        guard size.bins <= settings.maxEHSABins else {
            let lower = parameters.grid.geohashPrecision == nil ? "the --ehsa-grid resolution" : "--ehsa-precision"
            throw JobError(
                .usage,
                "the emerging-hot-spot cube would have \(size.bins) bins "
                    + "(\(size.locations) cells of \(parameters.cellsName) × \(parameters.steps) months), "
                    + "more than --max-ehsa-bins \(settings.maxEHSABins); lower \(lower) or --ehsa-steps, "
                    + "or raise --max-ehsa-bins")
        }
    }
}

extension IncidentSource {
    var isStore: Bool {
        if case .store = self { return true }
        return false
    }
}
