import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport

extension ReportJob {
    /// SPEC §7.2, §20: the report's grid, from the nightly's grid count state and the night's
    /// delta when they apply, else recomputed from the index; with the state to save after the
    /// report (nil when the report is not a nightly's or the state does not cover it).
    /// `ownCells`: the rows' H3 cells found with the extent (`DataExtent.measure`), for a recompute.
    static func makeGrid(
        _ index: IncidentIndex, ownCells: ColumnCells?, request: ReportRequest,
        progress: ProgressReporter
    ) -> (GridResult, GridCountState?) {
        let settings = request.report
        func recomputed() -> GridResult {
            index.grid(
                settings.gridSystem, strategy: settings.gridStrategy, threads: settings.workerThreads,
                ownCells: ownCells)
        }
        guard let night = request.incremental else { return (recomputed(), nil) }
        let started = ProgressReporter.now()
        switch night.plan(parameters: index.parameters, settings: settings) {
        case .apply(var state, let crossing, let removing, let adding):
            let read = ProgressReporter.now()
            let summary = state.apply(
                asOf: index.parameters.asOf, crossing: crossing, removing: removing, adding: adding,
                threads: settings.workerThreads)
            progress.log(
                "incremental: \(summary.changedIncidents) incidents changed, \(summary.touchedCells) cells touched")
            let applied = ProgressReporter.now()
            let grid = state.result()
            let seconds = [read - started, applied - read, ProgressReporter.now() - applied].map {
                NumberFormat.fixed($0, decimals: 3)
            }
            progress.log("grid count state: read \(seconds[0]) s, delta \(seconds[1]) s, grid \(seconds[2]) s")
            return (grid, state)
        case .recompute(let reason):
            progress.log("full recompute: \(reason)")
            let grid = recomputed()
            guard IncrementalNight.uncovered(settings) == nil else { return (grid, nil) }
            return (grid, GridCountState(index: index, grid: grid))
        }
    }
}
