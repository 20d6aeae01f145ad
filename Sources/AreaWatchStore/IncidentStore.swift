import AreaWatchCore
import CAreaWatchSystem
import CSQLite
import Dispatch
import Glibc

/// The areawatch store (SPEC §5): an SQLite + SpatiaLite database holding `incidents` with a
/// POINT geometry and spatial index, the `ingests` log and the files' `rejects`. See docs/SCHEMA.md.
public final class IncidentStore {
    public let path: String
    /// The connection; replaced once when a staged store is published (`publishIfStaged`).
    private(set) var db: SQLiteDatabase
    public let mode: Mode
    /// While a new store is built beside its path (`staged`), the file being built; nil once
    /// it is in place, and for every store opened where it already was.
    public private(set) var stagingPath: String?
    /// `deferCheckpoints()` was asked for (re-applied to the connection a publish opens).
    var checkpointsDeferred = false

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
    ///
    /// `staged` (`.create` only; the caller holds the store's lock): a store that does not exist
    /// yet is built as `<path>.new`, without a journal on disk and without syncs, and renamed into
    /// place by `publishIfStaged` once its first file is committed (`FileTransaction.commit`).
    /// Measured need (docs/PERFORMANCE.md): in WAL mode a bulk load writes every page twice (log,
    /// then checkpoint) with two syncs; a crash while building leaves only `<path>.new`, which
    /// the next writer removes, never a partial store under `path`.
    public init(path: String, mode: Mode, staged: Bool = false) throws {
        self.path = path
        self.mode = mode
        let exists = access(path, F_OK) == 0
        if !exists && mode != .create {
            throw StoreError(
                path: path, code: .cantopen, message: "no store here (ingest something first, or give --db)")
        }
        if mode == .create && !exists { IncidentStore.makeParentFolders(of: path) }
        do {
            if mode == .readOnly {
                db = try IncidentStore.openReadOnly(path: path)
            } else if staged && !exists {
                let building = path + ".new"
                IncidentStore.removeStaging(building)
                db = try IncidentStore.openStaging(building)
                stagingPath = building
            } else {
                // A link left by a build killed right after it was put in place.
                if staged { IncidentStore.removeStaging(path + ".new") }
                db = try SQLiteDatabase(path: path, create: mode == .create)
                try db.execute(IncidentStore.writablePragmas)
            }
            try db.execute(IncidentStore.cachePragmas)
            let tables = try db.integer("SELECT count(*) FROM sqlite_master") ?? 0
            if tables == 0 {
                guard mode == .create else {
                    throw StoreError(path: path, code: .error, message: "not an areawatch store (an empty database)")
                }
                try createSchema()
            } else if try db.integer(
                "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('incidents','ingests')") != 2
            {
                throw StoreError(
                    path: path, code: .error, message: "not an areawatch store (no incidents/ingests tables)")
            }
            if mode != .readOnly { try ensureStamp() }
        } catch let error as StoreError {
            switch error.code {
            case .notadb, .corrupt:
                throw StoreError(
                    path: path, code: error.code,
                    message: "not a valid store: \(error.message) (truncated or not an SQLite database)",
                    sql: error.sql, arguments: error.arguments)
            default:
                throw error
            }
        }
    }

    static let writablePragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL"
    static let cachePragmas = "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY"

    deinit {
        // A store never published (its first file failed with a store error) is not left behind.
        if let stagingPath { IncidentStore.removeStaging(stagingPath) }
    }

