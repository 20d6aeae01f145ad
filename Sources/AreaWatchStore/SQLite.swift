import CSQLite

/// Any failure of the store, carrying the SQL that failed (the GRDB way: one rich error type).
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(path: String, code: Int32, message: String, sql: String? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// SQLITE_BUSY / SQLITE_LOCKED: another connection holds the database.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    public var description: String {
        var text = "\(path): \(message)"
        if let sql { text += " (while executing: \(sql.count > 160 ? String(sql.prefix(160)) + "…" : sql))" }
        return text
    }
}

/// A value bound to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One SQLite connection with SpatiaLite initialised on it. Not shared between threads.
public final class SQLiteDatabase {
    public let path: String
    let handle: OpaquePointer
    private let spatialiteCache: UnsafeMutableRawPointer?

    /// Opens (or creates, when `create`) a database file.
    public init(path: String, create: Bool, readOnly: Bool = false) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
            | (create && !readOnly ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(path: path, code: status, message: "cannot open the store: \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        let cache = spatialite_alloc_connection()
        spatialite_init_ex(db, cache, 0)
        spatialiteCache = cache
    }

    deinit {
        sqlite3_close_v2(handle)
        if let spatialiteCache { spatialite_cleanup_ex(spatialiteCache) }
    }

    func error(_ code: Int32, sql: String?) -> StoreError {
        StoreError(path: path, code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that return no rows we need.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw StoreError(path: path, code: status, message: text, sql: sql)
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.value(0)
    }

    public func integer(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64? {
        if case .integer(let v)? = try scalar(sql, arguments) { return v }
        return nil
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

/// A prepared statement. Reused across rows: bind, step, reset.
public final class Statement {
    let database: SQLiteDatabase
    let sql: String
    private let handle: OpaquePointer

    /// SQLite copies bound text immediately (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(database: SQLiteDatabase, sql: String) throws {
        self.database = database
        self.sql = sql
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw database.error(status, sql: sql) }
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    public func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    public func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    public func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    public func bind(_ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(handle, index); return }
        value.withUTF8 { bytes in
            _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), Statement.transient)
        }
    }

    public func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), Statement.transient)
    }

    public func bind(_ arguments: [SQLValue]) throws {
        for (i, value) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .null: bindNull(index)
            case .integer(let v): bind(index, v)
            case .real(let v): bind(index, v)
            case .text(let v): bind(index, v)
            }
        }
    }

    /// Advances; true when a row is available.
    @discardableResult
    public func step() throws -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.error(status, sql: sql)
    }

    /// Runs the statement to completion (for writes), then resets it for the next use.
    public func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    public func reset() {
        sqlite3_reset(handle)
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's text bytes, valid until the next step or reset.
    public func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    public func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_NULL: return .null
        default: return .text(string(column) ?? "")
        }
    }
}
