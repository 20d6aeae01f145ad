import AreaWatchCore

/// What one file's ingest adds to the `ingests` log.
public struct IngestLogEntry: Sendable {
    public var file: String
    public var sha256: String
    public var bytes: Int64
    public var records: Int
    public var accepted: Int
    public var updated: Int
    public var duplicates: Int
    public var rejected: Int
    public var startedAt: Int64
    public var finishedAt: Int64
    public var inserted: Int
    public var format: String
    /// Canonical JSON object reason → count.
    public var rejectsByReason: String

    public init(file: String, sha256: String, bytes: Int64, records: Int, accepted: Int, updated: Int,
                duplicates: Int, rejected: Int, startedAt: Int64, finishedAt: Int64, inserted: Int, format: String,
                rejectsByReason: String) {
        self.inserted = inserted
        self.format = format
        self.rejectsByReason = rejectsByReason
        self.file = file
        self.sha256 = sha256
        self.bytes = bytes
        self.records = records
        self.accepted = accepted
        self.updated = updated
        self.duplicates = duplicates
        self.rejected = rejected
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

/// One input file's ingest: a single SQLite transaction (SPEC §5), so after a crash the file is
/// wholly in the store or wholly absent.
///
/// Bulk mode: when the file is expected to add at least half as many rows as the store holds,
/// the geohash, time and spatial indexes are dropped at the start and rebuilt once at the end,
/// inside the same transaction. Row-by-row R*Tree maintenance costs several times the insert
/// itself (docs/PERFORMANCE.md); rebuilding is linear in the store size, so it pays only when the
/// file is large next to the store.
public final class FileTransaction: IncidentSink {
    private let store: IncidentStore
    private let insert: Statement
    private let update: Statement
    private let source: String
    public let bulk: Bool
    /// After a bulk `commit`: seconds spent rebuilding each index (where the time goes).
    public private(set) var bulkRebuildSeconds: [(part: String, seconds: Double)] = []
    private var savedTriggers: [String] = []
    private var finished = false
    private var rowidOfKey: Statement?
    /// Rowids of the incidents this file updated (kept for the column snapshot).
    public private(set) var updatedRowids: [Int64] = []
    /// Runs inside the transaction after its last write, just before COMMIT (the column
    /// snapshot reads back what the file changed). Must not throw: nothing there may fail a file.
    public var beforeCommit: ((FileTransaction) -> Void)?

    /// Starts the transaction. `expectedRows` is a guess of the file's records (from its size).
    public init(store: IncidentStore, source: String, expectedRows: Int) throws {
        self.store = store
        self.source = source
        let db = store.db
        try db.execute("BEGIN IMMEDIATE")
        do {
            let existing = try store.approximateCount()
            bulk = expectedRows >= 10_000 && existing <= expectedRows * 2
            if bulk { savedTriggers = try store.beginBulkLoad() }
            insert = try db.prepare("""
                INSERT INTO incidents(key, time, time_precision, lat, lon, geohash, category, handled,
                                      description, user, attrs, source, geom)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, MakePoint(?5, ?4, 4326))
                ON CONFLICT(key) DO NOTHING
                """)
            // "Same content" is every stored field but the key and source (SPEC §4).
            update = try db.prepare("""
                UPDATE incidents SET time = ?2, time_precision = ?3, lat = ?4, lon = ?5, geohash = ?6,
                    category = ?7, handled = ?8, description = ?9, user = ?10, attrs = ?11, source = ?12,
                    geom = MakePoint(?5, ?4, 4326)
                WHERE key = ?1 AND (time IS NOT ?2 OR time_precision IS NOT ?3 OR lat IS NOT ?4
                    OR lon IS NOT ?5 OR category IS NOT ?7 OR handled IS NOT ?8 OR description IS NOT ?9
                    OR user IS NOT ?10 OR attrs IS NOT ?11)
                """)
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    deinit {
        if !finished { try? store.db.execute("ROLLBACK") }
    }

    public func write(_ incident: Incident) throws -> WriteOutcome {
        bindAll(insert, incident)
        try insert.run()
        if store.db.changes == 1 { return .inserted }
        bindAll(update, incident)
        try update.run()
        guard store.db.changes == 1 else { return .duplicate }
        try recordUpdate(key: incident.key)
        return .updated
    }

    private func recordUpdate(key: String) throws {
        if rowidOfKey == nil { rowidOfKey = try store.db.prepare("SELECT rowid FROM incidents WHERE key = ?") }
        guard let statement = rowidOfKey else { return }
        statement.bind(1, key)
        defer { statement.reset() }
        if try statement.step() { updatedRowids.append(statement.int64(0)) }
    }

    private func bindAll(_ s: Statement, _ i: Incident) {
        s.bind(1, i.key)
        s.bind(2, i.time)
        s.bind(3, i.precision.rawValue)
        s.bind(4, i.lat)
        s.bind(5, i.lon)
        s.bind(6, Geohash.encode(lat: i.lat, lon: i.lon, precision: 12))
        s.bind(7, i.category)
        if let h = i.handled { s.bind(8, Int64(h ? 1 : 0)) } else { s.bindNull(8) }
        s.bind(9, i.description)
        s.bind(10, i.user)
        s.bind(11, i.attributes)
        s.bind(12, source)
    }

    /// Rebuilds what bulk mode dropped, logs the file and commits.
    public func commit(_ entry: IngestLogEntry) throws {
        let db = store.db
        if bulk { bulkRebuildSeconds = try store.endBulkLoad(triggers: savedTriggers) }
        let log = try db.prepare("""
            INSERT INTO ingests(file, sha256, bytes, records, accepted, updated, duplicates, rejected, started_at, finished_at,
                                inserted, format, rejects_by_reason)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try log.bind([.text(entry.file), .text(entry.sha256), .integer(entry.bytes), .integer(Int64(entry.records)),
                      .integer(Int64(entry.accepted)), .integer(Int64(entry.updated)), .integer(Int64(entry.duplicates)),
                      .integer(Int64(entry.rejected)), .text(UTCTime.iso8601(entry.startedAt)),
                      .text(UTCTime.iso8601(entry.finishedAt)), .integer(Int64(entry.inserted)), .text(entry.format),
                      .text(entry.rejectsByReason)])
        try log.run()
        try store.advanceStamp()
        beforeCommit?(self)
        try db.execute("COMMIT")
        finished = true
    }

    /// Abandons the file: the store is left exactly as it was.
    public func rollback() {
        guard !finished else { return }
        try? store.db.execute("ROLLBACK")
        finished = true
    }
}
