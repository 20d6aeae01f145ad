import AreaWatchCore
import AreaWatchIngest
import AreaWatchStore
import AreaWatchReport

/// `areawatch ingest` settings.
public struct IngestSettings: Sendable {
    public var files: [String]
    public var options: IngestOptions
    /// Re-read files whose SHA-256 was already ingested.
    public var force: Bool
    /// Exit 3 when rejected / records exceeds this (SPEC §3).
    public var maxRejectRate: Double
    public var rejectsPath: String
    /// Reading options of one file when they differ from `options` (the nightly job's
    /// `[[inbox.files]]` tables: portals with their own time patterns, zones and columns).
    public var optionsForFile: (@Sendable (String) -> IngestOptions)?

    /// The options that read `path`.
    public func options(for path: String) -> IngestOptions {
        optionsForFile?(path) ?? options
    }

    public init(files: [String], options: IngestOptions, force: Bool, maxRejectRate: Double, rejectsPath: String) {
        self.files = files
        self.options = options
        self.force = force
        self.maxRejectRate = maxRejectRate
        self.rejectsPath = rejectsPath
    }

    /// The default rejects file: beside the store, `NAME-rejects.csv`.
    public static func defaultRejectsPath(storePath: String) -> String {
        (storePath.hasSuffix(".db") ? String(storePath.dropLast(3)) : storePath) + "-rejects.csv"
    }
}

/// What an ingest command did.
public struct IngestOutcome: Sendable {
    public var reports: [FileIngestReport] = []
    /// Files that were input errors: nothing of them was kept.
    public var failures: [InputError] = []
    public var rejectsPath: String
    public var rejectsWritten = 0

    public var records: Int { reports.reduce(0) { $0 + $1.records } }
    public var rejected: Int { reports.reduce(0) { $0 + $1.rejected } }
    public var rejectRate: Double { records == 0 ? 0 : Double(rejected) / Double(records) }
}

/// Ingests files into the store, one transaction per file (SPEC §3–§5).
public enum IngestJob {
    public static func run(_ settings: IngestSettings, store: IncidentStore, progress: ProgressReporter) throws -> IngestOutcome {
        var outcome = IngestOutcome(rejectsPath: settings.rejectsPath)
        let rejects = try RejectsWriter(path: settings.rejectsPath)
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
                let report = try ingestFile(path, sha256: sha, bytes: bytes, settings: settings, store: store,
                                            rejects: rejects, progress: progress)
                outcome.reports.append(report)
                progress.log("\(path): \(report.records) records, \(report.inserted) new, \(report.updated) updated, "
                             + "\(report.duplicates) unchanged, \(report.rejected) rejected")
            } catch let error as InputError {
                outcome.failures.append(error)
                progress.warn("\(error) — nothing of this file was kept")
            }
        }
        try rejects.commit()
        outcome.rejectsWritten = rejects.count
        return outcome
    }

    private static func ingestFile(_ path: String, sha256: String, bytes: Int64, settings: IngestSettings,
                                   store: IncidentStore, rejects: RejectsWriter, progress: ProgressReporter) throws -> FileIngestReport {
        let started = UTCTime.now()
        let compressedFactor: Int64 = path.hasSuffix(".gz") ? 6 : 1
        let options = settings.options(for: path)
        let transaction = try FileTransaction(store: store, source: options.source ?? baseName(path),
                                              expectedRows: Int(bytes * compressedFactor / 150))
        do {
            var sink = transaction
            let readStart = ProgressReporter.now()
            let report = try FileIngester.ingest(
                path: path, sha256: sha256, bytes: bytes, options: options, into: &sink, rejects: rejects,
                progress: { read, total, records in
                    progress.update("ingest \(baseName(path))", done: Double(read), total: Double(total), detail: "\(records) records")
                })
            let readSeconds = ProgressReporter.now() - readStart
            if transaction.bulk { progress.log("\(path): rebuilding the store's indexes (bulk load)") }
            let commitStart = ProgressReporter.now()
            try transaction.commit(IngestLogEntry(
                file: path, sha256: sha256, bytes: bytes, records: report.records, accepted: report.accepted,
                updated: report.updated, duplicates: report.duplicates, rejected: report.rejected, startedAt: started,
                finishedAt: UTCTime.now(), inserted: report.inserted, format: report.format,
                rejectsByReason: JSONValue.object(report.rejectsByReason.sorted { $0.key < $1.key }
                    .map { ($0.key.rawValue, .int($0.value)) }).serialized()))
            try rejects.endFile()
            // Where the time goes (docs/PERFORMANCE.md): reading + inserting, then the commit with
            // the index rebuild of a bulk load.
            let parts = transaction.bulkRebuildSeconds.map { "\($0.part) \(seconds($0.seconds)) s" }
            progress.log("\(path): read+insert \(seconds(readSeconds)) s, "
                         + (transaction.bulk ? "index rebuild + commit" : "commit") + " \(seconds(ProgressReporter.now() - commitStart)) s"
                         + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"))
            return report
        } catch {
            transaction.rollback()
            rejects.discardFile()
            throw error
        }
    }

    static func seconds(_ s: Double) -> String { NumberFormat.fixed(s, decimals: 2) }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
