import AreaWatchCore
import CSQLite

/// An SQLite result code (GRDB's `ResultCode`): the extended code as SQLite reports it, whose low
/// byte is the primary code. `case .busy` in a `switch` matches every extended busy code.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (`SQLITE_IOERR` for `SQLITE_IOERR_FSYNC`, …).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let ok = ResultCode(rawValue: SQLITE_OK)
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    // Extended codes (sqlite3.h's macros of them do not reach Swift).
    public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | 2 << 8)
    public static let readonlyCantInit = ResultCode(rawValue: SQLITE_READONLY | 5 << 8)
    public static let readonlyDirectory = ResultCode(rawValue: SQLITE_READONLY | 6 << 8)
    public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | 6 << 8)
    public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | 8 << 8)

    /// A primary code matches itself and its extended codes; an extended code only itself.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.rawValue & ~0xFF == 0 ? pattern == code.primary : pattern == code
    }

    /// SQLite's name for the code, e.g. `database is locked (SQLITE_BUSY 5)`.
    public var description: String {
        "\(String(cString: sqlite3_errstr(rawValue))) (code \(primary.rawValue)\(rawValue > 0xFF ? ", extended \(rawValue)" : ""))"
    }
}

/// Any failure of the store, carrying the SQL that failed and its arguments (the GRDB way: one
/// rich error type). Its description is one line.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let code: ResultCode
    public let message: String
    public let sql: String?
    /// The arguments bound through `Statement.bind(_:)`, when known.
    public let arguments: [SQLValue]?

    public init(path: String, code: ResultCode, message: String, sql: String? = nil, arguments: [SQLValue]? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// `PATH: MESSAGE (while executing: SQL with arguments [...])`: SQL on one line, cut at
    /// 160 characters; text arguments cut at 32 (they may be incident descriptions).
    public var description: String {
        var text = "\(path): \(StoreError.oneLine(message))"
        if let sql {
            let flat = StoreError.oneLine(sql)
            text += " (while executing: \(flat.count > 160 ? String(flat.prefix(160)) + "…" : flat)"
            if let arguments, !arguments.isEmpty {
                text += " with arguments [" + arguments.map(StoreError.argumentText).joined(separator: ", ") + "]"
            }
            text += ")"
        }
        return text
    }

    /// Whitespace runs, line breaks included, as one space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    static func argumentText(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return "\(v)"
        case .text(let v):
            let flat = oneLine(v)
            return "'" + (flat.count > 32 ? String(flat.prefix(32)) + "…" : flat) + "'"
        }
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
    private let spatialite: SpatiaLiteLibrary?
    private let spatialiteCache: UnsafeMutableRawPointer?

    /// Opens (or creates, when `create`) a database file. `immutable` (read-only only) promises
    /// SQLite that nothing changes the file: no locks, no `-shm`, for read-only media.
    /// `spatiaLite: false` for files that are no store (a GeoPackage needs none of its functions).
    public init(
        path: String, create: Bool, readOnly: Bool = false, immutable: Bool = false,
        spatiaLite: Bool = true
    ) throws {
        _ = SQLiteDatabase.configured
        self.path = path
        let spatialite =
            spatiaLite
            ? try SpatiaLiteLibrary.shared.mapError {
                StoreError(path: path, code: .cantopen, message: $0.message)
            }.get() : nil
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
            | (create && !readOnly ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
            | (immutable ? SQLITE_OPEN_URI : 0)
        let name = immutable && readOnly ? SQLiteDatabase.fileURI(path) + "?immutable=1" : path
        let status = sqlite3_open_v2(name, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(
                path: path, code: ResultCode(rawValue: status), message: "cannot open the store: \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        if let spatialite {
            let cache = spatialite.allocConnection()
            spatialite.initialise(db, cache, 0)
            spatialiteCache = cache
        } else {
            spatialiteCache = nil
        }
        self.spatialite = spatialite
    }

    private var closed = false

    /// Process-wide settings, made once before the first connection opens.
    private static let configured: Int32 = areawatch_sqlite3_disable_memstatus()

    deinit { close() }

    /// Closes the connection (its statements must be finalized first, else SQLite keeps the
    /// file open until they are). Nothing may use the connection afterwards.
    func close() {
        guard !closed else { return }
        closed = true
        sqlite3_close_v2(handle)
        if let spatialiteCache { spatialite?.cleanup(spatialiteCache) }
    }

    /// `file:` URI of a path: `%`, `?` and `#` (which end or escape a URI path) percent-encoded.
    static func fileURI(_ path: String) -> String {
        var uri = Array("file:".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                uri += Array("%\(String(byte, radix: 16, uppercase: true))".utf8)
            default:
                uri.append(byte)
            }
        }
        return String(decoding: uri, as: UTF8.self)
    }

    func error(_ code: Int32, sql: String?, arguments: [SQLValue]? = nil) -> StoreError {
        StoreError(
            path: path, code: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)),
            sql: sql, arguments: arguments)
    }

    /// Runs one or more statements that return no rows we need.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw StoreError(path: path, code: ResultCode(rawValue: status), message: text, sql: sql)
        }
    }

    /// The most parameters one statement may have (SQLITE_LIMIT_VARIABLE_NUMBER).
    public var parameterLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

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

    /// The rowid of the last row inserted.
    public var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }

    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

