import Glibc
import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport
import AreaWatchStore

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
}

public enum IncidentLoading {
    public static func load(_ source: IncidentSource, groupBy: BreakdownField?, keepKeys: Bool,
                            progress: ProgressReporter) throws -> LoadedIncidents {
        switch source {
        case .store(let path):
            let store = try IncidentStore(path: path, mode: .readOnly)
            let columns = try store.loadColumns(groupBy: groupBy, keepKeys: keepKeys) { n in
                progress.update("load", done: Double(n), total: Double(max(n, 1)), detail: "\(n) incidents")
            }
            let inputs = try store.stats(categories: false).ingests.map { entry in
                InputSummary(path: entry.file, sha256: entry.sha256, format: entry.format, records: entry.records,
                             accepted: entry.accepted, inserted: entry.inserted, updated: entry.updated,
                             duplicates: entry.duplicates, rejected: entry.rejected,
                             rejectsByReason: entry.rejectsByReason, skipped: false)
            }
            return LoadedIncidents(columns: columns, inputs: inputs, sourceKind: "store", sourcePath: path)
        case .files(let paths, let options):
            let expected = paths.reduce(0) { total, path in
                var info = stat()
                guard stat(path, &info) == 0 else { return total }
                return total + RecordEstimate.records(fileBytes: Int64(info.st_size), path: path,
                                                      bytesPerRecord: RecordEstimate.typicalRecordBytes)
            }
            var builder = IncidentColumnsBuilder(groupBy: groupBy, keepKeys: keepKeys, expectedCount: expected)
            var inputs: [InputSummary] = []
            for path in paths {
                let (sha, bytes) = try FileDigest.sha256(path: path)
                let report = try FileIngester.ingest(
                    path: path, sha256: sha, bytes: bytes, options: options, into: &builder, rejects: nil,
                    progress: { read, total, records in
                        progress.update("read \(IngestJob.baseName(path))", done: Double(read), total: Double(total),
                                        detail: "\(records) records")
                    })
                inputs.append(InputSummary(report))
                progress.log("\(path): \(report.records) records, \(report.accepted) accepted, \(report.rejected) rejected")
            }
            return LoadedIncidents(columns: builder.columns, inputs: inputs, sourceKind: "files", sourcePath: nil)
        }
    }
}

extension InputSummary {
    init(_ report: FileIngestReport) {
        self.init(path: report.file, sha256: report.sha256, format: report.format, records: report.records,
                  accepted: report.accepted, inserted: report.inserted, updated: report.updated,
                  duplicates: report.duplicates, rejected: report.rejected,
                  rejectsByReason: Dictionary(uniqueKeysWithValues: report.rejectsByReason.map { ($0.key.rawValue, $0.value) }),
                  skipped: report.skipped)
    }
}
