import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport

extension ReportJob {
    /// What the report's queries are answered from: the index (nil on an incremental night,
    /// which builds none), the grid, the totals when known without the index, the grid count
    /// state to save after the report (nil when the report is not a nightly's or the state does
    /// not cover it), and the near-repeat table.
    struct Analysis {
        var index: IncidentIndex?
        var grid: GridResult
        var totals: Totals?
        var state: GridCountState?
        var nearRepeat: NearRepeatReport?
    }

    /// SPEC §7.2, §20: the index and the grid, or, when the nightly's grid count state and the
    /// night's delta apply, the grid (and the counts of `places`) from the state and the other
    /// figures from the columns in one pass (`ColumnFigures`), without an index. `ownCells`: the
    /// rows' H3 cells found with the extent (`DataExtent.measure`), for a recompute.
    static func analyse(
        _ loaded: inout LoadedIncidents, parameters: QueryParameters, ownCells: ColumnCells?, request: ReportRequest,
        places: ReportPlaces, clock: inout StageClock, progress: ProgressReporter
    ) throws -> Analysis {
        let settings = request.report
        let started = ProgressReporter.now()
        let plan = request.incremental?.plan(
            parameters: parameters, settings: settings, columns: loaded.columns, places: places)
        let planned = ProgressReporter.now()
        if case .apply(var state, let crossing, let removing, let adding, let places)? = plan {
            progress.log("totals of \(loaded.columns.count) incidents (the grid count state applies: no index)")
            let figures = ColumnFigures(
                columns: loaded.columns, parameters: parameters, grid: settings.gridSystem,
                threads: settings.workerThreads)
            clock.lap("totals")
            try checkGridSize(figures.estimatedCells, radius: parameters.radius, settings: settings)
            logGrid(parameters, settings: settings, progress: progress)
            let applying = ProgressReporter.now()
            let summary = state.apply(
                asOf: parameters.asOf, crossing: crossing, removing: removing, adding: adding, places: places,
                threads: settings.workerThreads)
            if summary.consistent {
                progress.log(
                    "incremental: \(summary.changedIncidents) incidents changed, \(summary.touchedCells) cells touched")
                let applied = ProgressReporter.now()
                let grid = state.result()
                let seconds = [planned - started, applied - applying, ProgressReporter.now() - applied].map {
                    NumberFormat.fixed($0, decimals: 3)
                }
                progress.log("grid count state: read \(seconds[0]) s, delta \(seconds[1]) s, grid \(seconds[2]) s")
                clock.lap("grid")
                return Analysis(index: nil, grid: grid, totals: figures.totals, state: state)
            }
            progress.log("full recompute: \(IncrementalNight.mismatch)")
        }
        if case .recompute(let reason)? = plan { progress.log("full recompute: \(reason)") }
        progress.log("indexing \(loaded.columns.count) incidents")
        let index = makeIndex(&loaded, parameters: parameters, pointQueries: places.points != nil, settings: settings)
        clock.lap("index")
        try checkGridSize(
            GridCellEstimate.cells(index, grid: settings.gridSystem), radius: parameters.radius,
            settings: settings)
        if settings.ehsa { try checkCubeSize(index, time: loaded.columns.time, settings: settings) }
        let nearRepeat =
            try settings.nearRepeat
            ? nearRepeatReport(index, time: loaded.columns.time, settings: settings, progress: progress) : nil
        if nearRepeat != nil { clock.lap("near-repeat") }
        logGrid(parameters, settings: settings, progress: progress)
        let grid = index.grid(
            settings.gridSystem, strategy: settings.gridStrategy, threads: settings.workerThreads, ownCells: ownCells)
        // A nightly that may carry on by deltas saves the state of this grid (and, once the
        // queries are answered, of the places: `ReportJob.run`).
        let state =
            plan != nil && IncrementalNight.uncovered(settings) == nil
            ? GridCountState(index: index, grid: grid) : nil
        clock.lap("grid")
        return Analysis(index: index, grid: grid, state: state, nearRepeat: nearRepeat)
    }

    private static func logGrid(_ parameters: QueryParameters, settings: ReportSettings, progress: ProgressReporter) {
        progress.log("grid at \(settings.gridSystem.fineness), radius \(NumberFormat.compact(parameters.radius)) m")
    }
}