/// A prepared statement. Reused across rows: bind, step, reset.
public final class Statement {
    let database: SQLiteDatabase
    let sql: String
    private let handle: OpaquePointer
    /// The arguments of the last `bind(_:)`, for errors. The typed binds of the per-row loops
    /// are not recorded: that would cost every row something for the rare failure.
    private var arguments: [SQLValue]?

    /// SQLite copies bound text immediately (SQLITE_TRANSIENT).
    private static let transient = CFunctionPointer.marker(-1, as: sqlite3_destructor_type.self)

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
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        bind(index, text: value)
    }

    /// Binds the text's UTF-8 bytes where they are (a copy of the String would cost the per-row
    /// loops an atomic retain and release per column).
    public func bind(_ index: Int32, text value: String) {
        let bound: Void? = value.utf8.withContiguousStorageIfAvailable { bytes in
            bindText(index, bytes)
        }
        if bound == nil {
            var copy = value
            copy.withUTF8 { bindText(index, $0) }
        }
    }

    /// Binds UTF-8 bytes already at hand as text.
    public func bind(_ index: Int32, utf8 bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { bindText(index, $0) }
    }

    private func bindText(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>, copied: Bool = true) {
        _ = sqlite3_bind_text(
            handle, index, Self.nonNull(bytes).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
            copied ? Statement.transient : nil)
    }

    /// The bytes' address, never nil: a nil pointer would bind NULL, not the empty text or blob.
    private static func nonNull(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawPointer {
        UnsafeRawPointer(bytes.baseAddress ?? ("" as StaticString).utf8Start)
    }

    /// Binds text SQLite reads where it is, without a copy (SQLITE_STATIC): the bytes must stay
    /// valid until the statement has run; `clearBindings()` then drops the reference.
    public func bind(_ index: Int32, borrowedText bytes: UnsafeBufferPointer<UInt8>) {
        bindText(index, bytes, copied: false)
    }

    /// A blob bound as `bind(_:borrowedText:)` binds text.
    public func bind(_ index: Int32, borrowedBlob bytes: UnsafeBufferPointer<UInt8>) {
        sqlite3_bind_blob(handle, index, Self.nonNull(bytes), Int32(bytes.count), nil)
    }

    /// Unbinds every parameter (NULL), releasing what `borrowed` binds refer to.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// Binds a copy of the bytes (SQLITE_TRANSIENT), so they need not outlive the call.
    public func bind(_ index: Int32, blob: RawSpan) {
        blob.withUnsafeBytes {
            _ = sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Statement.transient)
        }
    }

    public func bind(_ arguments: [SQLValue]) throws {
        self.arguments = arguments
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
        throw database.error(status, sql: sql, arguments: arguments)
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

    /// The column's bytes when it holds a blob.
    public func blob(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
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
