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

/// An incident row for `query --list`.
public struct IncidentRow: Sendable {
    public var key: String
    public var time: Int64
    public var lat: Double
    public var lon: Double
    public var category: String?
    public var handled: Bool?
}

extension IncidentStore {
    /// What the store holds; `categories: false` skips the per-category scan.
    public func stats(categories includeCategories: Bool = true) throws -> StoreStats {
        var stats = StoreStats()
        let summary = try db.prepare("SELECT count(*), min(time), max(time), min(lat), min(lon), max(lat), max(lon) FROM incidents")
        if includeCategories, try summary.step() {
            stats.incidents = Int(summary.int64(0))
            if stats.incidents > 0 {
                stats.firstTime = summary.int64(1)
                stats.lastTime = summary.int64(2)
                stats.bounds = GeoBox(minLat: summary.double(3), minLon: summary.double(4),
                                      maxLat: summary.double(5), maxLon: summary.double(6))
            }
        }
        if includeCategories {
            let categories = try db.prepare("SELECT coalesce(category, ''), count(*) FROM incidents GROUP BY 1 ORDER BY 2 DESC, 1")
            while try categories.step() {
                stats.categories.append(.init(name: categories.string(0) ?? "", count: Int(categories.int64(1))))
            }
        }
        let ingests = try db.prepare("""
            SELECT file, sha256, records, accepted, updated, duplicates, rejected, finished_at, bytes, inserted, format,
                   rejects_by_reason
            FROM ingests ORDER BY rowid
            """)
        while try ingests.step() {
            stats.ingests.append(.init(file: ingests.string(0) ?? "", sha256: ingests.string(1) ?? "",
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

    /// Every incident as query columns, in store order. `groupBy` loads one attribute too
    /// (the category is always loaded).
    public func loadColumns(groupBy: BreakdownField? = nil, keepKeys: Bool = false, progress: ((Int) -> Void)? = nil) throws -> IncidentColumns {
        var columns = IncidentColumns()
        columns.reserveCapacity(try approximateCount())
        let attribute = groupBy?.attribute
        let select = "SELECT lat, lon, time, handled, category, " + (keepKeys ? "key" : "NULL")
            + (attribute == nil ? "" : ", json_extract(attrs, ?)") + " FROM incidents"
        let statement = try db.prepare(select)
        if let attribute { statement.bind(1, "$.\"" + attribute.replacingQuotes() + "\"") }
        // Categories repeat on every row: each distinct one becomes a String and a column index
        // once (measured: a String and a hash per row were a third of loading 5M rows).
        let categoryTexts = TextInterner()
        var categoryIDs: [Int32] = []
        var n = 0
        while try statement.step() {
            let handled: Bool? = statement.isNull(3) ? nil : statement.int64(3) != 0
            var categoryID: Int32 = -1
            if let bytes = statement.bytes(4) {
                if let entry = categoryTexts.entry(bytes) {
                    if entry == categoryIDs.count {  // entries are numbered as first seen
                        categoryIDs.append(columns.internCategory(categoryTexts.text(ofEntry: entry)))
                    }
                    categoryID = categoryIDs[entry]
                } else {
                    categoryID = columns.internCategory(String(decoding: bytes, as: UTF8.self))
                }
            }
            columns.append(lat: statement.double(0), lon: statement.double(1), time: statement.int64(2),
                           handled: handled, categoryID: categoryID,
                           group: attribute == nil ? nil : statement.string(6), key: keepKeys ? statement.string(5) : nil)
            n += 1
            if let progress, n & 0x3FFFF == 0 { progress(n) }
        }
        return columns
    }

    /// Incidents by key, for listing (`query --list`).
    public func rows(keysWhere sql: String = "", _ arguments: [SQLValue] = []) throws -> [IncidentRow] {
        let statement = try db.prepare("SELECT key, time, lat, lon, category, handled FROM incidents \(sql)")
        try statement.bind(arguments)
        var rows: [IncidentRow] = []
        while try statement.step() {
            rows.append(IncidentRow(key: statement.string(0) ?? "", time: statement.int64(1), lat: statement.double(2),
                                    lon: statement.double(3), category: statement.string(4),
                                    handled: statement.isNull(5) ? nil : statement.int64(5) != 0))
        }
        return rows
    }

    /// SQLite's integrity check, SpatiaLite's spatial index check and a point-in-box check of every
    /// index entry; empty when all is well.
    public func check() throws -> [String] {
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
        // ... and SpatiaLite's check that it holds every geometry's box.
        if try db.integer("SELECT CheckSpatialIndex('incidents', 'geom')") != 1 {
            problems.append("spatial index: idx_incidents_geom does not match the geometries (run RecoverSpatialIndex)")
        }
        let count = try db.integer("SELECT count(*) FROM incidents") ?? 0
        let indexed = try db.integer("SELECT count(*) FROM idx_incidents_geom") ?? 0
        if count != indexed { problems.append("spatial index: \(indexed) entries for \(count) incidents") }
        // CheckSpatialIndex() passes an index whose entry boxes were moved away from their
        // points (seen with SpatiaLite 5), yet a spatial query then misses those incidents:
        // every incident must have an entry whose box holds its point.
        let misplaced = try db.integer("""
            SELECT count(*) FROM incidents AS i LEFT JOIN idx_incidents_geom AS r ON r.pkid = i.rowid
            WHERE i.geom IS NOT NULL AND (r.pkid IS NULL OR NOT (r.xmin <= ST_X(i.geom) AND r.xmax >= ST_X(i.geom)
                AND r.ymin <= ST_Y(i.geom) AND r.ymax >= ST_Y(i.geom)))
            """) ?? 0
        if misplaced > 0 {
            problems.append("spatial index: \(misplaced) incident(s) without an entry holding their point in idx_incidents_geom (run RecoverSpatialIndex)")
        }
        return problems
    }
}

extension IncidentStore {
    /// Parses the `rejects_by_reason` column (`{"reason":n,…}`).
    static func reasonCounts(_ text: String?) -> [String: Int] {
        guard let text else { return [:] }
        var counts: [String: Int] = [:]
        for part in text.trimmingCharacters(in: "{}").split(separator: ",") {
            let pair = part.split(separator: ":")
            if pair.count == 2, let n = Int(pair[1]) { counts[String(pair[0].filter { $0 != "\"" })] = n }
        }
        return counts
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }

    func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "\"" ? "\\\"" : String(c) }
        return out
    }
}