    /// A connection to a store being built. A rollback journal in memory still undoes a failed
    /// file (pages a file appends are not even journaled); nothing is synced until `publishIfStaged`.
    private static func openStaging(_ building: String) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: building, create: true)
        try db.execute("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF")
        try db.execute(IncidentStore.cachePragmas)
        return db
    }

    /// Removes a staged store file and its journal (left by a killed build; under the lock).
    private static func removeStaging(_ building: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(building + suffix) }
    }

    /// Puts a staged store in place: rollback journal mode, connection closed, file synced,
    /// linked under `path` (which must still be free) and the staging name removed, folder
    /// synced; then reopened in WAL mode as any store. Nothing to do for a store in place.
    public func publishIfStaged() throws {
        guard let building = stagingPath else { return }
        guard !db.isInTransaction else {
            throw StoreError(path: path, code: .misuse, message: "cannot publish a store inside a transaction")
        }
        try db.execute("PRAGMA journal_mode=DELETE")
        db.close()
        do {
            let fd = open(building, O_RDONLY | O_CLOEXEC)
            guard fd >= 0, fsync(fd) == 0 else {
                let message = String(cString: strerror(errno))
                if fd >= 0 { close(fd) }
                throw StoreError(path: path, code: .ioerr, message: "cannot sync the new store \(building): \(message)")
            }
            close(fd)
            // link() fails when `path` exists: a store made there meanwhile is never replaced.
            // Where the file system has no hard links, rename() after checking the path is free
            // (writers hold the store's lock, so nothing of ours races it).
            var failure: Int32 = link(building, path) == 0 ? 0 : errno
            if failure != 0 && failure != EEXIST && access(path, F_OK) != 0 {
                failure = rename(building, path) == 0 ? 0 : errno
            }
            guard failure == 0 else {
                let message =
                    failure == EEXIST || access(path, F_OK) == 0
                    ? "a file appeared at the store's path while the store was being built"
                    : String(cString: strerror(failure))
                throw StoreError(
                    path: path, code: .cantopen, message: "cannot put the new store \(building) in place: \(message)")
            }
        } catch {
            // Still staged, and usable as before.
            db = try IncidentStore.openStaging(building)
            throw error
        }
        stagingPath = nil
        unlink(building) // after a link; after a rename there is nothing left to remove
        IncidentStore.syncFolder(of: path)
        db = try SQLiteDatabase(path: path, create: false)
        try db.execute(IncidentStore.writablePragmas)
        try db.execute(IncidentStore.cachePragmas)
        if checkpointsDeferred { try deferCheckpoints() }
    }

    /// Makes a rename or link in the folder of `path` durable.
    private static func syncFolder(of path: String) {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
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
            case .cantopen, .readonly: break // SQLITE_READONLY_CANTINIT, _DIRECTORY: no -shm
            default: throw error
            }
            var info = stat()
            if stat(path + "-wal", &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0 {
                throw StoreError(
                    path: path, code: error.code,
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
            try db.execute(
                """
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
            try db.execute(IncidentStore.rejectsSchemaSQL)
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
        let triggers = try incidentTriggers()
        try dropTriggers(triggers)
        try db.execute("DROP INDEX IF EXISTS incidents_geohash; DROP INDEX IF EXISTS incidents_time")
        return triggers.map(\.sql)
    }

    /// The triggers on `incidents` (SpatiaLite's and the stamp's), by name: what a bulk load or
    /// a deferred row-by-row file drops and later restores verbatim.
    func incidentTriggers() throws -> [(name: String, sql: String)] {
        let select = try db.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'incidents' ORDER BY name")
        var triggers: [(name: String, sql: String)] = []
        while try select.step() { triggers.append((select.string(0) ?? "", select.string(1) ?? "")) }
        return triggers
    }

    func dropTriggers(_ triggers: [(name: String, sql: String)]) throws {
        for trigger in triggers { try db.execute("DROP TRIGGER \"\(trigger.name)\"") }
    }

    /// Rowids and points of rows, in rowid order: what the spatial index is built from.
    struct PointRows {
        var rowids: [Int64] = []
        var lats: [Double] = []
        var lons: [Double] = []

        mutating func reserveCapacity(_ n: Int) {
            rowids.reserveCapacity(n)
            lats.reserveCapacity(n)
            lons.reserveCapacity(n)
        }

        @inline(__always)
        mutating func append(rowid: Int64, lat: Double, lon: Double) {
            rowids.append(rowid)
            lats.append(lat)
            lons.append(lon)
        }
    }

    /// Ends a bulk load: rebuilds the indexes, rebuilds the R*Tree as a packed tree in Hilbert
    /// order (`RTreeBulkLoader`) and restores the triggers. `inserted`: the rows the load
    /// appended after rowid `after`, unchanged since (nil: every row is read from the table);
    /// emptied.
    /// Returns the seconds of each part, for the ingest log.
    func endBulkLoad(
        triggers: [String], inserted: FileTransaction.InsertedRows?, after: Int64,
        phase: ((String) -> Void)? = nil
    ) throws -> [(part: String, seconds: Double)] {
        var lap = MonotonicClock.now()
        func elapsed() -> Double {
            let now = MonotonicClock.now()
            defer { lap = now }
            return now - lap
        }
        // The rows in hand are packed for the spatial index on another thread meanwhile.
        var packing: BackgroundPacking?
        if let inserted, after == 0 {
            var points = PointRows()
            swap(&points, &inserted.rows) // moved, not copied
            packing = BackgroundPacking(points)
        }
        phase?("building the geohash and time indexes")
        try createSecondaryIndexesInBulk()
        startWriteback()
        let indexes = elapsed()
        phase?("building the spatial index")
        try db.execute(
            """
            DROP TABLE IF EXISTS idx_incidents_geom;
            CREATE VIRTUAL TABLE idx_incidents_geom USING rtree(pkid, xmin, xmax, ymin, ymax);
            """)
        if let packing {
            try RTreeBulkLoader.load(db, table: "idx_incidents_geom", packing: packing.result())
        } else {
            var points = PointRows()
            let read = try db.prepare("SELECT rowid, lat, lon FROM incidents WHERE rowid <= ? ORDER BY rowid")
            read.bind(1, inserted == nil ? Int64.max : after)
            if let inserted { points.reserveCapacity(Int(after) + inserted.rows.rowids.count) }
            while try read.step() {
                points.append(rowid: read.int64(0), lat: read.double(1), lon: read.double(2))
            }
            if let inserted {
                points.rowids += inserted.rows.rowids
                points.lats += inserted.rows.lats
                points.lons += inserted.rows.lons
                inserted.rows = PointRows()
            }
            try RTreeBulkLoader.load(db, table: "idx_incidents_geom", rows: &points)
        }
        for sql in triggers { try db.execute(sql) }
        startWriteback()
        return [("geohash and time indexes", indexes), ("spatial index", elapsed())]
    }

    /// `RTreeBulkLoader.Packing` made on another thread; `result()` waits for it. Why: the
    /// Hilbert sort and gather need nothing from SQLite, and `CREATE INDEX` runs on one core, so
    /// the packing fills the other one.
    private final class BackgroundPacking: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var packing: RTreeBulkLoader.Packing?

        init(_ rows: PointRows) {
            DispatchQueue.global().async { [self] in
                packing = RTreeBulkLoader.Packing(rows)
                done.signal()
            }
        }

        func result() -> RTreeBulkLoader.Packing {
            done.wait()
            defer { packing = nil }
            return packing!
        }
    }

    /// The geohash and time indexes made by `CREATE INDEX`, which sorts the keys with SQLite's
    /// sorter. Why a small cache and temporary files: with temporary storage in memory, or a
    /// cache large enough to hold every key, the sorter sorts all keys in one list, out of the CPU
    /// caches; in runs of a few megabytes merged from temporary files each run is sorted in cache.
    /// Where no temporary file can be made, the in-memory sort is the fallback.
    private func createSecondaryIndexesInBulk() throws {
        defer { try? db.execute(IncidentStore.cachePragmas) }
        do {
            try db.execute("PRAGMA temp_store=FILE; PRAGMA cache_size=-2048")
            try db.execute(IncidentStore.secondaryIndexSQL)
        } catch {
            try db.execute(IncidentStore.cachePragmas)
            try db.execute(IncidentStore.secondaryIndexSQL)
        }
    }

    /// Starts writing a staged store's pages to disk, on another thread, without waiting for it.
    /// Why: a bulk load leaves the whole file in the page cache, below the kernel's own writeback
    /// threshold, and `publishIfStaged`'s `fsync` then wrote all of it while nothing else ran;
    /// started after each index build, the writing overlaps the work that follows. (Submitting
    /// the writes can itself block when the disk's queue is full: hence the other thread.)
    /// Nothing to do for a store in place.
    func startWriteback() {
        guard let stagingPath else { return }
        DispatchQueue.global().async {
            let fd = open(stagingPath, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            _ = aw_start_writeback(fd, 0, 0)
        }
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
