import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport
import AreaWatchStore
import Glibc

/// Where a query or report reads its incidents from (SPEC §6).
public enum IncidentSource: Sendable {
    /// The store at this path.
    case store(String)
    /// Input files, parsed as an ingest would parse them, without a store (ad-hoc analyst path).
    case files([String], IngestOptions)
}

/// Incidents loaded for the query stage, with the input summaries for the report.
public struct LoadedIncidents: Sendable {
    public var columns: IncidentColumns
    public var inputs: [InputSummary]
    public var sourceKind: String
    public var sourcePath: String?
    /// Where the rejects are and how many each file had (summary.json `rejects`).
    public var rejects = RejectsSummary(path: nil, files: [])
}

/// How a load from the store uses the column snapshot beside it (docs/DECISIONS.md).
public struct SnapshotUse: Sendable {
    /// Read the snapshot when it matches the store.
    public var read: Bool
    /// Write a new snapshot when the store had to be read instead: only for a caller holding
    /// the store's lock (the nightly job), so read-only commands write nothing.
    public var rebuild: Bool
    /// A snapshot already in memory (the nightly job's ingest just wrote it); used when its
    /// stamp is the store's.
    public var known: ColumnSnapshot?

    public init(read: Bool, rebuild: Bool = false, known: ColumnSnapshot? = nil) {
        self.read = read
        self.rebuild = rebuild
        self.known = known
    }

    /// `query` and `report`: read it, never write it.
    public static let readOnly = SnapshotUse(read: true)
    /// Always read the store itself.
    public static let ignore = SnapshotUse(read: false)
}

public enum IncidentLoading {
    /// `rejects`: where the rejects of input files go (`report --input --rejects`); not used
    /// with a store, whose rejects are in it.
    public static func load(
        _ source: IncidentSource, groupBy: BreakdownField?, keepKeys: Bool,
        snapshot: SnapshotUse = .readOnly, rejects: RejectsWriter? = nil,
        progress: ProgressReporter
    ) throws -> LoadedIncidents {
        switch source {
        case .store(let path):
            let store = try IncidentStore(path: path, mode: .readOnly)
            // One read transaction: the stamp, the incidents and the ingest log of one state.
            return try store.reading {
                let columns = try loadColumns(
                    store, groupBy: groupBy, keepKeys: keepKeys, snapshot: snapshot, progress: progress)
                let inputs = try store.stats(categories: false).ingests.map { entry in
                    InputSummary(
                        path: entry.file, sha256: entry.sha256, format: entry.format, records: entry.records,
                        accepted: entry.accepted, inserted: entry.inserted, updated: entry.updated,
                        duplicates: entry.duplicates, rejected: entry.rejected,
                        rejectsByReason: entry.rejectsByReason, skipped: false)
                }
                var loaded = LoadedIncidents(columns: columns, inputs: inputs, sourceKind: "store", sourcePath: path)
                loaded.rejects = try storedRejects(store, inputs: inputs)
                return loaded
            }
        case .files(let paths, let options):
            let expected = paths.reduce(0) { total, path in
                var info = stat()
                guard stat(path, &info) == 0 else { return total }
                return total
                    + RecordEstimate.records(
                        fileBytes: Int64(info.st_size), path: path,
                        bytesPerRecord: RecordEstimate.typicalRecordBytes)
            }
            var builder = IncidentColumnsBuilder(groupBy: groupBy, keepKeys: keepKeys, expectedCount: expected)
            var inputs: [InputSummary] = []
            for path in paths {
                func ingest(sha256: String, bytes: Int64) throws -> FileIngestReport {
                    try FileIngester.ingest(
                        path: path, sha256: sha256, bytes: bytes, options: options, into: &builder, rejects: rejects,
                        progress: { read, total, records in
                            progress.update(
                                "read \(IngestJob.baseName(path))", done: Double(read), total: Double(total),
                                detail: "\(NumberFormat.grouped(records)) records")
                        })
                }
                // Append-mode keys embed the file's digest, so it comes first; otherwise it is
                // only reported, and is computed on another core while this file is parsed.
                var report: FileIngestReport
                if options.idless == .append {
                    let (sha, bytes) = try FileDigest.sha256(path: path)
                    report = try ingest(sha256: sha, bytes: bytes)
                } else {
                    let (digest, parsed) = try Concurrency.overlap(
                        { try FileDigest.sha256(path: path) },
                        with: { try ingest(sha256: "", bytes: 0) })
                    report = parsed
                    (report.sha256, report.bytes) = digest
                }
                inputs.append(InputSummary(report))
                progress.log(
                    "\(path): \(report.records) records, \(report.accepted) accepted, \(report.rejected) rejected")
            }
            var loaded = LoadedIncidents(columns: builder.columns, inputs: inputs, sourceKind: "files", sourcePath: nil)
            loaded.rejects = RejectsSummary(path: rejects?.path, files: filesWithRejects(inputs))
            return loaded
        }
    }

