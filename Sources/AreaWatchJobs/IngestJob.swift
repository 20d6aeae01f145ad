import AreaWatchCore
import AreaWatchIngest
import AreaWatchReport
import AreaWatchStore
import Glibc

/// `areawatch ingest`: files into the store at `storePath`.
public struct IngestRequest: Sendable {
    public var storePath: String
    public var files: [String]
    public var reading: ReadingSettings
    public var policy: IngestPolicy

    public init(storePath: String, files: [String], reading: ReadingSettings, policy: IngestPolicy) {
        self.storePath = storePath
        self.files = files
        self.reading = reading
        self.policy = policy
    }
}

/// What one ingest reads with: the request's settings resolved once.
struct IngestSettings {
    var files: [String]
    var options: IngestOptions
    /// Re-read files whose SHA-256 was already ingested.
    var force: Bool
    var rejectsPath: String
    /// Reading options of one file when they differ from `options` (the nightly job's
    /// `[[inbox.files]]` tables: portals with their own time patterns, zones and columns).
    var optionsForFile: (@Sendable (String) -> IngestOptions?)? = nil

    /// The options that read `path`.
    func options(for path: String) -> IngestOptions {
        optionsForFile?(path) ?? options
    }
}

/// What an ingest command did.
public struct IngestOutcome: Sendable {
    public var reports: [FileIngestReport] = []
    /// Files that were input errors: nothing of them was kept.
    public var failures: [InputError] = []
    public var rejectsPath: String
    /// Rows of the rejects file: every reject of every file the store holds.
    public var rejectsWritten = 0
    /// The column snapshot of the store as this ingest left it (nil when none is known), for
    /// the nightly job's report stage.
    public var snapshot: ColumnSnapshot?

    public var records: Int { reports.reduce(0) { $0 + $1.records } }
    public var rejected: Int { reports.reduce(0) { $0 + $1.rejected } }
    public var rejectRate: Double { records == 0 ? 0 : Double(rejected) / Double(records) }

    /// SPEC §11: 2 when a file was an input error (1 when a `--column` mapping did not fit a file),
    /// 3 when the reject rate exceeds `maxRejectRate`.
    public func failure(maxRejectRate: Double) -> JobError? {
        if !failures.isEmpty {
            // The one place each input error is printed (one line each).
            return JobError(
                failures.contains(where: \.isUsage) ? .usage : .inputOrStore,
                failures.map { "\($0) — nothing of this file was kept" }.joined(separator: "\nareawatch: "))
        }
        if rejectRate > maxRejectRate {
            return JobError(
                .rejectRateExceeded,
                "reject rate \(Percent.text(rejectRate)) exceeds the maximum reject rate "
                    + "\(NumberFormat.compact(maxRejectRate))")
        }
        return nil
    }
}

/// `0.123` → `12.3%`.
public enum Percent {
    public static func text(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }
}

/// Ingests files into the store, one transaction per file (SPEC §3–§5).
public enum IngestJob {
    /// Under the store's lock (exit 4 when held), creates the store if needed and ingests.
    /// The outcome's `failure` is the exit status to report after printing it. The inputs are
    /// checked first: when none can be opened, nothing is created (no store, lock or rejects
    /// file); otherwise each that cannot is an input error of its own (SPEC §3, §5).
    public static func run(_ request: IngestRequest, progress: ProgressReporter) throws -> IngestOutcome {
        let unreadable = InputFiles.problems(request.files)
        if !unreadable.isEmpty && unreadable.count == request.files.count {
            throw InputFiles.error(unreadable, action: "nothing was ingested")
        }
        let rejectsPath = request.policy.rejectsPath(storePath: request.storePath)
        try StoreRejectsFile.checkPath(rejectsPath, storePath: request.storePath, inputs: request.files)
        let lock = try StoreLock(storePath: request.storePath)
        defer { withExtendedLifetime(lock) {} }
        let store = try IncidentStore(path: request.storePath, mode: .create, staged: true)
        return try run(
            IngestSettings(
                files: request.files, options: request.reading.ingestOptions,
                force: request.policy.force, rejectsPath: rejectsPath),
            store: store, progress: progress)
    }

    /// Ingests into a store whose lock the caller holds. With `keeper` the caller writes the
    /// column snapshot (`finish`); without, it is written before returning. Each file's rejects
    /// are committed with its records; the rejects file is then made from the store.
    static func run(
        _ settings: IngestSettings, store: IncidentStore, keeper: ColumnSnapshotKeeper? = nil,
        progress: ProgressReporter
    ) throws -> IngestOutcome {
        var outcome = IngestOutcome(rejectsPath: settings.rejectsPath)
        try StoreRejectsFile.prepare(store: store, path: settings.rejectsPath, progress: progress)
        let rejects = RejectSpool(folder: folder(of: store.path))
        let snapshot = keeper ?? ColumnSnapshotKeeper(store: store)
        // Also when a store error ends the job: the files committed before it are in the snapshot.
        defer { if keeper == nil { finish(snapshot, progress: progress) } }
        for path in settings.files {
            do {
                let (sha, bytes) = try FileDigest.sha256(path: path)
                if !settings.force, try store.hasIngested(sha256: sha) {
                    var report = FileIngestReport(file: path, sha256: sha, bytes: bytes)
                    report.skipped = true
                    outcome.reports.append(report)
                    progress.log("\(path): already ingested (same SHA-256), skipped")
                    continue
                }
                let report = try ingestFile(
                    path, sha256: sha, bytes: bytes, settings: settings, store: store,
                    rejects: rejects, snapshot: snapshot, progress: progress)
                outcome.reports.append(report)
                progress.log(
                    "\(path): \(report.records) records, \(report.inserted) new, \(report.updated) updated, "
                        + "\(report.duplicates) unchanged, \(report.rejected) rejected")
            } catch let error as InputError {
                // Printed once, with the others, when the command ends (`failure`).
                outcome.failures.append(error)
            }
        }
        // A new store into which no file went (all failed or skipped) is still put in place.
        try store.publishIfStaged()
        outcome.rejectsWritten = try StoreRejectsFile.write(from: store, to: settings.rejectsPath)
        outcome.snapshot = keeper == nil ? finish(snapshot, progress: progress) : snapshot.current
        return outcome
    }

