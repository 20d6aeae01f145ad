import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchStore

/// The nightly job (SPEC §9): under the store's lock, ingest every new inbox file, then rebuild
/// the configured reports and tiles from the store.
public enum RunJob {
    public struct Result: Sendable {
        public var ingest: IngestOutcome
        public var report: ReportRun
        public var status: ExitStatus
    }

    public static func run(_ config: RunConfig, progress: ProgressReporter) throws -> Result {
        let lock = try StoreLock(storePath: config.storePath)
        defer { withExtendedLifetime(lock) {} }
        let started = ProgressReporter.now()
        let store = try IncidentStore(path: config.storePath, create: true)
        let files = try config.inboxFiles()
        progress.log("inbox \(config.inboxFolder): \(files.count) file(s)")
        let ingest = try IngestJob.run(
            IngestSettings(files: files, options: config.ingest, force: false, maxRejectRate: config.maxRejectRate,
                           rejectsPath: config.rejectsPath),
            store: store, progress: progress)
        let ingestSeconds = ProgressReporter.now() - started

        var settings = ReportSettings(
            source: .store(config.storePath), out: config.out,
            parameters: QueryParameters(asOf: config.asOf ?? UTCTime.now(), radius: config.radius,
                                        thresholds: config.thresholds, categories: config.categories, handled: config.handled))
        settings.precision = config.precision
        settings.tileZooms = config.tileZooms
        settings.minCellCount = config.minCellCount
        settings.areasPath = config.areasPath
        settings.areaIdProperty = config.areaIdProperty
        settings.poiPath = config.poiPath
        settings.groupBy = config.groupBy
        settings.attribution = config.attribution
        let report = try ReportJob.run(settings, progress: progress, priorTimings: [("ingest", ingestSeconds)])

        let status: ExitStatus
        if !ingest.failures.isEmpty {
            status = .inputOrStore
        } else if ingest.rejectRate > config.maxRejectRate {
            status = .rejectRateExceeded
        } else {
            status = .success
        }
        return Result(ingest: ingest, report: report, status: status)
    }
}
