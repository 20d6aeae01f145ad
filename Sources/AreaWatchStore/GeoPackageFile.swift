/// A new OGC GeoPackage 1.3 file of feature layers in EPSG:4326 (docs/FORMATS.md "grid.gpkg"),
/// written once from start to finish: the required tables, each layer's rows in one transaction
/// through prepared multi-row inserts, then per layer its R-tree (the `gpkg_rtree_index` extension)
/// filled once with the triggers GDAL writes, and QGIS's `layer_styles`. No wall-clock time
/// enters the file: `lastChange` is the caller's, so the same content gives the same bytes.
public final class GeoPackageFile {
    public static let geometryColumn = "geom"
    public static let srsID: Int32 = 4326
    /// 'GPKG' (PRAGMA application_id) and 1.3.0 (PRAGMA user_version).
    public static let applicationID: Int32 = 0x4750_4B47
    public static let userVersion: Int32 = 10300

    let database: SQLiteDatabase
    let path: String
    let lastChange: String
    private var layers: [GeoPackageLayer] = []
    private var hasStyles = false

    /// Creates the file at `path`, which must not hold a database yet. `lastChange` is
    /// `gpkg_contents.last_change` and the styles' `update_time` (`YYYY-MM-DDTHH:MM:SS.SSSZ`).
    public init(path: String, lastChange: String) throws {
        database = try SQLiteDatabase(path: path, create: true, spatiaLite: false)
        self.path = path
        self.lastChange = lastChange
        guard try database.integer("PRAGMA page_count") == 0 else {
            throw StoreError(path: path, code: .error, message: "a GeoPackage is written into a new file only")
        }
        // The file is built in a work folder published whole (or dropped): no journal, no syncs.
        try database.execute(
            """
            PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
            PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -32768;
            PRAGMA application_id = \(Self.applicationID); PRAGMA user_version = \(Self.userVersion);
            BEGIN;
            """ + GeoPackageSQL.requiredTables)
        let srs = try database.prepare("INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)")
        for row in GeoPackageSQL.spatialReferenceSystems {
            try srs.bind(row)
            try srs.run()
        }
    }

    /// Adds an empty feature layer (`fid`, `geom`, then `columns`) and registers it.
    public func addLayer(
        _ name: String, geometry: GeoPackageGeometry, columns: [GeoPackageColumn],
        description: String
    ) throws -> GeoPackageLayer {
        let q = GeoPackageSQL.quoted
        let definitions = columns.map { "\(q($0.name)) \($0.kind.rawValue)\($0.notNull ? " NOT NULL" : "")" }
        try database.execute(
            """
            CREATE TABLE \(q(name)) ("fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, \
            \(q(Self.geometryColumn)) \(geometry.rawValue)\(definitions.map { ", " + $0 }.joined()));
            """)
        try database.execute("SAVEPOINT registration")
        let contents = try database.prepare(
            """
            INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id)
            VALUES (?, 'features', ?, ?, ?, ?)
            """)
        try contents.bind([
            .text(name), .text(name), .text(description), .text(lastChange),
            .integer(Int64(Self.srsID))
        ])
        try contents.run()
        let geometryColumns = try database.prepare("INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)")
        try geometryColumns.bind([
            .text(name), .text(Self.geometryColumn), .text(geometry.rawValue),
            .integer(Int64(Self.srsID))
        ])
        try geometryColumns.run()
        try database.execute("RELEASE registration")
        let layer = try GeoPackageLayer(database: database, name: name, geometry: geometry, columns: columns)
        layers.append(layer)
        return layer
    }

    /// Adds a style QGIS applies when it opens `layer` (useAsDefault = 1): QML and SLD 1.1.
    public func addStyle(layer: String, name: String, qml: String, sld: String, description: String) throws {
        if !hasStyles {
            try database.execute(GeoPackageSQL.layerStyles)
            let register = try database.prepare(
                """
                INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change)
                VALUES ('layer_styles', 'attributes', 'layer_styles', '', ?)
                """)
            try register.bind([.text(lastChange)])
            try register.run()
            hasStyles = true
        }
        let insert = try database.prepare(
            """
            INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName,
                styleQML, styleSLD, useAsDefault, description, owner, update_time)
            VALUES ('', '', ?, ?, ?, ?, ?, 1, ?, '', ?)
            """)
        try insert.bind([
            .text(layer), .text(Self.geometryColumn), .text(name), .text(qml), .text(sld),
            .text(description), .text(lastChange)
        ])
        try insert.run()
    }

    /// Fills each layer's R-tree and extent, adds the triggers that keep the index right when
    /// the file is edited later, commits and closes. Nothing may use the file object afterwards.
    public func finish() throws {
        for layer in layers { try layer.finish(lastChange: lastChange) }
        let roots = try layers.map { layer in
            let sql = "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?"
            guard let root = try database.integer(sql, [.text(layer.name)]) else {
                throw StoreError(path: path, code: .error, message: "layer \(layer.name) has no table")
            }
            return Int(root)
        }
        try database.execute("COMMIT")
        database.close()
        try SQLiteFilePages.append(zip(layers.map(\.records), roots).map { ($0, $1) }, toFile: path)
    }
}

/// A feature layer's declared geometry type.
public enum GeoPackageGeometry: String, Sendable {
    case point = "POINT"
    case polygon = "POLYGON"
    case multiPolygon = "MULTIPOLYGON"
}

/// An attribute column: SQLite's declared type as GDAL maps it (TEXT → String, INTEGER →
/// Integer64, REAL → Real).
public struct GeoPackageColumn: Sendable, Equatable {
    public enum Kind: String, Sendable { case text = "TEXT", integer = "INTEGER", real = "REAL" }

    public var name: String
    public var kind: Kind
    public var notNull: Bool

    public init(_ name: String, _ kind: Kind, notNull: Bool = false) {
        self.name = name
        self.kind = kind
        self.notNull = notNull
    }
}

/// A geometry's bounds: x is the longitude, y the latitude.
public struct GeoPackageEnvelope: Sendable, Equatable {
    public var minX, maxX, minY, maxY: Double

    public init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
        (self.minX, self.maxX, self.minY, self.maxY) = (minX, maxX, minY, maxY)
    }

    func union(_ other: GeoPackageEnvelope) -> GeoPackageEnvelope {
        GeoPackageEnvelope(
            minX: min(minX, other.minX), maxX: max(maxX, other.maxX),
            minY: min(minY, other.minY), maxY: max(maxY, other.maxY))
    }
}
