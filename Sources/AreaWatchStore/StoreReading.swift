import AreaWatchCore

/// What `areawatch stats` shows.
public struct StoreStats: Sendable {
    public struct Category: Sendable {
        public var name: String
        public var count: Int
    }

    public struct Ingest: Sendable {
        public var file: String
        public var sha256: String
        public var records: Int
        public var accepted: Int
        public var updated: Int
        public var duplicates: Int
        public var rejected: Int
        public var finishedAt: String
        public var bytes: Int64
        public var inserted: Int
        public var format: String
        /// reason → count
        public var rejectsByReason: [String: Int]
    }

    public var incidents = 0
    public var firstTime: Int64?
    public var lastTime: Int64?
    public var bounds: GeoBox?
    public var categories: [Category] = []
    public var ingests: [Ingest] = []
    public var spatialIndexEntries = 0
}

extension IncidentStore {
    /// What the store holds; `categories: false` skips the per-category scan.
    public func stats(categories includeCategories: Bool = true) throws -> StoreStats {
        var stats = StoreStats()
        let summary = try db.prepare(
            "SELECT count(*), min(time), max(time), min(lat), min(lon), max(lat), max(lon) FROM incidents")
        if includeCategories, try summary.step() {
            stats.incidents = Int(summary.int64(0))
            if stats.incidents > 0 {
                stats.firstTime = summary.int64(1)
                stats.lastTime = summary.int64(2)
                stats.bounds = GeoBox(
                    minLat: summary.double(3), minLon: summary.double(4),
                    maxLat: summary.double(5), maxLon: summary.double(6))
            }
        }
        if includeCategories {
            let categories = try db.prepare(
                "SELECT coalesce(category, ''), count(*) FROM incidents GROUP BY 1 ORDER BY 2 DESC, 1")
            while try categories.step() {
                stats.categories.append(.init(name: categories.string(0) ?? "", count: Int(categories.int64(1))))
            }
        }
        let ingests = try db.prepare(
            """
            SELECT file, sha256, records, accepted, updated, duplicates, rejected, finished_at, bytes, inserted, format,
                   rejects_by_reason
            FROM ingests ORDER BY rowid
            """)
        while try ingests.step() {
            stats.ingests.append(
                .init(
                    file: ingests.string(0) ?? "", sha256: ingests.string(1) ?? "",
                    records: Int(ingests.int64(2)), accepted: Int(ingests.int64(3)),
                    updated: Int(ingests.int64(4)), duplicates: Int(ingests.int64(5)),
                    rejected: Int(ingests.int64(6)), finishedAt: ingests.string(7) ?? "",
                    bytes: ingests.int64(8), inserted: Int(ingests.int64(9)), format: ingests.string(10) ?? "",
                    rejectsByReason: IncidentStore.reasonCounts(ingests.string(11))))
        }
        if includeCategories {
            stats.spatialIndexEntries = Int(try db.integer("SELECT count(*) FROM idx_incidents_geom") ?? 0)
        }
        return stats
    }

    /// Progress of a scan: rows read so far, of `total` (the rows the store holds; the last call
    /// has every row read and the real count).
    public typealias ScanProgress = (_ rows: Int, _ total: Int) -> Void

    /// Every incident as query columns, in store order. `groupBy` loads one attribute too
    /// (the category is always loaded).
    public func loadColumns(
        groupBy: BreakdownField? = nil, keepKeys: Bool = false,
        progress: ScanProgress? = nil
    ) throws -> IncidentColumns {
        try scanColumns(groupBy: groupBy, keepKeys: keepKeys, progress: progress).columns
    }

    /// `loadColumns`, and whether the rows are rowids 1…n (what a column snapshot records).
    /// Rowid order is the table's own: the scan reads the table's B-tree front to back.
    public func scanColumns(
        groupBy: BreakdownField? = nil, keepKeys: Bool = false,
        progress: ScanProgress? = nil
    ) throws -> (columns: IncidentColumns, denseRowids: Bool) {
        var columns = IncidentColumns()
        // The largest rowid: the row count, as rows are never deleted and a conflict takes no rowid.
        let expected = try approximateCount()
        columns.reserveCapacity(expected)
        let attribute = groupBy?.attribute
        let select =
            "SELECT lat, lon, time, handled, category, " + (keepKeys ? "key" : "NULL")
            + (attribute == nil ? ", NULL" : ", json_extract(attrs, ?)") + ", rowid FROM incidents ORDER BY rowid"
        let statement = try db.prepare(select)
        if let attribute { statement.bind(1, "$.\"" + attribute.replacingQuotes() + "\"") }
        // Categories repeat on every row: each distinct one becomes a String and a column index
        // once, not a String and a hash per row.
        let categoryTexts = TextInterner()
        var categoryIDs: [Int32] = []
        var n = 0
        var dense = true
        while try statement.step() {
            let handled: Bool? = statement.isNull(3) ? nil : statement.int64(3) != 0
            var categoryID: Int32 = -1
            if let bytes = statement.bytes(4) {
                if let entry = categoryTexts.entry(bytes.span) {
                    if entry == categoryIDs.count { // entries are numbered as first seen
                        categoryIDs.append(columns.internCategory(categoryTexts.text(ofEntry: entry)))
                    }
                    categoryID = categoryIDs[entry]
                } else {
                    categoryID = columns.internCategory(String(decoding: bytes, as: UTF8.self))
                }
            }
            columns.append(
                lat: statement.double(0), lon: statement.double(1), time: statement.int64(2),
                handled: handled, categoryID: categoryID,
                group: attribute == nil ? nil : statement.string(6), key: keepKeys ? statement.string(5) : nil)
            n += 1
            if dense && statement.int64(7) != Int64(n) { dense = false }
            if let progress, n & 0xFFFF == 0 { progress(n, max(n, expected)) }
        }
        progress?(n, n)
        return (columns, dense)
    }

