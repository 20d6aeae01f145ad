import AreaWatchCore
import CSQLite

/// Builds SpatiaLite's spatial index (an SQLite `rtree` virtual table) in one streaming pass by
/// writing a packed R-tree straight into the table's three shadow tables.
///
/// Why (docs/PERFORMANCE.md, "Store"): SQLite's R*Tree has no bulk load; inserting the points one
/// by one splits and reinserts nodes all the way and was most of an ingest into an empty store
/// (what the `spatialite` CLI pays in `CreateSpatialIndex`); a packed tree is written once.
///
/// The rows come in rowid order (those a bulk load inserted as it inserted them, the others from
/// one sequential scan of the table) and are packed in Hilbert order
/// (`PackedHilbertRTree.hilbertOrder`), so consecutive points make compact leaves; the leaf of
/// each row is remembered and `_rowid` written at the end in rowid order. Why: reading the rows
/// through the geohash index instead (random access into the table) and filling `_rowid` in leaf
/// order (random B-tree inserts) made the rebuild grow faster than the store, the random reads
/// alone far slower than one sequential scan. Memory: about 60 bytes a row while the index is
/// built, freed when it is done.
///
/// The on-disk format is SQLite's documented rtree layout (ext/rtree/rtree.c, unchanged since
/// 3.7): `<name>_node(nodeno INTEGER PRIMARY KEY, data BLOB)` with node 1 the root,
/// `<name>_parent(nodeno, parentnode)` for every other node, `<name>_rowid(rowid, nodeno)` mapping
/// each entry to its leaf. A node blob is the node size long (that of the root created by
/// `CREATE VIRTUAL TABLE`): 2 bytes tree depth (root only), 2 bytes cell count, then cells of an
/// 8-byte id and four 4-byte floats (xmin, xmax, ymin, ymax), all big-endian. Coordinates are
/// rounded outward exactly as rtree's own `rtreeValueDown`/`rtreeValueUp` round a double, so the
/// entries are those row-by-row inserts would store; `rtreecheck()` and SpatiaLite's
/// `CheckSpatialIndex` verify the result in the tests.
final class RTreeBulkLoader {
    struct Entry {
        var id: Int64
        var xmin: Float
        var xmax: Float
        var ymin: Float
        var ymax: Float
    }

    private let db: SQLiteDatabase
    private let table: String
    private let nodeSize: Int
    /// Group sizes per level, from the leaves up (sizes differ by at most one within a level).
    private let plan: [[Int]]
    /// The unfinished node of each level and how many of its groups are done. Unchecked: the
    /// loader is used by one thread, and every entry goes through these.
    @exclusivity(unchecked) private var pending: [[Entry]]
    @exclusivity(unchecked) private var groupIndex: [Int]
    @exclusivity(unchecked) private var nextNodeNumber: Int64 = 2
    /// The leaf node of each entry, in Hilbert order (the order entries are added).
    @exclusivity(unchecked) private var leafByPosition: [UInt32] = []
    private let insertNode, insertParent, insertRowid, insertRowids: Statement
    private static let rowidBatch = 64

    /// Rebuilds the (freshly created, empty) rtree `table` from rows in rowid order.
    static func load(_ db: SQLiteDatabase, table: String, rows: inout IncidentStore.PointRows) throws {
        var taken = IncidentStore.PointRows()
        swap(&taken, &rows)
        try load(db, table: table, packing: Packing(taken))
    }

    /// The rows in Hilbert order with their leaf entries: everything of the build that needs
    /// no database, so that it can run on another thread while the other indexes are built.
    struct Packing: @unchecked Sendable {
        let rowids: [Int64]
        let order: [UInt32]
        let entries: [Entry]

        init(_ rows: consuming IncidentStore.PointRows) {
            let n = rows.rowids.count
            let order = PackedHilbertRTree.hilbertOrder(latitudes: rows.lats, longitudes: rows.lons)
            // The rows are read in Hilbert order, at random places: gathered in a loop that does
            // nothing else, so the processor overlaps the cache misses (followed each by the node
            // work, every read waited for its miss alone).
            var entries: [Entry] = []
            entries.reserveCapacity(n)
            let ids = rows.rowids.span, lats = rows.lats.span, lons = rows.lons.span
            for i in order {
                let i = Int(i), lat = lats[i], lon = lons[i]
                entries.append(Entry(id: ids[i], xmin: down(lon), xmax: up(lon), ymin: down(lat), ymax: up(lat)))
            }
            self.order = order
            self.entries = entries
            rowids = rows.rowids
        }

