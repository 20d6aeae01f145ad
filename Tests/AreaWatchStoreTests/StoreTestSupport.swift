import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

// Helpers of the store tests: scratch folders, seeded incident files, ingest through one
// `FileTransaction` per file (as the ingest command does), and SQL read-back.

func packageRoot(_ file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// One generated incident row, as written to the CSV.
struct GeneratedRow {
    var id: String
    var lat: Double
    var lon: Double
    var time: Int64
    var category: String
    var handled: String
    var description: String
    var outcome: String
}

/// Seeded incidents on a 1e-4 degree grid around Halifax: some with ids, some id-less (a few
/// identical), categories, handled, descriptions and an `Outcome` attribute column.
func generatedRows(count: Int, seed: UInt64) -> [GeneratedRow] {
    var rng = SplitMix64(seed: seed)
    let categories = ["Burglary", "Vehicle crime", "Anti-social behaviour", "Violence", ""]
    let outcomes = ["Under investigation", "No further action", ""]
    var rows: [GeneratedRow] = []
    for i in 0..<count {
        if i > 0 && rng.next() % 20 == 0, let previous = rows.last, previous.id.isEmpty {
            rows.append(previous) // an identical id-less row
            continue
        }
        let lat = 53.60 + Double(rng.next() % 2000) * 1e-4
        let lon = -1.95 + Double(rng.next() % 2000) * 1e-4
        rows.append(
            GeneratedRow(
                id: rng.next() % 3 == 0 ? "" : "inc-\(seed)-\(i)",
                lat: (lat * 1e4).rounded() / 1e4, lon: (lon * 1e4).rounded() / 1e4,
                time: 1_500_000_000 + Int64(rng.next() % 40_000_000),
                category: categories[Int(rng.next() % UInt64(categories.count))],
                handled: ["Y", "N", ""][Int(rng.next() % 3)],
                description: rng.next() % 2 == 0 ? "" : "seen near \"stop \(i % 17)\", reported",
                outcome: outcomes[Int(rng.next() % UInt64(outcomes.count))]))
    }
    return rows
}

func csvField(_ s: String) -> String {
    s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
}

func csvText(_ rows: [GeneratedRow]) -> String {
    var text = "id,latitude,longitude,timestamp,category,handled,description,Outcome\n"
    for r in rows {
        text +=
            [r.id, "\(r.lat)", "\(r.lon)", "\(r.time)", r.category, r.handled, r.description, r.outcome]
            .map(csvField).joined(separator: ",") + "\n"
    }
    return text
}

/// Ingests one file in one transaction, as `areawatch ingest` does; rolls back on any error.
@discardableResult
func ingestFile(
    _ path: String, into store: IncidentStore, options: IngestOptions = IngestOptions(),
    expectedRows: Int? = nil, source: String? = nil
) throws -> (report: FileIngestReport, bulk: Bool) {
    let digest = try FileDigest.sha256(path: path)
    let transaction = try FileTransaction(
        store: store, source: source ?? URL(fileURLWithPath: path).lastPathComponent,
        expectedRows: expectedRows ?? Int(digest.bytes / 150))
    do {
        var sink = transaction
        let report = try FileIngester.ingest(
            path: path, sha256: digest.hex, bytes: digest.bytes, options: options,
            into: &sink, rejects: nil)
        let reasons = report.rejectsByReason.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\"\($0.key.rawValue)\":\($0.value)" }.joined(separator: ",")
        try transaction.commit(testLogEntry(path, digest, report, rejectsByReason: "{" + reasons + "}"))
        return (report, transaction.bulk)
    } catch {
        transaction.rollback()
        throw error
    }
}

/// The `ingests` row of a test ingest of `path` (fixed start and finish times).
func testLogEntry(
    _ path: String, _ digest: (hex: String, bytes: Int64), _ report: FileIngestReport,
    rejectsByReason: String = "{}"
) -> IngestLogEntry {
    IngestLogEntry(
        file: path, sha256: digest.hex, bytes: digest.bytes, records: report.records, accepted: report.accepted,
        updated: report.updated, duplicates: report.duplicates, rejected: report.rejected,
        startedAt: 1_600_000_000, finishedAt: 1_600_000_001, inserted: report.inserted, format: report.format,
        rejectsByReason: rejectsByReason)
}

/// All rows of a query (its first `columns` columns) as SQL values.
func rows(_ store: IncidentStore, _ sql: String, _ arguments: [SQLValue] = [], columns: Int = 1) throws -> [[SQLValue]]
{
    let statement = try store.db.prepare(sql)
    try statement.bind(arguments)
    var out: [[SQLValue]] = []
    while try statement.step() {
        out.append((0..<columns).map { statement.value(Int32($0)) })
    }
    return out
}

/// Every stored incident, every column, the geometry as text: what "the same store" means.
func dump(_ store: IncidentStore) throws -> [[SQLValue]] {
    try rows(
        store,
        """
        SELECT key, time, time_precision, lat, lon, geohash, category, handled, description, user, attrs, source,
               AsText(geom), ST_SRID(geom)
        FROM incidents ORDER BY key
        """, columns: 14)
}

func count(_ store: IncidentStore, _ sql: String, _ arguments: [SQLValue] = []) throws -> Int64 {
    try #require(try store.db.integer(sql, arguments))
}

/// Incidents whose point lies in the frame SpatiaLite builds for a circle (its MBR), found
/// through the SpatialIndex virtual table.
func spatialIndexCount(_ store: IncidentStore, lon: Double, lat: Double, radius: Double) throws -> Int64 {
    try count(
        store,
        """
        SELECT count(*) FROM incidents WHERE ROWID IN (
            SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'incidents' AND search_frame = BuildCircleMbr(?, ?, ?))
        """, [.real(lon), .real(lat), .real(radius)])
}

/// Names of the triggers and indexes on `incidents`.
func schemaObjects(_ store: IncidentStore, type: String) throws -> [String] {
    try rows(
        store, "SELECT name FROM sqlite_master WHERE type = ? AND tbl_name = 'incidents' ORDER BY name", [.text(type)]
    )
    .map { if case .text(let s) = $0[0] { return s } else { return "" } }
}
