/// The SQL of a GeoPackage 1.3 file: the required tables as the standard (and GDAL) define them,
/// the spatial reference systems, the R-tree triggers and QGIS's style table.
enum GeoPackageSQL {
    /// `"name"`, inner quotes doubled.
    static func quoted(_ identifier: String) -> String {
        "\"" + String(identifier.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }

    static let requiredTables = """
        CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY,
          organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
          description TEXT);
        CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
          identifier TEXT UNIQUE, description TEXT DEFAULT '',
          last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
          min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
          CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
        CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
          geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
          CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
          CONSTRAINT uk_gc_table_name UNIQUE (table_name),
          CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
          CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
        CREATE TABLE gpkg_extensions (table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL,
          definition TEXT NOT NULL, scope TEXT NOT NULL,
          CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
        """

    /// EPSG:4326 as GDAL defines it in GeoPackages (axis order aside, a GeoPackage geometry's x
    /// is always the longitude).
    static let wgs84 =
        "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,"
        + "AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,"
        + "AUTHORITY[\"EPSG\",\"8901\"]],UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],"
        + "AXIS[\"Latitude\",NORTH],AXIS[\"Longitude\",EAST],AUTHORITY[\"EPSG\",\"4326\"]]"

    /// The two rows every GeoPackage holds (undefined cartesian and geographic) and EPSG:4326.
    static let spatialReferenceSystems: [[SQLValue]] = [
        [
            .text("Undefined cartesian SRS"), .integer(-1), .text("NONE"), .integer(-1), .text("undefined"),
            .text("undefined cartesian coordinate reference system")
        ],
        [
            .text("Undefined geographic SRS"), .integer(0), .text("NONE"), .integer(0), .text("undefined"),
            .text("undefined geographic coordinate reference system")
        ],
        [
            .text("WGS 84 geodetic"), .integer(4326), .text("EPSG"), .integer(4326), .text(wgs84),
            .text("longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid")
        ]
    ]

    static let rtreeDefinition = "http://www.geopackage.org/spec120/#extension_rtree"

    /// The six triggers of the R-tree extension (GeoPackage 1.3 Annex F.3), which keep the index
    /// right when a tool edits the layer; created after the bulk fill, which they would slow.
    static func rtreeTriggers(table: String, column: String) -> String {
        let t = quoted(table), c = quoted(column), r = quoted("rtree_\(table)_\(column)")
        let name = { (suffix: String) in quoted("rtree_\(table)_\(column)_\(suffix)") }
        let values = "(NEW.fid, ST_MinX(NEW.\(c)), ST_MaxX(NEW.\(c)), ST_MinY(NEW.\(c)), ST_MaxY(NEW.\(c)))"
        return """
            CREATE TRIGGER \(name("insert")) AFTER INSERT ON \(t)
              WHEN (NEW.\(c) NOT NULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN INSERT OR REPLACE INTO \(r) VALUES \(values); END;
            CREATE TRIGGER \(name("update1")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.fid = NEW.fid AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN INSERT OR REPLACE INTO \(r) VALUES \(values); END;
            CREATE TRIGGER \(name("update2")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.fid = NEW.fid AND (NEW.\(c) IS NULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid; END;
            CREATE TRIGGER \(name("update3")) AFTER UPDATE ON \(t)
              WHEN OLD.fid != NEW.fid AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid; INSERT OR REPLACE INTO \(r) VALUES \(values); END;
            CREATE TRIGGER \(name("update4")) AFTER UPDATE ON \(t)
              WHEN OLD.fid != NEW.fid AND (NEW.\(c) IS NULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id IN (OLD.fid, NEW.fid); END;
            CREATE TRIGGER \(name("delete")) AFTER DELETE ON \(t) WHEN old.\(c) NOT NULL
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid; END;
            """
    }

    /// QGIS's style table as it creates it in a GeoPackage (through GDAL, `id` the key).
    static let layerStyles = """
        CREATE TABLE layer_styles ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
          "f_table_catalog" TEXT(256), "f_table_schema" TEXT(256), "f_table_name" TEXT(256),
          "f_geometry_column" TEXT(256), "styleName" TEXT(30), "styleQML" TEXT, "styleSLD" TEXT,
          "useAsDefault" BOOLEAN, "description" TEXT, "owner" TEXT(30), "ui" TEXT(30),
          "update_time" DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
        """
}
