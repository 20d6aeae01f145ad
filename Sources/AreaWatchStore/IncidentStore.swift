import Glibc
import AreaWatchCore
import CSQLite

/// The areawatch store (SPEC §5): an SQLite + SpatiaLite database holding `incidents` with a
/// POINT geometry and spatial index, and the `ingests` log. See docs/SCHEMA.md.
public final class IncidentStore {
    public let path: String
    let db: SQLiteDatabase
    public let mode: Mode

    static let schemaVersion: Int64 = 1

    /// How a store is opened.
    public enum Mode: Sendable, Equatable {
        /// Reading and writing; a missing file is made into a new store.
        case create
        /// Reading and writing an existing store.
        case readWrite
        /// Reading only (`stats`, `query`, `report`, `check`): nothing is written, so a store on a
        /// read-only mount or in a folder without write permission can be read
        /// (docs/DECISIONS.md, "read-only stores").
        case readOnly
    }

    /// Opens a store; `create` makes a new one when the file does not exist.
    public convenience init(path: String, create: Bool) throws {
        try self.init(path: path, mode: create ? .create : .readWrite)
    }

    /// Opens a store. A missing file (unless `.create`), a file that is not an SQLite database, or
    /// not an areawatch store, is a `StoreError`.
    public init(path: String, mode: Mode) throws {
        self.path = path
        self.mode = mode
        let exists = access(path, F_OK) == 0
        if !exists && mode != .create {
            throw StoreError(path: path, code: .cantopen, message: "no store here (ingest something first, or give --db)")
        }
        if mode == .create && !exists { IncidentStore.makeParentFolders(of: path) }
        do {
            if mode == .readOnly {
                db = try IncidentStore.openReadOnly(path: path)
            } else {
                db = try SQLiteDatabase(path: path, create: mode == .create)
                try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
            }
            try db.execute("PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY")
            let tables = try db.integer("SELECT count(*) FROM sqlite_master") ?? 0
            if tables == 0 {
                guard mode == .create else {
                    throw StoreError(path: path, code: .error, message: "not an areawatch store (an empty database)")
                }
                try createSchema()
            } else if try db.integer("SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('incidents','ingests')") != 2 {
                throw StoreError(path: path, code: .error, message: "not an areawatch store (no incidents/ingests tables)")
            }
            if mode != .readOnly { try ensureStamp() }
        } catch let error as StoreError {
            switch error.code {
            case .notadb, .corrupt:
                throw StoreError(path: path, code: error.code,
                                 message: "not a valid store: \(error.message) (truncated or not an SQLite database)",
                                 sql: error.sql, arguments: error.arguments)
            default:
                throw error
            }
        }
    }

