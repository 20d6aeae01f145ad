import AreaWatchCore

/// One rejected record as the store keeps it (docs/SCHEMA.md, `rejects`): the rejects file's
/// columns as read, without the spreadsheet `'` the file adds.
public struct StoredReject: Sendable, Equatable {
    public var source: String
    public var record: String
    public var id: String?
    public var reason: String
    public var excerpt: String

    public init(source: String, record: String, id: String?, reason: String, excerpt: String) {
        self.source = source
        self.record = record
        self.id = id
        self.reason = reason
        self.excerpt = excerpt
    }
}

/// The rejects of one stored file, counted by reason (summary.json's `rejects.files`).
public struct StoredRejectCounts: Sendable, Equatable {
    public var source: String
    public var sha256: String
    public var byReason: [String: Int]

    public init(source: String, sha256: String, byReason: [String: Int]) {
        self.source = source
        self.sha256 = sha256
        self.byReason = byReason
    }
}

/// Hands each reject of one file to `add` (the ingest's spool, read back at commit).
public typealias RejectRows = (_ add: (StoredReject) throws -> Void) throws -> Void

/// Hands each imported reject, with its file's SHA-256, to `add`.
public typealias ImportedRejectRows = (_ add: (_ sha256: String, StoredReject) throws -> Void) throws -> Void

/// The store's rejects (docs/SCHEMA.md 1.2): every reject of every file the store holds, written
/// in the same transaction as the file's incidents, so a file's rejects are committed exactly when
/// its records are; the rejects file is made from this table after each ingest. Keyed by the
/// file's SHA-256, as the `ingests` log is: a file read again with `--force` replaces its rejects.
extension IncidentStore {
    static let rejectsSchemaSQL = """
        CREATE TABLE IF NOT EXISTS rejects(
            sha256 TEXT NOT NULL,
            source TEXT NOT NULL,
            record TEXT NOT NULL,
            id TEXT,
            reason TEXT NOT NULL,
            excerpt TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS rejects_sha256 ON rejects(sha256);
        CREATE TABLE IF NOT EXISTS rejects_file(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            path TEXT NOT NULL);
        """

    /// Whether the store has the rejects tables (a store made before 1.2 has not, until an
    /// `ingest` or `run` adds them: `addRejectsTables`).
    public func hasRejectsTables() throws -> Bool {
        try db.integer(
            """
            SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('rejects', 'rejects_file')
            """) == 2
    }

    /// Adds the rejects tables to a store made before them, with `rows` (keyed by SHA-256: the
    /// rejects an earlier version left in its rejects file) in the same transaction. Does nothing
    /// when the tables exist.
    public func addRejectsTables(importing rows: ImportedRejectRows) throws {
        guard try !hasRejectsTables() else { return }
        try db.execute("BEGIN IMMEDIATE")
        do {
            try db.execute(IncidentStore.rejectsSchemaSQL)
            let insert = try db.prepare(IncidentStore.insertRejectSQL)
            try rows { sha256, reject in try IncidentStore.insert(reject, sha256: sha256, with: insert) }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    static let insertRejectSQL = """
        INSERT INTO rejects(sha256, source, record, id, reason, excerpt) VALUES(?1, ?2, ?3, ?4, ?5, ?6)
        """

    private static func insert(_ reject: StoredReject, sha256: String, with statement: Statement) throws {
        statement.bind(1, text: sha256)
        statement.bind(2, text: reject.source)
        statement.bind(3, text: reject.record)
        statement.bind(4, reject.id)
        statement.bind(5, text: reject.reason)
        statement.bind(6, text: reject.excerpt)
        try statement.run()
    }

    /// Inside a file's transaction: its rejects replace any the store held for the same bytes.
    /// Nothing to do in a store without the tables (opened by a caller that did not add them).
    func replaceRejects(sha256: String, rows: RejectRows?) throws {
        guard try hasRejectsTables() else { return }
        let delete = try db.prepare("DELETE FROM rejects WHERE sha256 = ?")
        delete.bind(1, text: sha256)
        try delete.run()
        guard let rows else { return }
        let insert = try db.prepare(IncidentStore.insertRejectSQL)
        try rows { try IncidentStore.insert($0, sha256: sha256, with: insert) }
    }

    /// Every reject the store holds: files in the order they were committed, each file's rejects
    /// in file order. Nothing for a store without the tables.
    public func forEachReject(_ body: (StoredReject) throws -> Void) throws {
        guard try hasRejectsTables() else { return }
        let rows = try db.prepare("SELECT source, record, id, reason, excerpt FROM rejects ORDER BY rowid")
        while try rows.step() {
            try body(
                StoredReject(
                    source: rows.string(0) ?? "", record: rows.string(1) ?? "", id: rows.string(2),
                    reason: rows.string(3) ?? "", excerpt: rows.string(4) ?? ""))
        }
    }

    /// The rejects held per file, files in the order they were committed; nil for a store
    /// without the tables.
    public func rejectCounts() throws -> [StoredRejectCounts]? {
        guard try hasRejectsTables() else { return nil }
        let rows = try db.prepare(
            """
            SELECT sha256, source, reason, count(*), min(rowid) AS first FROM rejects
            GROUP BY sha256, source, reason ORDER BY first
            """)
        var files: [StoredRejectCounts] = []
        var index: [String: Int] = [:]
        while try rows.step() {
            let sha256 = rows.string(0) ?? "", source = rows.string(1) ?? ""
            let key = sha256 + "\u{0}" + source
            if index[key] == nil {
                index[key] = files.count
                files.append(StoredRejectCounts(source: source, sha256: sha256, byReason: [:]))
            }
            files[index[key]!].byReason[rows.string(2) ?? "", default: 0] += Int(rows.int64(3))
        }
        return files
    }

    /// The rejects file last made from the table (as the ingest was given it); nil when none was.
    public func rejectsFilePath() throws -> String? {
        guard try hasRejectsTables() else { return nil }
        let row = try db.prepare("SELECT path FROM rejects_file WHERE id = 1")
        return try row.step() ? row.string(0) : nil
    }

    /// Records where the rejects file was made (its own small transaction; under the lock).
    public func recordRejectsFilePath(_ path: String) throws {
        guard try hasRejectsTables(), try rejectsFilePath() != path else { return }
        let upsert = try db.prepare(
            """
            INSERT INTO rejects_file(id, path) VALUES(1, ?) ON CONFLICT(id) DO UPDATE SET path = excluded.path
            """)
        upsert.bind(1, text: path)
        try upsert.run()
    }
}
