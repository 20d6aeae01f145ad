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
        var request = ReportRequest(
            source: .store(config.storePath), query: config.query, report: config.report,
            protected: [config.inboxFolder, config.rejectsPath])
        try ReportFolder.checkReplaceable(config.out, protecting: request.protectedPaths)
        try StoreRejectsFile.checkPath(config.rejectsPath, storePath: config.storePath, inputs: [])
        let lock = try StoreLock(storePath: config.storePath)
        defer { withExtendedLifetime(lock) {} }
        let started = ProgressReporter.now()
        // The inbox is walked before the store is opened: a walk that fails leaves no new store
        // (`NAME.new`) behind, and one that takes long holds nothing but the lock.
        let (files, skipped) = try config.inboxFiles()
        for entry in skipped { progress.warn("\(entry.path): skipped: \(entry.reason)") }
        let store = try IncidentStore(path: config.storePath, mode: .create, staged: true)
        // The WAL checkpoint (every page the ingest changed, copied into the store file) and the
        // column snapshot file are written beside the report stage, which reads neither: the
        // report takes the snapshot from memory. Both are done before the job returns.
        try store.deferCheckpoints()
        let keeper = ColumnSnapshotKeeper(store: store)
        let stampBefore = try? store.stamp()
        progress.log("inbox \(config.inboxFolder): \(files.count) file(s)")
        let optionsByFile = Dictionary(
            uniqueKeysWithValues: files.map { ($0, config.reading(forInboxFile: $0).ingestOptions) })
        let ingest: IngestOutcome
        do {
            ingest = try IngestJob.run(
                IngestSettings(
                    files: files, options: config.reading.ingestOptions, force: config.policy.force,
                    rejectsPath: config.rejectsPath, optionsForFile: { optionsByFile[$0] }),
                store: store, keeper: keeper, progress: progress)
        } catch {
            IngestJob.finish(keeper, progress: progress)
            throw error
        }
        let ingestSeconds = ProgressReporter.now() - started
        // Under the lock: the report stage may write the snapshot when it has to read the store.
        request.snapshot = SnapshotUse(read: true, rebuild: true, known: keeper.current)
        if config.incremental {
            request.incremental = IncrementalNight(
                storePath: config.storePath, before: stampBefore, after: try? store.stamp(), journal: keeper.journal,
                snapshot: keeper.current)
        }
        let parts = Unchecked((store, keeper))
        let (notes, report) = try Concurrency.overlap(
            { () -> [String] in
                let (store, keeper) = parts.value
                let saving = keeper.hasUnsavedChanges
                keeper.save()
                let notes = keeper.takeNotes() + (saving && keeper.current != nil ? ["column snapshot written"] : [])
                do { try store.checkpoint() } catch {
                    return notes + ["checkpoint deferred to the next open: \(error)"]
                }
                return notes
            },
            with: {
                try ReportJob.run(request, progress: progress, priorTimings: [("ingest", ingestSeconds)])
            })
        for note in notes { progress.log(note) }
        return Result(
            ingest: ingest, report: report, failure: ingest.failure(maxRejectRate: config.policy.maxRejectRate.value))
    }
}
