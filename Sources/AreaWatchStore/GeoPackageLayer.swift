/// The rows of one feature layer of a `GeoPackageFile`: per row the attributes in column order
/// (`add`), then `endRow` with the geometry. The geometry is stored as GeoPackage binary: the
/// header (magic `GP`, version 0, flags, srs_id, envelope) followed by the caller's WKB. Rows go
/// into the table up to 32 at a time, in the order they were added (`PendingRows`), so `fid` is
/// the row's number.
public final class GeoPackageLayer {
    public let name: String
    public let geometry: GeoPackageGeometry
    public let columns: [GeoPackageColumn]
    private let database: SQLiteDatabase
    /// Rows per INSERT: 32, or fewer where SQLite's parameter limit says so.
    private let rowsPerInsert: Int
    /// Released when the layer is finished, so that closing the file releases its lock.
    private var insertBatch: Statement?
    private var pending = PendingRows()
    private var pendingRows = 0
    /// Attributes of the row being added so far.
    private var attributesAdded = 0
    /// minX, maxX, minY, maxY of each row (NaN for an empty geometry), for the R-tree.
    private var envelopes: [Double] = []
    public private(set) var rowCount = 0
    public private(set) var extent: GeoPackageEnvelope?

    init(database: SQLiteDatabase, name: String, geometry: GeoPackageGeometry, columns: [GeoPackageColumn]) throws {
        self.database = database
        self.name = name
        self.geometry = geometry
        self.columns = columns
        rowsPerInsert = max(1, min(32, database.parameterLimit / (columns.count + 1)))
        insertBatch = try database.prepare(Self.insertSQL(name, columns, rows: rowsPerInsert))
    }

    /// `INSERT` of `rows` rows: the attributes in column order, then the geometry.
    private static func insertSQL(_ name: String, _ columns: [GeoPackageColumn], rows: Int) -> String {
        let names = (columns.map(\.name) + [GeoPackageFile.geometryColumn]).map(GeoPackageSQL.quoted)
        let row = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(GeoPackageSQL.quoted(name)) (\(names.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    // MARK: Attributes, in column order

    public func add(_ v: Int64?) {
        nextAttribute()
        if let v { pending.append(v) } else { pending.appendNull() }
    }

    public func add(_ v: Int?) { add(v.map { Int64($0) }) }

    /// NaN is stored as NULL (SQLite has no NaN).
    public func add(_ v: Double?) {
        nextAttribute()
        if let v { pending.append(v) } else { pending.appendNull() }
    }

    public func add(_ v: String?) {
        nextAttribute()
        guard let v else { return pending.appendNull() }
        pending.append(.text) { $0.append(contentsOf: v.utf8) }
    }

    /// A text column's value as UTF-8 bytes already at hand.
    public func add(utf8 v: [UInt8]) {
        nextAttribute()
        pending.append(.text) { $0.append(contentsOf: v) }
    }

    private func nextAttribute() {
        precondition(attributesAdded < columns.count, "more attributes than columns")
        attributesAdded += 1
    }

    // MARK: Geometry, ending the row

    /// Ends the row: `wkb` appends the geometry's WKB (little-endian, 2D) to the buffer it is
    /// given; `envelope` is its bounds, nil for an empty geometry. Points carry no envelope in
    /// their header (as GDAL writes them); other types carry [minx, maxx, miny, maxy].
    public func endRow(envelope: GeoPackageEnvelope?, wkb: (inout [UInt8]) -> Void) throws {
        precondition(attributesAdded == columns.count, "a row ended before its last attribute")
        pending.append(.blob) { out in
            GeoPackageBinary.appendHeader(
                envelope: geometry == .point ? nil : envelope, empty: envelope == nil, to: &out)
            wkb(&out)
        }
        attributesAdded = 0
        pendingRows += 1
        rowCount += 1
        if let e = envelope {
            envelopes.append(e.minX)
            envelopes.append(e.maxX)
            envelopes.append(e.minY)
            envelopes.append(e.maxY)
            extent = extent?.union(e) ?? e
        } else {
            envelopes.append(contentsOf: repeatElement(.nan, count: 4))
        }
        if pendingRows == rowsPerInsert { try insertPending() }
    }

    private func insertPending() throws {
        guard pendingRows > 0 else { return }
        let statement =
            pendingRows == rowsPerInsert
            ? insertBatch : try database.prepare(Self.insertSQL(name, columns, rows: pendingRows))
        guard let statement else { preconditionFailure("a row added to a finished layer") }
        try pending.insert(with: statement)
        pendingRows = 0
    }

    /// The R-tree packed at once from the rows' bounds (fid = row number; `RTreeBulkLoader`, as
    /// the store's index: SQLite's row-by-row R*Tree inserts would be most of the file's cost),
    /// its triggers, the extension's row and the layer's extent in gpkg_contents.
    func finish(lastChange: String) throws {
        precondition(attributesAdded == 0, "a row left unfinished")
        try insertPending()
        insertBatch = nil
        let q = GeoPackageSQL.quoted
        let rtree = "rtree_\(name)_\(GeoPackageFile.geometryColumn)"
        try database.execute("CREATE VIRTUAL TABLE \(q(rtree)) USING rtree(id, minx, maxx, miny, maxy)")
        var ids: [Int64] = [], bounds: [Double] = []
        ids.reserveCapacity(rowCount)
        bounds.reserveCapacity(envelopes.count)
        for row in 0..<rowCount where !envelopes[4 * row].isNaN {
            ids.append(Int64(row + 1))
            bounds.append(contentsOf: envelopes[4 * row..<4 * row + 4])
        }
        envelopes = []
        try RTreeBulkLoader.load(database, table: rtree, packing: .init(ids: ids, bounds: bounds))
        try database.execute(GeoPackageSQL.rtreeTriggers(table: name, column: GeoPackageFile.geometryColumn))
        let ext = try database.prepare("INSERT INTO gpkg_extensions VALUES (?, ?, 'gpkg_rtree_index', ?, 'write-only')")
        try ext.bind([.text(name), .text(GeoPackageFile.geometryColumn), .text(GeoPackageSQL.rtreeDefinition)])
        try ext.run()
        let contents = try database.prepare(
            "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?")
        let e = extent
        try contents.bind([
            e.map { .real($0.minX) } ?? .null, e.map { .real($0.minY) } ?? .null,
            e.map { .real($0.maxX) } ?? .null, e.map { .real($0.maxY) } ?? .null, .text(name)
        ])
        try contents.run()
    }
}

/// The GeoPackage binary header (GeoPackage 1.3 §2.1.3).
public enum GeoPackageBinary {
    /// `GP`, version 0, flags (bit 0 little-endian, bits 1-3 the envelope's kind: 1 = [minx,
    /// maxx, miny, maxy], bit 4 empty), srs_id 4326 little-endian, then the envelope if any.
    public static func appendHeader(envelope: GeoPackageEnvelope?, empty: Bool, to out: inout [UInt8]) {
        let flags: UInt8 = 0x01 | (envelope == nil ? 0 : 0x02) | (empty ? 0x10 : 0)
        out += [0x47, 0x50, 0, flags]
        withUnsafeBytes(of: GeoPackageFile.srsID.littleEndian) { out += $0 }
        guard let e = envelope else { return }
        func append(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 } }
        append(e.minX)
        append(e.maxX)
        append(e.minY)
        append(e.maxY)
    }
}