        /// Rectangles (a GeoPackage layer's bounds), one per id, ids ascending; packed in the
        /// Hilbert order of their centres.
        init(ids: [Int64], envelopes: [GeoPackageEnvelope]) {
            let n = ids.count
            precondition(envelopes.count == n, "one envelope per id")
            let centreX = envelopes.map { ($0.minX + $0.maxX) / 2 }
            let centreY = envelopes.map { ($0.minY + $0.maxY) / 2 }
            let order = PackedHilbertRTree.hilbertOrder(latitudes: centreY, longitudes: centreX)
            var entries: [Entry] = []
            entries.reserveCapacity(n)
            let idSpan = ids.span, envelopeSpan = envelopes.span
            for i in order {
                let e = envelopeSpan[Int(i)]
                entries.append(
                    Entry(
                        id: idSpan[Int(i)], xmin: down(e.minX), xmax: up(e.maxX), ymin: down(e.minY), ymax: up(e.maxY)))
            }
            self.order = order
            self.entries = entries
            rowids = ids
        }
    }

    /// Rebuilds the (freshly created, empty) rtree `table` from packed rows.
    static func load(_ db: SQLiteDatabase, table: String, packing: consuming Packing) throws {
        let n = packing.rowids.count
        guard n > 0 else { return }
        let loader = try RTreeBulkLoader(db: db, table: table, count: n)
        for entry in packing.entries { try loader.add(entry, level: 0) }
        let order = packing.order
        let rowids = packing.rowids
        packing = Packing(IncidentStore.PointRows()) // the entries freed before the last part
        var leafOfRow = [UInt32](repeating: 0, count: n)
        var leaves = leafOfRow.mutableSpan
        for (k, i) in order.enumerated() { leaves[Int(i)] = loader.leafByPosition[k] }
        // In statements of `rowidBatch` rows (the rest one by one): the same inserts in the same
        // order, so the same table, with the statement's per-run work paid once per batch.
        var i = 0
        while i < n {
            let batch = n - i >= rowidBatch ? rowidBatch : 1
            let insert = batch == rowidBatch ? loader.insertRowids : loader.insertRowid
            for k in 0..<batch {
                insert.bind(Int32(2 * k + 1), rowids[i + k])
                insert.bind(Int32(2 * k + 2), Int64(leafOfRow[i + k]))
            }
            try insert.run()
            i += batch
        }
    }

    private init(db: SQLiteDatabase, table: String, count: Int) throws {
        self.db = db
        self.table = table
        guard let size = try db.integer("SELECT length(data) FROM \"\(table)_node\" WHERE nodeno = 1"),
            size >= 4 + 24 * 2
        else {
            throw StoreError(path: db.path, code: .corrupt, message: "the spatial index has no root node")
        }
        nodeSize = Int(size)
        // Nodes are filled to 3/4 of their capacity, leaving room for later row-by-row inserts:
        // into a tree packed full, nearly every insert split a node (R*Tree splits and reinserts),
        // which made the nightly's small ingest into a large store slow.
        let fanout = max(2, (nodeSize - 4) / 24 * 3 / 4)
        var plan: [[Int]] = []
        var n = count
        repeat {
            let groups = RTreeBulkLoader.evenGroups(n, fanout: fanout)
            plan.append(groups)
            n = groups.count
        } while n > 1
        self.plan = plan
        pending = Array(repeating: [], count: plan.count)
        groupIndex = Array(repeating: 0, count: plan.count)
        leafByPosition.reserveCapacity(count)
        try db.execute("DELETE FROM \"\(table)_node\"; DELETE FROM \"\(table)_parent\"; DELETE FROM \"\(table)_rowid\"")
        insertNode = try db.prepare("INSERT INTO \"\(table)_node\"(nodeno, data) VALUES(?, ?)")
        insertParent = try db.prepare("INSERT INTO \"\(table)_parent\"(nodeno, parentnode) VALUES(?, ?)")
        insertRowid = try db.prepare("INSERT INTO \"\(table)_rowid\"(rowid, nodeno) VALUES(?, ?)")
        let rows = repeatElement("(?, ?)", count: Self.rowidBatch).joined(separator: ", ")
        insertRowids = try db.prepare("INSERT INTO \"\(table)_rowid\"(rowid, nodeno) VALUES \(rows)")
    }

