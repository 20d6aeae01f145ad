import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport
import AreaWatchStore

/// The nightly job (SPEC §9): under the store's lock, ingest every new inbox file, then rebuild
/// the configured reports and tiles from the store.
public enum RunJob {
    public struct Result: Sendable {
        public var ingest: IngestOutcome
        public var report: ReportRun
        /// The exit status to report after printing the result (nil: success).
        public var failure: JobError?
    }

    public static func run(_ config: RunConfig, progress: ProgressReporter) throws -> Result {
        // The report folder is checked before anything is ingested: a config whose `out` holds
        // the store, the inbox or the rejects file must change nothing.
        let request = ReportRequest(source: .store(config.storePath), query: config.query, report: config.report,
                                    protected: [config.inboxFolder, config.rejectsPath])
        try ReportFolder.checkReplaceable(config.out, protecting: request.protectedPaths)
        let lock = try StoreLock(storePath: config.storePath)
        defer { withExtendedLifetime(lock) {} }
        let started = ProgressReporter.now()
        let store = try IncidentStore(path: config.storePath, mode: .create, staged: true)
        let files = try config.inboxFiles()
        progress.log("inbox \(config.inboxFolder): \(files.count) file(s)")
        let optionsByFile = Dictionary(uniqueKeysWithValues: files.map { ($0, config.reading(forInboxFile: $0).ingestOptions) })
        let ingest = try IngestJob.run(
            IngestSettings(files: files, options: config.reading.ingestOptions, force: config.policy.force,
                           rejectsPath: config.rejectsPath, optionsForFile: { optionsByFile[$0] }),
            store: store, progress: progress)
        let ingestSeconds = ProgressReporter.now() - started
        let report = try ReportJob.run(request, progress: progress, priorTimings: [("ingest", ingestSeconds)])
        return Result(ingest: ingest, report: report, failure: ingest.failure(maxRejectRate: config.policy.maxRejectRate.value))
    }
}