    /// Writes the column snapshot if the ingest changed it and logs what happened to it.
    @discardableResult
    static func finish(_ snapshot: ColumnSnapshotKeeper, progress: ProgressReporter) -> ColumnSnapshot? {
        let started = MonotonicClock.now()
        let wrote = snapshot.hasUnsavedChanges
        let saved = snapshot.save()
        for note in snapshot.takeNotes() { progress.log(note) }
        if wrote, let saved {
            progress.log(
                "column snapshot: \(saved.count) incidents written in \(seconds(MonotonicClock.now() - started)) s")
        }
        return saved
    }

    private static func ingestFile(
        _ path: String, sha256: String, bytes: Int64, settings: IngestSettings,
        store: IncidentStore, rejects: RejectSpool, snapshot: ColumnSnapshotKeeper,
        progress: ProgressReporter
    ) throws -> FileIngestReport {
        let started = UTCTime.now()
        let options = settings.options(for: path)
        let transaction = try FileTransaction(
            store: store, source: options.source ?? baseName(path),
            expectedRows: RecordEstimate.records(
                fileBytes: bytes, path: path,
                bytesPerRecord: RecordEstimate.largeRecordBytes))
        snapshot.begin()
        rejects.removeAll()
        transaction.capturesColumns = snapshot.mayUseInsertedColumns
        transaction.beforeCommit = { snapshot.prepareCommit($0) }
        let name = baseName(path)
        transaction.phase = { progress.beginPhase("\(name): \($0)") }
        do {
            var sink = transaction
            let readStart = MonotonicClock.now()
            let report = try FileIngester.ingest(
                path: path, sha256: sha256, bytes: bytes, options: options, into: &sink, rejects: rejects,
                progress: { read, total, records in
                    progress.update(
                        "ingest \(name)", done: Double(read), total: Double(total),
                        detail: "\(NumberFormat.grouped(records)) records")
                })
            let readSeconds = MonotonicClock.now() - readStart
            let commitStart = MonotonicClock.now()
            try transaction.commit(
                IngestLogEntry(
                    file: path, sha256: sha256, bytes: bytes, records: report.records, accepted: report.accepted,
                    updated: report.updated, duplicates: report.duplicates, rejected: report.rejected,
                    startedAt: started,
                    finishedAt: UTCTime.now(), inserted: report.inserted, format: report.format,
                    rejectsByReason: JSONValue.object(
                        report.rejectsByReason.sorted { $0.key < $1.key }
                            .map { ($0.key.rawValue, .int($0.value)) }
                    ).serialized()),
                rejects: { add in
                    try rejects.forEach { row in
                        try add(
                            StoredReject(
                                source: path, record: row.record, id: row.id, reason: row.reason.rawValue,
                                excerpt: row.excerpt))
                    }
                })
            progress.endPhase()
            snapshot.committed()
            // Where the time goes (docs/PERFORMANCE.md): reading + inserting, then the commit with
            // the index rebuild of a bulk load.
            let parts = transaction.bulkRebuildSeconds.map { "\($0.part) \(seconds($0.seconds)) s" }
            progress.log(
                "\(path): read+insert \(seconds(readSeconds)) s, "
                    + (transaction.bulk ? "index rebuild + commit" : "commit")
                    + " \(seconds(MonotonicClock.now() - commitStart)) s"
                    + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"))
            return report
        } catch {
            progress.dropPhase()
            transaction.rollback()
            snapshot.rolledBack()
            rejects.removeAll()
            throw error
        }
    }

    static func seconds(_ s: Double) -> String { NumberFormat.fixed(s, decimals: 2) }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// Inputs are checked before anything is created (SPEC §3): a file that cannot be opened for
/// reading (missing, unreadable, a folder, not a regular file) is named once, with why.
enum InputFiles {
    static func problems(_ paths: [String]) -> [InputError] {
        paths.compactMap { path -> InputError? in
            do throws(InputError) {
                _ = try ByteSource(rawPath: path)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Exit 2: each problem on its own line, then what was not done.
    static func error(_ problems: [InputError], action: String) -> JobError {
        JobError(.inputOrStore, (problems.map(\.description) + [action]).joined(separator: "\nareawatch: "))
    }

    /// Throws `error` when any input cannot be opened.
    static func check(_ paths: [String], action: String) throws {
        let found = problems(paths)
        if !found.isEmpty { throw error(found, action: action) }
    }
}

extension UTCTime {
    /// The current time, truncated to the second.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
