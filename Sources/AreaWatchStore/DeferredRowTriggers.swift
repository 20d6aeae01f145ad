/// A row-by-row file's per-row triggers on `incidents`, suspended for its transaction and their
/// effect applied once before COMMIT.
///
/// Why (docs/PERFORMANCE.md, "Store"): SpatiaLite's triggers run three statements per inserted
/// row besides the spatial index entry — a geometry check through a subquery, `RTreeAlign`, which
/// prepares its INSERT anew on every call, and an UPDATE of `geometry_columns_time` — and the
/// stamp's trigger a fourth; together they cost several times the row's own INSERT. Applied here:
/// - `ggi_`/`ggu_` (geometry type and SRID): every geometry areawatch writes is a POINT in SRID
///   4326 (`PointBlob`), so the check holds by construction;
/// - `gii_`/`giu_` (spatial index): each inserted or moved row's entry is deleted and inserted
///   again, in the order the rows were written, through one prepared statement each — the
///   entries `RTreeAlign` writes, in the same order, so the R*Tree is the one the triggers build;
/// - `tmi_`/`tmu_` (last insert and update times): set once, at the end;
/// - `store_state_*` (the stamp): the transaction advances the stamp itself before COMMIT.
/// The triggers are put back verbatim inside the same transaction, so any other writer (QGIS,
/// the `spatialite` tool) finds them as before. A table with a trigger not in this list keeps
/// every trigger running row by row (`suspend` returns nil): its effect is not known here.
final class DeferredRowTriggers {
    /// The triggers whose effect is applied here, by name. Deletes never happen in an ingest, so
    /// their triggers need nothing but to be restored.
    static let known: Set<String> = [
        "ggi_incidents_geom", "ggu_incidents_geom", "gii_incidents_geom", "giu_incidents_geom",
        "gid_incidents_geom", "tmi_incidents_geom", "tmu_incidents_geom", "tmd_incidents_geom",
        "store_state_insert", "store_state_update", "store_state_delete"
    ]

    private let db: SQLiteDatabase
    /// The suspended triggers' CREATE statements, by name.
    private let saved: [(name: String, sql: String)]
    /// Rows whose spatial index entry is due, in the order they were written (a row inserted and
    /// then moved by the same file appears twice; the last point wins, as with the triggers).
    private var points = IncidentStore.PointRows()
    private var insertedAny = false
    private var updatedAny = false

    private init(db: SQLiteDatabase, saved: [(name: String, sql: String)]) {
        self.db = db
        self.saved = saved
    }

    /// Drops the triggers on `incidents` inside the caller's transaction; nil (nothing dropped)
    /// when one of them is not known.
    static func suspend(_ db: SQLiteDatabase) throws -> DeferredRowTriggers? {
        let select = try db.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'incidents' ORDER BY name")
        var saved: [(name: String, sql: String)] = []
        while try select.step() {
            let name = select.string(0) ?? ""
            guard known.contains(name), let sql = select.string(1) else { return nil }
            saved.append((name, sql))
        }
        for trigger in saved { try db.execute("DROP TRIGGER \"\(trigger.name)\"") }
        return DeferredRowTriggers(db: db, saved: saved)
    }

    private func has(_ name: String) -> Bool { saved.contains { $0.name == name } }

    /// A row the file inserted.
    func inserted(rowid: Int64, lat: Double, lon: Double) {
        insertedAny = true
        points.append(rowid: rowid, lat: lat, lon: lon)
    }

    /// A row the file updated (its point may have moved).
    func updated(rowid: Int64, lat: Double, lon: Double) {
        updatedAny = true
        points.append(rowid: rowid, lat: lat, lon: lon)
    }

    /// Applies what the triggers would have done and restores them. Inside the transaction,
    /// after the file's last write.
    func apply() throws {
        if has("gii_incidents_geom") || has("giu_incidents_geom") {
            let remove = try db.prepare("DELETE FROM idx_incidents_geom WHERE pkid = ?")
            let add = try db.prepare(
                "INSERT INTO idx_incidents_geom(pkid, xmin, xmax, ymin, ymax) VALUES(?, ?, ?, ?, ?)")
            for k in points.rowids.indices {
                remove.bind(1, points.rowids[k])
                try remove.run()
                add.bind(1, points.rowids[k])
                add.bind(2, points.lons[k])
                add.bind(3, points.lons[k])
                add.bind(4, points.lats[k])
                add.bind(5, points.lats[k])
                try add.run()
            }
        }
        points = IncidentStore.PointRows()
        for (column, applies) in [
            ("last_insert", insertedAny && has("tmi_incidents_geom")),
            ("last_update", updatedAny && has("tmu_incidents_geom"))
        ] where applies {
            try db.execute(
                """
                UPDATE geometry_columns_time SET \(column) = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                WHERE Lower(f_table_name) = Lower('incidents') AND Lower(f_geometry_column) = Lower('geom')
                """)
        }
        for trigger in saved { try db.execute(trigger.sql) }
    }
}