    /// A store's rejects as its table holds them; for a store made before the table, as its
    /// ingest log counted them (the last ingest of each file), with no rejects file named.
    static func storedRejects(_ store: IncidentStore, inputs: [InputSummary]) throws -> RejectsSummary {
        guard let counts = try store.rejectCounts() else {
            var latest: [String: InputSummary] = [:]
            for input in inputs { latest[input.sha256] = input }
            return RejectsSummary(path: nil, files: filesWithRejects(inputs.filter { latest[$0.sha256] == $0 }))
        }
        return RejectsSummary(
            path: try store.rejectsFilePath(),
            files: counts.map {
                RejectsSummary.File(path: $0.source, sha256: $0.sha256, byReason: $0.byReason)
            })
    }

    static func filesWithRejects(_ inputs: [InputSummary]) -> [RejectsSummary.File] {
        inputs.filter { $0.rejected > 0 }.map {
            RejectsSummary.File(path: $0.path, sha256: $0.sha256, byReason: $0.rejectsByReason)
        }
    }
}

extension IncidentLoading {
    /// The store's incidents from the column snapshot when it holds what is asked for (no
    /// attribute to group by, no keys) and matches the store; otherwise by reading the store.
    static func loadColumns(
        _ store: IncidentStore, groupBy: BreakdownField?, keepKeys: Bool, snapshot use: SnapshotUse,
        progress: ProgressReporter
    ) throws -> IncidentColumns {
        let path = ColumnSnapshotFile.path(forStore: store.path)
        let usable = use.read && groupBy?.attribute == nil && !keepKeys
        let stamp = usable ? try store.stamp() : nil
        if let stamp {
            if let known = use.known, known.stamp == stamp {
                return known.incidentColumns()
            }
            switch ColumnSnapshotFile.read(path: path, expecting: stamp) {
            case .valid(let snapshot):
                progress.log("column snapshot: \(snapshot.count) incidents")
                return snapshot.incidentColumns()
            case .missing:
                progress.log("no column snapshot: reading the store")
            case .invalid(let reason):
                progress.log("column snapshot not used (\(reason)): reading the store")
            }
        }
        let label = "load \(IngestJob.baseName(store.path))"
        let (columns, dense) = try store.scanColumns(groupBy: groupBy, keepKeys: keepKeys) { rows, total in
            progress.update(
                label, done: Double(rows), total: Double(total),
                detail: "\(NumberFormat.grouped(rows)) incidents")
        }
        if let stamp, use.rebuild {
            do {
                try ColumnSnapshotFile.write(
                    ColumnSnapshot(columns: columns, stamp: stamp, rowidsAreDense: dense), to: path)
                progress.log("column snapshot rebuilt: \(columns.count) incidents")
            } catch {
                progress.log("column snapshot not written: \(error)")
            }
        }
        return columns
    }
}

extension InputSummary {
    init(_ report: FileIngestReport) {
        self.init(
            path: report.file, sha256: report.sha256, format: report.format, records: report.records,
            accepted: report.accepted, inserted: report.inserted, updated: report.updated,
            duplicates: report.duplicates, rejected: report.rejected,
            rejectsByReason: Dictionary(
                uniqueKeysWithValues: report.rejectsByReason.map { ($0.key.rawValue, $0.value) }),
            skipped: report.skipped)
    }
}
