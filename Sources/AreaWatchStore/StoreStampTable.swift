import AreaWatchCore

/// The store's write stamp (docs/SCHEMA.md, `store_state`): one row counting the writes to
/// `incidents` and holding a random token redrawn with each. Triggers keep it, so every writer
/// moves it — an older areawatch, the `sqlite3` shell — not only the ingest that knows about
/// column snapshots; the ingest commit moves it once more, because a bulk load runs with the
/// triggers dropped.
extension IncidentStore {
    static let stampTable = "store_state"
    static let stampTriggers = [
        "store_state_insert": "INSERT", "store_state_update": "UPDATE", "store_state_delete": "DELETE"
    ]
    static let advanceSQL = "UPDATE store_state SET generation = generation + 1, token = randomblob(16) WHERE id = 1"

    /// Adds the stamp table, its row and its triggers where they are missing (a store made by an
    /// older areawatch). Write modes only.
    func ensureStamp() throws {
        let names = ["'\(IncidentStore.stampTable)'"] + IncidentStore.stampTriggers.keys.map { "'\($0)'" }
        let present =
            try db.integer("SELECT count(*) FROM sqlite_master WHERE name IN (\(names.joined(separator: ",")))") ?? 0
        let rows = present == 0 ? 0 : try db.integer("SELECT count(*) FROM store_state WHERE id = 1") ?? 0
        guard present != names.count || rows != 1 else { return }
        var sql = """
            CREATE TABLE IF NOT EXISTS store_state(
                id INTEGER PRIMARY KEY CHECK (id = 1),
                generation INTEGER NOT NULL,
                token BLOB NOT NULL);
            INSERT OR IGNORE INTO store_state(id, generation, token) VALUES(1, 0, randomblob(16));

            """
        for (name, event) in IncidentStore.stampTriggers.sorted(by: { $0.key < $1.key }) {
            sql +=
                "CREATE TRIGGER IF NOT EXISTS \(name) AFTER \(event) ON incidents BEGIN \(IncidentStore.advanceSQL); END;\n"
        }
        try db.execute("BEGIN IMMEDIATE")
        do {
            try db.execute(sql)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Moves the stamp on (inside an ingest's transaction).
    func advanceStamp() throws {
        try db.execute(IncidentStore.advanceSQL)
    }

    /// The store's stamp now (inside the caller's transaction, if any); nil when the store has
    /// no stamp table (made by an older areawatch and not written since).
    public func stamp() throws -> StoreStamp? {
        guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'store_state'") == 1
        else { return nil }
        let row = try db.prepare("SELECT generation, token FROM store_state WHERE id = 1")
        guard try row.step(), !row.isNull(0), let token = row.blob(1), token.count == StoreStamp.tokenBytes else {
            return nil
        }
        return StoreStamp(
            generation: row.int64(0), token: token,
            lastIncidentRowid: try db.integer("SELECT max(rowid) FROM incidents") ?? 0,
            lastIngestRowid: try db.integer("SELECT max(rowid) FROM ingests") ?? 0)
    }
}
