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

    public init(
        file: String, sha256: String, bytes: Int64, records: Int, accepted: Int, updated: Int,
        duplicates: Int, rejected: Int, startedAt: Int64, finishedAt: Int64, inserted: Int, format: String,
        rejectsByReason: String
    ) {
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
/// wholly in the store or wholly absent. The first commit into a staged new store puts the
/// store in place (`IncidentStore.publishIfStaged`).
///
/// Bulk mode: when the file is expected to add at least half as many rows as the store holds,
/// the geohash, time and spatial indexes are dropped at the start and rebuilt once at the end,
/// inside the same transaction. Row-by-row R*Tree maintenance costs several times the insert
/// itself (docs/PERFORMANCE.md); rebuilding is linear in the store size, so it pays only when the
/// file is large next to the store. Otherwise the indexes are kept up row by row, and the
/// per-row triggers are suspended and applied once at the end (`DeferredRowTriggers`).
public final class FileTransaction: IncidentSink {
    private let store: IncidentStore
    /// The row statements; released at commit, before a staged store is published.
    private var statements: RowStatements?
    public let bulk: Bool
    /// After a bulk `commit`: seconds spent rebuilding each index (where the time goes).
    public private(set) var bulkRebuildSeconds: [(part: String, seconds: Double)] = []
    private var savedTriggers: [String] = []
    /// Row-by-row mode: the per-row triggers, suspended until the commit (nil: they run per row).
    private var deferredTriggers: DeferredRowTriggers?
    /// Bulk mode: the rows this file inserted (rowid, point), so that the spatial index is built
    /// without reading them back; and the largest rowid before the file.
    private let inserted = InsertedRows()
    private var rowidBefore: Int64 = 0
    private var updatedAny = false
    /// Bulk mode into a store that held no incidents: new keys go in sorted chunks.
    private var chunks: SortedChunkInserter?
    private var finished = false
    private var rowidOfKey: Statement?
    /// Rowids of the incidents this file updated (kept for the column snapshot).
    public private(set) var updatedRowids: [Int64] = []
    /// Runs inside the transaction after its last write, just before COMMIT (the column
    /// snapshot reads back what the file changed). Must not throw: nothing there may fail a file.
    public var beforeCommit: ((FileTransaction) -> Void)?
    /// Told the name of each long step of `commit` as it starts (the last is "committing"), so
    /// that progress shows what runs while nothing can be counted.
    public var phase: ((String) -> Void)?

    /// Rows a bulk load inserted, in rowid order (`rows` shared with the chunk inserter's
    /// thread, which appends only while this side waits for it), and their column-snapshot
    /// values (`columns`, appended on this side only, in the order the rows go in).
    final class InsertedRows: @unchecked Sendable {
        var rows = IncidentStore.PointRows()
        var columns = ColumnCapture()
    }
    /// After a bulk `commit`'s last write: the snapshot columns of the rows the file inserted.
    private var insertedColumns: InsertedColumns?
    /// Whether a bulk load into a store holding rows captures their snapshot columns; set false
    /// when nothing will use them (`ColumnSnapshotKeeper.mayUseInsertedColumns`). A load into an
    /// empty store always captures them (they are the whole snapshot).
    public var capturesColumns = true

    /// The column-snapshot values of the rows this bulk load inserted (the values as they are
    /// in the store, except for rows the file updated later: see `updatedRowids`), moved out;
    /// nil when the file was not a bulk load or inserted nothing. Valid inside `beforeCommit`.
    public func takeInsertedColumns() -> InsertedColumns? {
        defer { insertedColumns = nil }
        return insertedColumns
    }

    final class RowStatements: @unchecked Sendable {
        let insert: Statement
        let update: Statement

        init(_ db: SQLiteDatabase, source: String) throws {
            insert = try db.prepare(
                """
                INSERT INTO incidents(key, time, time_precision, lat, lon, geohash, category, handled,
                                      description, user, attrs, source, geom)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                ON CONFLICT(key) DO NOTHING
                """)
            // "Same content" is every stored field but the key and source (SPEC §4).
            update = try db.prepare(
                """
                UPDATE incidents SET time = ?2, time_precision = ?3, lat = ?4, lon = ?5, geohash = ?6,
                    category = ?7, handled = ?8, description = ?9, user = ?10, attrs = ?11, source = ?12,
                    geom = ?13
                WHERE key = ?1 AND (time IS NOT ?2 OR time_precision IS NOT ?3 OR lat IS NOT ?4
                    OR lon IS NOT ?5 OR category IS NOT ?7 OR handled IS NOT ?8 OR description IS NOT ?9
                    OR user IS NOT ?10 OR attrs IS NOT ?11)
                """)
            // Bindings outlive `reset`: the file's source is bound once.
            insert.bind(12, source)
            update.bind(12, source)
        }

        /// Binds every column but the source (12) and the geometry (13).
        func bindAll(_ s: Statement, _ i: Incident) {
            bindAll(s, i, geohash: Geohash.encode(lat: i.lat, lon: i.lon, precision: 12))
        }

        /// `bindAll` with the incident's geohash (precision 12) computed beforehand.
        func bindAll(_ s: Statement, _ i: Incident, geohash: String) {
            s.bind(1, text: i.key)
            s.bind(2, i.time)
            s.bind(3, i.precision.rawValue)
            s.bind(4, i.lat)
            s.bind(5, i.lon)
            s.bind(6, geohash)
            s.bind(7, i.category)
            if let h = i.handled { s.bind(8, Int64(h ? 1 : 0)) } else { s.bindNull(8) }
            s.bind(9, i.description)
            s.bind(10, i.user)
            s.bind(11, i.attributes)
        }
    }

    /// Starts the transaction. `expectedRows` is a guess of the file's records (from its size).
    public convenience init(store: IncidentStore, source: String, expectedRows: Int) throws {
        try self.init(
            store: store, source: source, expectedRows: expectedRows, chunkSize: SortedChunkInserter.defaultChunkSize)
    }

    /// `chunkSize`: rows per sorted chunk of a bulk load into an empty store (tests make it small).
    init(store: IncidentStore, source: String, expectedRows: Int, chunkSize: Int) throws {
        self.store = store
        let db = store.db
        try db.execute("BEGIN IMMEDIATE")
        do {
            let existing = try store.approximateCount()
            bulk = expectedRows >= 10_000 && existing <= expectedRows * 2
            let statements = try RowStatements(db, source: source)
            if bulk {
                savedTriggers = try store.beginBulkLoad()
                rowidBefore = Int64(existing)
                inserted.rows.reserveCapacity(expectedRows)
                inserted.columns.reserveCapacity(expectedRows)
                if existing == 0 {
                    chunks = SortedChunkInserter(
                        db: db, statements: statements, collected: inserted, expectedRows: expectedRows,
                        chunkSize: chunkSize)
                }
            } else {
                deferredTriggers = try DeferredRowTriggers.suspend(store)
            }
            self.statements = statements
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    deinit {
        chunks?.abandon()
        if !finished { try? store.db.execute("ROLLBACK") }
    }

    public func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) throws {
        try batch.forEach { outcome(try write($0)) }
    }

    /// One incident: an INSERT, or the UPDATE of a known key whose content changed (SPEC §4).
    public func write(_ incident: Incident) throws -> WriteOutcome {
        if let chunks {
            if try chunks.add(incident) { return .inserted }
            // A key this file may have shown before: everything before it goes in first.
            try chunks.drain()
        }
        let statements = statements!
        statements.bindAll(statements.insert, incident)
        try PointBlob.with(lat: incident.lat, lon: incident.lon) { blob in
            statements.insert.bind(13, blob: blob)
            try statements.insert.run()
        }
        let db = store.db
        if db.changes == 1 {
            if bulk {
                inserted.rows.append(rowid: db.lastInsertRowid, lat: incident.lat, lon: incident.lon)
                if capturesColumns || rowidBefore == 0 { inserted.columns.append(incident) }
            }
            deferredTriggers?.inserted(rowid: db.lastInsertRowid, lat: incident.lat, lon: incident.lon)
            return .inserted
        }
        statements.bindAll(statements.update, incident)
        try PointBlob.with(lat: incident.lat, lon: incident.lon) { blob in
            statements.update.bind(13, blob: blob)
            try statements.update.run()
        }
        guard db.changes == 1 else { return .duplicate }
        updatedAny = true
        try recordUpdate(incident)
        return .updated
    }

    private func recordUpdate(_ incident: Incident) throws {
        if rowidOfKey == nil { rowidOfKey = try store.db.prepare("SELECT rowid FROM incidents WHERE key = ?") }
        guard let statement = rowidOfKey else { return }
        statement.bind(1, incident.key)
        defer { statement.reset() }
        guard try statement.step() else { return }
        let rowid = statement.int64(0)
        updatedRowids.append(rowid)
        deferredTriggers?.updated(rowid: rowid, lat: incident.lat, lon: incident.lon)
    }

    /// Rebuilds what bulk mode dropped, logs the file, stores its rejects (replacing those of an
    /// earlier ingest of the same bytes) and commits: the file's records, log row and rejects are
    /// in the store together or not at all.
    public func commit(_ entry: IngestLogEntry, rejects: RejectRows? = nil) throws {
        let db = store.db
        if let chunks {
            phase?("inserting the last rows")
            try chunks.drain()
            self.chunks = nil
        }
        if bulk {
            // Taken before the spatial index consumes the points (the coordinate arrays are shared).
            if capturesColumns || rowidBefore == 0 {
                insertedColumns = InsertedColumns(rows: inserted.rows, capture: inserted.columns)
            }
            inserted.columns = ColumnCapture()
            // An update may have moved a row this file inserted: then every row is read back.
            bulkRebuildSeconds = try store.endBulkLoad(
                triggers: savedTriggers, inserted: updatedAny ? nil : inserted,
                after: rowidBefore, phase: phase)
            inserted.rows = IncidentStore.PointRows()
        }
        if let deferredTriggers {
            try deferredTriggers.apply()
            self.deferredTriggers = nil
        }
        phase?("committing")
        do {
            let log = try db.prepare(
                """
                INSERT INTO ingests(file, sha256, bytes, records, accepted, updated, duplicates, rejected, started_at, finished_at,
                                    inserted, format, rejects_by_reason)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            try log.bind([
                .text(entry.file), .text(entry.sha256), .integer(entry.bytes), .integer(Int64(entry.records)),
                .integer(Int64(entry.accepted)), .integer(Int64(entry.updated)), .integer(Int64(entry.duplicates)),
                .integer(Int64(entry.rejected)), .text(UTCTime.iso8601(entry.startedAt)),
                .text(UTCTime.iso8601(entry.finishedAt)), .integer(Int64(entry.inserted)), .text(entry.format),
                .text(entry.rejectsByReason)
            ])
            try log.run()
        }
        try store.replaceRejects(sha256: entry.sha256, rows: rejects)
        try store.advanceStamp()
        beforeCommit?(self)
        insertedColumns = nil
        try db.execute("COMMIT")
        finished = true
        // Statements finalized first: publishing closes the connection and opens the store in place.
        statements = nil
        rowidOfKey = nil
        try store.publishIfStaged()
    }

    /// Abandons the file: the store is left exactly as it was.
    public func rollback() {
        guard !finished else { return }
        chunks?.abandon()
        try? store.db.execute("ROLLBACK")
        finished = true
    }
}