    /// Adds an entry to a level; writes the level's node when its group is complete.
    private func add(_ entry: Entry, level: Int) throws {
        pending[level].append(entry)
        guard pending[level].count == plan[level][groupIndex[level]] else { return }
        let entries = pending[level]
        pending[level].removeAll(keepingCapacity: true)
        groupIndex[level] += 1
        let isRoot = level == plan.count - 1
        let number: Int64 = isRoot ? 1 : nextNodeNumber
        if !isRoot { nextNodeNumber += 1 }
        try writeNode(number, entries: entries, depth: isRoot ? level : nil)
        if level == 0 {
            for _ in entries { leafByPosition.append(UInt32(number)) }
        } else {
            for e in entries {
                insertParent.bind(1, e.id)
                insertParent.bind(2, number)
                try insertParent.run()
            }
        }
        if !isRoot { try add(RTreeBulkLoader.union(entries, id: number), level: level + 1) }
    }

    private func writeNode(_ number: Int64, entries: [Entry], depth: Int?) throws {
        // Filled through a local array's span: byte-wise writes into an array property cost an
        // exclusivity check each, more than the writes themselves.
        var node = [UInt8](repeating: 0, count: nodeSize)
        do {
            var elements = node.mutableSpan
            var raw = elements.mutableBytes
            if let depth { raw.storeBytes(of: UInt16(depth).bigEndian, toByteOffset: 0, as: UInt16.self) }
            raw.storeBytes(of: UInt16(entries.count).bigEndian, toByteOffset: 2, as: UInt16.self)
            for (c, e) in entries.enumerated() {
                let at = 4 + 24 * c
                raw.storeBytes(of: UInt64(bitPattern: e.id).bigEndian, toByteOffset: at, as: UInt64.self)
                raw.storeBytes(of: e.xmin.bitPattern.bigEndian, toByteOffset: at + 8, as: UInt32.self)
                raw.storeBytes(of: e.xmax.bitPattern.bigEndian, toByteOffset: at + 12, as: UInt32.self)
                raw.storeBytes(of: e.ymin.bitPattern.bigEndian, toByteOffset: at + 16, as: UInt32.self)
                raw.storeBytes(of: e.ymax.bitPattern.bigEndian, toByteOffset: at + 20, as: UInt32.self)
            }
        }
        insertNode.bind(1, number)
        insertNode.bind(2, blob: node.span.bytes)
        try insertNode.run()
    }

    /// Sizes of consecutive groups of at most `fanout` covering `n` items, differing by at most
    /// one, so no node is left nearly empty.
    static func evenGroups(_ n: Int, fanout: Int) -> [Int] {
        let count = max(1, (n + fanout - 1) / fanout)
        return (0..<count).map { g in n * (g + 1) / count - n * g / count }
    }

    static func union(_ entries: [Entry], id: Int64) -> Entry {
        var u = entries[0]
        u.id = id
        for e in entries.dropFirst() {
            u.xmin = min(u.xmin, e.xmin)
            u.xmax = max(u.xmax, e.xmax)
            u.ymin = min(u.ymin, e.ymin)
            u.ymax = max(u.ymax, e.ymax)
        }
        return u
    }

    // rtree.c: RNDTOWARDS = 1 - 1/8388608, RNDAWAY = 1 + 1/8388608.
    private static let towards = 1.0 - 1.0 / 8_388_608.0
    private static let away = 1.0 + 1.0 / 8_388_608.0

    /// rtreeValueDown: a float not above `d`.
    static func down(_ d: Double) -> Float {
        var f = Float(d)
        if Double(f) > d { f = Float(d * (d < 0 ? away : towards)) }
        return f
    }

    /// rtreeValueUp: a float not below `d`.
    static func up(_ d: Double) -> Float {
        var f = Float(d)
        if Double(f) < d { f = Float(d * (d < 0 ? towards : away)) }
        return f
    }

}
