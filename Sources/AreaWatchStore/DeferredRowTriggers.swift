import AreaWatchCore

/// A row-by-row file's per-row triggers on `incidents`, suspended for its transaction and their
/// effect applied once before COMMIT.
///
/// Why (docs/PERFORMANCE.md, "Store"): SpatiaLite's triggers run three statements per inserted
/// row besides the spatial index entry — a geometry check through a subquery, `RTreeAlign`, which
/// prepares its INSERT anew on every call, and an UPDATE of `geometry_columns_time` — and the
/// stamp's trigger a fourth; together they cost several times the row's own INSERT. Applied here:
/// - `ggi_`/`ggu_` (geometry type and SRID): every geometry areawatch writes is a POINT in SRID
///   4326 (`PointBlob`), so the check holds by construction;
/// - `gii_`/`giu_` (spatial index): each inserted or moved row's entry is deleted and its last
///   point inserted, through one prepared statement each: the entries `RTreeAlign` writes (the
///   R*Tree holds the same entries; its nodes differ, as the inserts go in Hilbert order);
/// - `tmi_`/`tmu_` (last insert and update times): set once, at the end;
/// - `store_state_*` (the stamp): the transaction advances the stamp itself before COMMIT.
/// The triggers are put back verbatim inside the same transaction, so any other writer (QGIS,
/// the `spatialite` tool) finds them as before. A table with a trigger not in this list keeps
/// every trigger running row by row (`suspend` returns nil): its effect is not known here.
final class DeferredRowTriggers {
    /// The triggers whose effect is applied here, by name. Deletes never happen in an ingest, so
    /// their triggers need nothing but to be restored.
    static let known = Set(
        [
            "ggi_incidents_geom", "ggu_incidents_geom", "gii_incidents_geom", "giu_incidents_geom",
            "gid_incidents_geom", "tmi_incidents_geom", "tmu_incidents_geom", "tmd_incidents_geom"
        ] + IncidentStore.stampTriggers.keys)

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
    static func suspend(_ store: IncidentStore) throws -> DeferredRowTriggers? {
        let saved = try store.incidentTriggers()
        guard saved.allSatisfy({ known.contains($0.name) }) else { return nil }
        try store.dropTriggers(saved)
        return DeferredRowTriggers(db: store.db, saved: saved)
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
        if has("gii_incidents_geom") || has("giu_incidents_geom") { try writeSpatialIndexEntries() }
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

    /// The spatial index as the triggers leave it: every written row's entry deleted, then each
    /// row's last point inserted. The inserts go in Hilbert order: a packed R-tree stores its
    /// nodes in Hilbert order (`RTreeBulkLoader`), so neighbouring inserts read neighbouring
    /// pages, where file order reads a random page of a store far larger than the cache each time.
    private func writeSpatialIndexEntries() throws {
        let n = points.rowids.count
        guard n > 0 else { return }
        // The last write of each row, rows ascending.
        var order = Array(0..<n)
        order.sort { (points.rowids[$0], $0) < (points.rowids[$1], $1) }
        var last: [Int] = []
        last.reserveCapacity(n)
        for (k, i) in order.enumerated() where k + 1 == n || points.rowids[order[k + 1]] != points.rowids[i] {
            last.append(i)
        }
        let remove = try db.prepare("DELETE FROM idx_incidents_geom WHERE pkid = ?")
        for i in last {
            remove.bind(1, points.rowids[i])
            try remove.run()
        }
        let lats = last.map { points.lats[$0] }, lons = last.map { points.lons[$0] }
        let add = try db.prepare("INSERT INTO idx_incidents_geom(pkid, xmin, xmax, ymin, ymax) VALUES(?, ?, ?, ?, ?)")
        for h in PackedHilbertRTree.hilbertOrder(latitudes: lats, longitudes: lons) {
            let j = Int(h)
            add.bind(1, points.rowids[last[j]])
            add.bind(2, lons[j])
            add.bind(3, lons[j])
            add.bind(4, lats[j])
            add.bind(5, lats[j])
            try add.run()
        }
    }
}