    /// A read-only connection. In WAL mode even a reader needs the `-shm` file beside the store;
    /// where it cannot be made (a read-only mount or folder) the store is opened `immutable=1`,
    /// which reads the main file without any lock, valid because nothing can write there. Not
    /// when a `-wal` file with content exists: immutable would ignore the commits it holds.
    private static func openReadOnly(path: String) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path, create: false, readOnly: true)
        do {
            _ = try db.integer("SELECT count(*) FROM sqlite_master")
            return db
        } catch let error as StoreError {
            switch error.code {
            case .cantopen, .readonly: break  // SQLITE_READONLY_CANTINIT, _DIRECTORY: no -shm
            default: throw error
            }
            var info = stat()
            if stat(path + "-wal", &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0 {
                throw StoreError(path: path, code: error.code,
                                 message: "cannot read the store: its folder is read-only and its write-ahead log (\(path)-wal) "
                                    + "holds commits not yet in the store; open it once where it is writable (\(error.message))")
            }
            return try SQLiteDatabase(path: path, create: false, readOnly: true, immutable: true)
        }
    }

    private func createSchema() throws {
        try db.execute("BEGIN")
        do {
            // WGS84_ONLY: spatial_ref_sys with SRID 4326 and its relatives, not all 6,000 systems.
            _ = try db.scalar("SELECT InitSpatialMetadata(0, 'WGS84_ONLY')")
            try db.execute("""
                CREATE TABLE incidents(
                    key TEXT PRIMARY KEY NOT NULL,
                    time INTEGER NOT NULL,
                    time_precision TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    geohash TEXT NOT NULL,
                    category TEXT,
                    handled INTEGER,
                    description TEXT,
                    user TEXT,
                    attrs TEXT,
                    source TEXT);
                CREATE TABLE ingests(
                    file TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    bytes INTEGER NOT NULL,
                    records INTEGER NOT NULL,
                    accepted INTEGER NOT NULL,
                    updated INTEGER NOT NULL,
                    duplicates INTEGER NOT NULL,
                    rejected INTEGER NOT NULL,
                    started_at TEXT NOT NULL,
                    finished_at TEXT NOT NULL,
                    inserted INTEGER NOT NULL DEFAULT 0,
                    format TEXT,
                    rejects_by_reason TEXT);
                CREATE INDEX ingests_sha256 ON ingests(sha256);
                """)
            guard try db.integer("SELECT AddGeometryColumn('incidents', 'geom', 4326, 'POINT', 'XY')") == 1 else {
                throw StoreError(path: path, code: .error, message: "SpatiaLite could not add the geometry column")
            }
            try createSecondaryIndexes()
            try db.execute("PRAGMA user_version = \(IncidentStore.schemaVersion)")
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The geohash and time indexes (dropped by a bulk load, made again after it).
    static let secondaryIndexSQL = """
        CREATE INDEX IF NOT EXISTS incidents_geohash ON incidents(geohash);
        CREATE INDEX IF NOT EXISTS incidents_time ON incidents(time);
        """

    /// The geohash and time indexes and the SpatiaLite spatial index (R*Tree on `geom`).
    func createSecondaryIndexes() throws {
        try db.execute(IncidentStore.secondaryIndexSQL)
        guard try db.integer("SELECT CreateSpatialIndex('incidents', 'geom')") == 1 else {
            throw StoreError(path: path, code: .error, message: "SpatiaLite could not create the spatial index")
        }
    }

    /// Starts a bulk load: drops the secondary indexes and SpatiaLite's per-row triggers on
    /// `incidents` (geometry constraint, time tracking, spatial index maintenance). Returns the
    /// trigger definitions, which `endBulkLoad` restores verbatim. Every geometry areawatch
    /// writes is a POINT in SRID 4326, so the constraint the triggers check holds by construction.
    func beginBulkLoad() throws -> [String] {
        var triggers: [String] = []
        let select = try db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'incidents' ORDER BY name")
        var names: [String] = []
        while try select.step() {
            names.append(select.string(0) ?? "")
            triggers.append(select.string(1) ?? "")
        }
        for name in names { try db.execute("DROP TRIGGER \"\(name)\"") }
        try db.execute("DROP INDEX IF EXISTS incidents_geohash; DROP INDEX IF EXISTS incidents_time")
        return triggers
    }

    /// Ends a bulk load: rebuilds the indexes, rebuilds the R*Tree as a packed tree in Hilbert
    /// order (`RTreeBulkLoader`) and restores the triggers.
    /// Returns the seconds of each part, for the ingest log.
    func endBulkLoad(triggers: [String]) throws -> [(part: String, seconds: Double)] {
        var lap = MonotonicClock.now()
        func elapsed() -> Double {
            let now = MonotonicClock.now()
            defer { lap = now }
            return now - lap
        }
        try db.execute(IncidentStore.secondaryIndexSQL)
        let indexes = elapsed()
        try db.execute("""
            DROP TABLE IF EXISTS idx_incidents_geom;
            CREATE VIRTUAL TABLE idx_incidents_geom USING rtree(pkid, xmin, xmax, ymin, ymax);
            """)
        let rows = try db.prepare("SELECT rowid, lat, lon FROM incidents ORDER BY rowid")
        try RTreeBulkLoader.load(db, table: "idx_incidents_geom", rows: rows)
        for sql in triggers { try db.execute(sql) }
        return [("geohash and time indexes", indexes), ("spatial index", elapsed())]
    }

    /// A new store may be named in a folder that does not exist yet (a fresh checkout's
    /// `reports/`): create it, as `mkdir -p` would.
    public static func makeParentFolders(of path: String) {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (k, part) in parts.enumerated() {
            folder += (k == 0 ? "" : "/") + part
            if !folder.isEmpty { mkdir(folder, 0o755) }
        }
    }

    /// Whether a file with this SHA-256 was ingested before.
    public func hasIngested(sha256: String) throws -> Bool {
        try db.integer("SELECT count(*) FROM ingests WHERE sha256 = ?", [.text(sha256)]) ?? 0 > 0
    }

    /// Approximate number of incidents (the largest rowid; rows are never deleted).
    public func approximateCount() throws -> Int {
        Int(try db.integer("SELECT max(rowid) FROM incidents") ?? 0)
    }
}
