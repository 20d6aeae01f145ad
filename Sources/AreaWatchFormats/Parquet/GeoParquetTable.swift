import AreaWatchCore

/// A table of attribute columns and polygons written as GeoParquet 1.1 (docs/FORMATS.md,
/// "grid.parquet"): the attribute columns in the given order, then `geometry` (WKB) and the
/// `bbox` covering column (a REQUIRED group of REQUIRED doubles xmin, ymin, xmax, ymax), with
/// the `geo` key-value metadata that describes them. Coordinates are longitude/latitude on
/// WGS 84, so `crs` is left out: GeoParquet's default is OGC:CRS84.
///
/// Rows are added column by column in schema order (`add`), ended by their geometry; every
/// `rowGroupRows` rows become a row group, which bounds the memory a table of any size takes.
public final class GeoParquetTable {
    /// Rows per row group: small enough that a group's columns stay a few megabytes, large
    /// enough that per-group overhead (page headers, statistics, a dictionary per chunk) is
    /// negligible.
    public static let rowGroupRows = 65_536
    public static let geometryColumn = "geometry"
    public static let coveringColumn = "bbox"

    private let writer: ParquetWriter
    private let rowGroupRows: Int
    /// The columns, appended to in place (`columns[k].append`, through the array's `_modify`).
    /// Unchecked: a table belongs to one writer on one thread, and every value of every row goes
    /// through it, where the run-time exclusivity bookkeeping would find nothing.
    @exclusivity(unchecked) private var columns: [ParquetColumnData] = []
    private let attributeCount: Int
    private var next = 0
    private var extent: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    private var hasPolygon = false
    private var hasMultiPolygon = false

    /// `attributes`: the columns before the geometry; none may be named `geometry` or `bbox`.
    public init(
        attributes: [ParquetSchema.Leaf], createdBy: String,
        compression: ParquetWriter.Compression = .zstd(level: 1),
        rowGroupRows: Int = GeoParquetTable.rowGroupRows,
        output: @escaping ([UInt8]) throws -> Void
    ) throws {
        precondition(
            !attributes.contains { [Self.geometryColumn, Self.coveringColumn].contains($0.name) },
            "an attribute named as the geometry or its covering")
        let geometry = ParquetSchema.Leaf(Self.geometryColumn, .byteArray, allowsDictionary: false, hasMinMax: false)
        let covering = ["xmin", "ymin", "xmax", "ymax"].map { ParquetSchema.Leaf.double($0) }
        let fields = attributes.map { ParquetSchema.Field.leaf($0) }
        let schema = ParquetSchema(fields + [.leaf(geometry), .group(Self.coveringColumn, covering)])
        writer = try ParquetWriter(schema: schema, compression: compression, createdBy: createdBy, output: output)
        self.rowGroupRows = rowGroupRows
        columns = schema.leaves.map { _, leaf in
            var column = ParquetColumnData(leaf)
            column.reserveCapacity(rows: rowGroupRows)
            return column
        }
        attributeCount = attributes.count
    }

    // MARK: Attributes, in schema order

    public func add(_ v: Int?) { columns[nextColumn()].append(v.map { Int64($0) }) }
    public func add(_ v: Double?) { columns[nextColumn()].append(v) }
    public func add(_ v: String?) { columns[nextColumn()].append(v) }
    public func add(_ v: Bool?) { columns[nextColumn()].append(v) }
    /// A string column's value as UTF-8 bytes already at hand.
    public func add(utf8 v: [UInt8]) { columns[nextColumn()].append(bytes: v) }

    private func nextColumn() -> Int {
        precondition(next < attributeCount, "more attributes than columns")
        next += 1
        return next - 1
    }

    // MARK: Geometry, ending the row

    /// Ends the row with a rectangle (a Polygon, `WKB.appendRectangle`).
    public func endRow(rectangle minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) throws {
        precondition(next == attributeCount, "a row ended before its last attribute")
        columns[attributeCount].appendByteArray {
            WKB.appendRectangle(minX: minX, minY: minY, maxX: maxX, maxY: maxY, to: &$0)
        }
        hasPolygon = true
        try endRow(minX, minY, maxX, maxY)
    }

    /// Ends the row with a Polygon (one member) or a MultiPolygon (several, or none: an empty
    /// MultiPolygon, whose covering is NaN and which adds nothing to the extent), rings as given.
    public func endRow(polygons: [[WKB.Ring]]) throws {
        precondition(next == attributeCount, "a row ended before its last attribute")
        if polygons.count == 1 {
            columns[attributeCount].appendByteArray { WKB.appendPolygon(polygons[0], to: &$0) }
            hasPolygon = true
        } else {
            columns[attributeCount].appendByteArray { WKB.appendMultiPolygon(polygons, to: &$0) }
            hasMultiPolygon = true
        }
        let b = WKB.bounds(polygons)
        try endRow(b?.minX ?? .nan, b?.minY ?? .nan, b?.maxX ?? .nan, b?.maxY ?? .nan)
    }

    /// Ends the row, whose geometry is already in the geometry column, with the covering.
    private func endRow(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) throws {
        columns[attributeCount + 1].append(minX)
        columns[attributeCount + 2].append(minY)
        columns[attributeCount + 3].append(maxX)
        columns[attributeCount + 4].append(maxY)
        if !minX.isNaN { // NaN: an empty geometry, which has no extent
            let e = extent ?? (minX, minY, maxX, maxY)
            extent = (min(e.minX, minX), min(e.minY, minY), max(e.maxX, maxX), max(e.maxY, maxY))
        }
        next = 0
        if columns[0].rowCount >= rowGroupRows { try flush() }
    }

    private func flush() throws {
        // The group's copy of the columns is gone when the call returns, so their arrays are
        // unshared again and emptied in place.
        try writer.writeRowGroup(columns)
        for k in columns.indices { columns[k].removeAll() }
    }

    /// Writes the last row group and the footer with the `geo` metadata.
    public func finish() throws {
        precondition(next == 0, "a row left unfinished")
        try flush()
        try writer.finish(keyValues: [("geo", geoMetadata.serialized())])
    }

    // MARK: GeoParquet metadata

    /// The `geo` key's JSON: version 1.1.0, the primary column, its encoding, the geometry
    /// types present, the extent of every geometry (left out of a table without rows) and the
    /// covering's column paths.
    var geoMetadata: JSONValue {
        let types = [(hasPolygon, "Polygon"), (hasMultiPolygon, "MultiPolygon")].filter(\.0)
            .map { JSONValue.string($0.1) }
        var geometry: [(String, JSONValue)] = [("encoding", .string("WKB")), ("geometry_types", .array(types))]
        if let e = extent {
            geometry.append(("bbox", .array([e.minX, e.minY, e.maxX, e.maxY].map { .number($0) })))
        }
        let paths = ["xmin", "ymin", "xmax", "ymax"].map { name in
            (name, JSONValue.array([.string(Self.coveringColumn), .string(name)]))
        }
        geometry.append(("covering", .object([("bbox", .object(paths))])))
        return .object([
            ("version", .string("1.1.0")),
            ("primary_column", .string(Self.geometryColumn)),
            ("columns", .object([(Self.geometryColumn, .object(geometry))]))
        ])
    }

    /// Bytes written so far.
    public var bytesWritten: Int64 { writer.bytesWritten }
}
