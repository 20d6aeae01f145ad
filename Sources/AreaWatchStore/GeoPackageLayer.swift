/// The rows of one feature layer of a `GeoPackageFile`: per row the attributes in column order
/// (`add`), then `endRow` with the geometry. The geometry is stored as GeoPackage binary: the
/// header (magic `GP`, version 0, flags, srs_id, envelope) followed by the caller's WKB. Each row
/// becomes a record of the table in SQLite's format (`fid` NULL, the rowid alias; `geom`; the
/// attributes), numbered in the order rows were added, so `fid` is the row's number, written
/// straight into the table's pages as it ends (`SQLiteTablePages`), which the file lays into
/// itself when it finishes.
public final class GeoPackageLayer {
    public let name: String
    public let geometry: GeoPackageGeometry
    public let columns: [GeoPackageColumn]
    /// Each column's kind, in order (what `nextAttribute` reads for every value).
    private let kinds: [GeoPackageColumn.Kind]
    private let database: SQLiteDatabase
    let records: SQLiteTablePages
    /// Unchecked: a layer belongs to one writer on one thread, and every value of every row
    /// goes through these, where the run-time exclusivity bookkeeping would find nothing.
    /// The row's `fid` and `geom`, and its attributes.
    @exclusivity(unchecked) private var head = SQLiteRecord()
    @exclusivity(unchecked) private var attributes = SQLiteRecord()
    /// The row's geometry as GeoPackage binary.
    @exclusivity(unchecked) private var blob: [UInt8] = []
    /// For the R-tree: the rows with a non-empty geometry (fid) and their bounds.
    @exclusivity(unchecked) private var ids: [Int64] = []
    @exclusivity(unchecked) private var envelopes: [GeoPackageEnvelope] = []
    @exclusivity(unchecked) public private(set) var extent: GeoPackageEnvelope?
    public var rowCount: Int { records.count }

    init(database: SQLiteDatabase, name: String, geometry: GeoPackageGeometry, columns: [GeoPackageColumn]) throws {
        self.database = database
        self.name = name
        self.geometry = geometry
        self.columns = columns
        kinds = columns.map(\.kind)
        records = SQLiteTablePages(pageSize: Int(try database.integer("PRAGMA page_size") ?? 4096))
    }

    // MARK: Attributes, in column order, stored as SQLite's column affinity stores them

    public func add(_ v: Int64?) {
        guard let v else { return addNull() }
        switch nextAttribute() {
        case .integer: attributes.append(v)
        case .real: attributes.append(Double(v))
        case .text: preconditionFailure("an integer in the text column of \(name)")
        }
    }

    public func add(_ v: Int?) { add(v.map { Int64($0) }) }

    /// NaN is stored as NULL (SQLite has no NaN); a whole number in an INTEGER column as an
    /// integer.
    public func add(_ v: Double?) {
        guard let v, !v.isNaN else { return addNull() }
        switch nextAttribute() {
        case .real: attributes.append(v)
        case .integer:
            if let whole = Int64(exactly: v) { attributes.append(whole) } else { attributes.append(v) }
        case .text: preconditionFailure("a number in the text column of \(name)")
        }
    }

    public func add(_ v: String?) {
        guard let v else { return addNull() }
        // A native string's UTF-8 is read in place; a bridged one is copied first.
        if v.utf8.withContiguousStorageIfAvailable({ addText($0.span.bytes) }) == nil {
            addText(Array(v.utf8).span.bytes)
        }
    }

    /// A text column's value as UTF-8 bytes already at hand.
    public func add(utf8 v: [UInt8]) { addText(v.span.bytes) }

    private func addText(_ bytes: RawSpan) {
        precondition(nextAttribute() == .text, "a text in a numeric column of \(name)")
        attributes.appendText(bytes)
    }

    private func addNull() {
        _ = nextAttribute()
        attributes.appendNull()
    }

    /// The kind of the column the next attribute goes to.
    private func nextAttribute() -> GeoPackageColumn.Kind {
        let k = attributes.valueCount
        precondition(k < kinds.count, "more attributes than columns")
        return kinds[k]
    }

    // MARK: Geometry, ending the row

    /// Ends the row: `wkb` appends the geometry's WKB (little-endian, 2D) to the buffer it is
    /// given; `envelope` is its bounds, nil for an empty geometry. Points carry no envelope in
    /// their header (as GDAL writes them); other types carry [minx, maxx, miny, maxy].
    public func endRow(envelope: GeoPackageEnvelope?, wkb: (inout [UInt8]) -> Void) throws {
        precondition(attributes.valueCount == columns.count, "a row ended before its last attribute")
        blob.removeAll(keepingCapacity: true)
        GeoPackageBinary.appendHeader(envelope: geometry == .point ? nil : envelope, empty: envelope == nil, to: &blob)
        wkb(&blob)
        head.appendNull()
        head.appendBlob(blob.span.bytes)
        records.appendRecord(size: attributes.size(after: head)) { attributes.finish(after: &head, to: $0) }
        guard let e = envelope else { return }
        extent = extent?.union(e) ?? e
        guard !e.minX.isNaN else { return }
        ids.append(Int64(records.count))
        envelopes.append(e)
    }

    /// The R-tree packed at once from the rows' bounds (fid = row number; `RTreeBulkLoader`, as
    /// the store's index: SQLite's row-by-row R*Tree inserts would be most of the file's cost),
    /// its triggers, the extension's row and the layer's extent in gpkg_contents.
    func finish(lastChange: String) throws {
        precondition(attributes.valueCount == 0, "a row left unfinished")
        // The rows go in as pages when the file is closed; AUTOINCREMENT's counter is set now,
        // as the INSERTs would have left it.
        if rowCount > 0 {
            let sequence = try database.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)")
            try sequence.bind([.text(name), .integer(Int64(rowCount))])
            try sequence.run()
        }
        let q = GeoPackageSQL.quoted
        let rtree = "rtree_\(name)_\(GeoPackageFile.geometryColumn)"
        try database.execute("CREATE VIRTUAL TABLE \(q(rtree)) USING rtree(id, minx, maxx, miny, maxy)")
        let packing = RTreeBulkLoader.Packing(ids: ids, envelopes: envelopes)
        (ids, envelopes) = ([], [])
        try RTreeBulkLoader.load(database, table: rtree, packing: packing)
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
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: envelope == nil ? 8 : 40))
        var elements = out.mutableSpan
        var header = elements.mutableBytes
        let flags: UInt8 = 0x01 | (envelope == nil ? 0 : 0x02) | (empty ? 0x10 : 0)
        header.storeBytes(of: (0x4750_0000 | UInt32(flags)).bigEndian, toByteOffset: start, as: UInt32.self)
        header.storeBytes(of: GeoPackageFile.srsID.littleEndian, toByteOffset: start + 4, as: Int32.self)
        guard let e = envelope else { return }
        header.storeBytes(of: e.minX.bitPattern.littleEndian, toByteOffset: start + 8, as: UInt64.self)
        header.storeBytes(of: e.maxX.bitPattern.littleEndian, toByteOffset: start + 16, as: UInt64.self)
        header.storeBytes(of: e.minY.bitPattern.littleEndian, toByteOffset: start + 24, as: UInt64.self)
        header.storeBytes(of: e.maxY.bitPattern.littleEndian, toByteOffset: start + 32, as: UInt64.self)
    }
}