    /// Runs `body` in one read transaction: everything it reads comes from the same state of the
    /// store, even when an ingest commits meanwhile.
    public func reading<T>(_ body: () throws -> T) throws -> T {
        try db.execute("BEGIN")
        defer { try? db.execute("COMMIT") }
        return try body()
    }

    /// SQLite's integrity check, SpatiaLite's spatial index check and a point-in-box check of every
    /// index entry; empty when all is well. Reads one snapshot and writes nothing, so it works on
    /// a read-only store and beside a running ingest; a check that cannot run is a `StoreError`.
    public func check() throws -> [String] {
        // One read transaction: the counts compared below come from the same snapshot even when
        // an ingest commits meanwhile.
        try db.execute("BEGIN")
        defer { try? db.execute("ROLLBACK") }
        var problems: [String] = []
        let integrity = try db.prepare("PRAGMA integrity_check")
        while try integrity.step() {
            let line = integrity.string(0) ?? ""
            if line != "ok" { problems.append("integrity: \(line)") }
        }
        // SQLite's structural check of the R*Tree (parents, bounds, rowid map) ...
        if case .text(let verdict)? = try db.scalar("SELECT rtreecheck('idx_incidents_geom')"), verdict != "ok" {
            problems.append("spatial index structure: \(verdict)")
        }
        // ... and SpatiaLite's check that it holds every geometry's box. CheckSpatialIndex()
        // logs itself into `spatialite_history`: a write, which waited for a running ingest and
        // then failed with "database is locked" printed by SpatiaLite while the check passed.
        // A temporary table of that name takes the row instead (unqualified names resolve to
        // `temp` first), so the store is not written.
        try db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS spatialite_history AS SELECT * FROM main.spatialite_history WHERE 0")
        switch try db.scalar("SELECT CheckSpatialIndex('incidents', 'geom')") {
        case .integer(1)?:
            break
        case .integer(0)?:
            problems.append("spatial index: idx_incidents_geom does not match the geometries (run RecoverSpatialIndex)")
        case let other:
            // NULL: one of SpatiaLite's own statements failed (it prints the reason, not returns it).
            throw StoreError(
                path: path, code: .error,
                message: "SpatiaLite's spatial index check could not run "
                    + "(CheckSpatialIndex returned \(other.map { "\($0)" } ?? "nothing"); see the SQL error above)",
                sql: "SELECT CheckSpatialIndex('incidents', 'geom')")
        }
        let count = try db.integer("SELECT count(*) FROM incidents") ?? 0
        let indexed = try db.integer("SELECT count(*) FROM idx_incidents_geom") ?? 0
        if count != indexed { problems.append("spatial index: \(indexed) entries for \(count) incidents") }
        // CheckSpatialIndex() passes an index whose entry boxes were moved away from their
        // points (seen with SpatiaLite 5), yet a spatial query then misses those incidents:
        // every incident must have an entry whose box holds its point.
        let misplaced =
            try db.integer(
                """
                SELECT count(*) FROM incidents AS i LEFT JOIN idx_incidents_geom AS r ON r.pkid = i.rowid
                WHERE i.geom IS NOT NULL AND (r.pkid IS NULL OR NOT (r.xmin <= ST_X(i.geom) AND r.xmax >= ST_X(i.geom)
                    AND r.ymin <= ST_Y(i.geom) AND r.ymax >= ST_Y(i.geom)))
                """) ?? 0
        if misplaced > 0 {
            problems.append(
                "spatial index: \(misplaced) incident(s) without an entry holding their point in idx_incidents_geom (run RecoverSpatialIndex)"
            )
        }
        return problems
    }
}

extension IncidentStore {
    /// Parses the `rejects_by_reason` column (`{"reason":n,…}`).
    static func reasonCounts(_ text: String?) -> [String: Int] {
        guard let text else { return [:] }
        var counts: [String: Int] = [:]
        for part in text.trimming("{}").split(separator: ",") {
            let pair = part.split(separator: ":")
            if pair.count == 2, let n = Int(pair[1]) { counts[String(pair[0].filter { $0 != "\"" })] = n }
        }
        return counts
    }
}

private extension String {
    func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "\"" ? "\\\"" : String(c) }
        return out
    }
}
