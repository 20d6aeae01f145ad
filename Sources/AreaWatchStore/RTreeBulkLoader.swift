import AreaWatchCore
import CSQLite

/// Builds SpatiaLite's spatial index (an SQLite `rtree` virtual table) in one pass by writing a
/// packed Hilbert R-tree straight into the table's three shadow tables.
///
/// Measured need (docs/PERFORMANCE.md): SQLite's R*Tree has no bulk load; inserting 1M points one
/// by one took 26 s — most of an ingest into an empty store, and what the `spatialite` CLI pays in
/// `CreateSpatialIndex`. Writing a packed tree takes about a second.
///
/// The on-disk format is SQLite's documented rtree layout (ext/rtree/rtree.c, unchanged since
/// 3.7): `<name>_node(nodeno INTEGER PRIMARY KEY, data BLOB)` with node 1 the root,
/// `<name>_parent(nodeno, parentnode)` for every other node, `<name>_rowid(rowid, nodeno)` mapping
/// each entry to its leaf. A node blob is the node size long (that of the root created by
/// `CREATE VIRTUAL TABLE`): 2 bytes tree depth (root only), 2 bytes cell count, then cells of an
/// 8-byte id and four 4-byte floats (xmin, xmax, ymin, ymax), all big-endian. Coordinates are
/// rounded outward exactly as rtree's own `rtreeValueDown`/`rtreeValueUp` round a double, so the
/// index is the one row-by-row inserts would describe; `rtreecheck()` and SpatiaLite's
/// `CheckSpatialIndex` verify it in the tests.
enum RTreeBulkLoader {
    struct Entry {
        var id: Int64
        var xmin: Float
        var xmax: Float
        var ymin: Float
        var ymax: Float
    }

    /// Replaces the content of the (freshly created, empty) rtree `table` with `points`.
    static func load(_ db: SQLiteDatabase, table: String, ids: [Int64], lats: [Double], lons: [Double]) throws {
        guard let nodeSize = try db.integer("SELECT length(data) FROM \"\(table)_node\" WHERE nodeno = 1"),
              nodeSize >= 4 + 24 * 2 else {
            throw StoreError(path: db.path, code: SQLITE_CORRUPT, message: "the spatial index has no root node")
        }
        let fanout = Int(nodeSize - 4) / 24
        guard !ids.isEmpty else { return }

        // Leaves in Hilbert order; then levels upward until one node remains.
        let order = PackedHilbertRTree.hilbertOrder(latitudes: lats, longitudes: lons)
        var levels: [[Entry]] = [order.map { i in
            let k = Int(i)
            return Entry(id: ids[k], xmin: down(lons[k]), xmax: up(lons[k]), ymin: down(lats[k]), ymax: up(lats[k]))
        }]
        var groups: [[Range<Int>]] = []
        while true {
            let below = levels[levels.count - 1]
            let ranges = evenGroups(below.count, fanout: fanout)
            groups.append(ranges)
            if ranges.count == 1 { break }
            levels.append(ranges.map { union(below[$0]) })
        }
        // Number nodes top-down: the root is 1, each level follows the one above it.
        let height = groups.count
        var firstNumber = [Int64](repeating: 0, count: height)
        var next: Int64 = 1
        for level in stride(from: height - 1, through: 0, by: -1) {
            firstNumber[level] = next
            next += Int64(groups[level].count)
        }

        try db.execute("DELETE FROM \"\(table)_node\"; DELETE FROM \"\(table)_parent\"; DELETE FROM \"\(table)_rowid\"")
        let insertNode = try db.prepare("INSERT INTO \"\(table)_node\"(nodeno, data) VALUES(?, ?)")
        let insertParent = try db.prepare("INSERT INTO \"\(table)_parent\"(nodeno, parentnode) VALUES(?, ?)")
        var blob = [UInt8](repeating: 0, count: Int(nodeSize))
        var rowToLeaf: [(Int64, Int64)] = []
        rowToLeaf.reserveCapacity(ids.count)
        for level in 0..<height {
            let entries = levels[level]
            for (g, range) in groups[level].enumerated() {
                let nodeNumber = firstNumber[level] + Int64(g)
                for k in blob.indices { blob[k] = 0 }
                if nodeNumber == 1 { writeBigEndian(UInt16(height - 1), into: &blob, at: 0) }
                writeBigEndian(UInt16(range.count), into: &blob, at: 2)
                for (c, k) in range.enumerated() {
                    var e = entries[k]
                    if level > 0 { e.id = firstNumber[level - 1] + Int64(k) }
                    let at = 4 + 24 * c
                    writeBigEndian(UInt64(bitPattern: e.id), into: &blob, at: at)
                    writeBigEndian(e.xmin.bitPattern, into: &blob, at: at + 8)
                    writeBigEndian(e.xmax.bitPattern, into: &blob, at: at + 12)
                    writeBigEndian(e.ymin.bitPattern, into: &blob, at: at + 16)
                    writeBigEndian(e.ymax.bitPattern, into: &blob, at: at + 20)
                    if level == 0 { rowToLeaf.append((e.id, nodeNumber)) } else {
                        insertParent.bind(1, firstNumber[level - 1] + Int64(k))
                        insertParent.bind(2, nodeNumber)
                        try insertParent.run()
                    }
                }
                insertNode.bind(1, nodeNumber)
                blob.withUnsafeBytes { insertNode.bind(2, blob: $0) }
                try insertNode.run()
            }
        }
        // Row ids in ascending order append to the rowid table's B-tree instead of seeking.
        rowToLeaf.sort { $0.0 < $1.0 }
        let insertRow = try db.prepare("INSERT INTO \"\(table)_rowid\"(rowid, nodeno) VALUES(?, ?)")
        for (row, leaf) in rowToLeaf {
            insertRow.bind(1, row)
            insertRow.bind(2, leaf)
            try insertRow.run()
        }
    }

    /// `n` items in consecutive groups of at most `fanout`, sizes differing by at most one, so no
    /// node is left nearly empty.
    static func evenGroups(_ n: Int, fanout: Int) -> [Range<Int>] {
        let count = max(1, (n + fanout - 1) / fanout)
        return (0..<count).map { g in (n * g / count)..<(n * (g + 1) / count) }
    }

    static func union(_ entries: ArraySlice<Entry>) -> Entry {
        var u = entries.first!
        for e in entries.dropFirst() {
            u.xmin = min(u.xmin, e.xmin); u.xmax = max(u.xmax, e.xmax)
            u.ymin = min(u.ymin, e.ymin); u.ymax = max(u.ymax, e.ymax)
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

    private static func writeBigEndian<T: FixedWidthInteger>(_ value: T, into blob: inout [UInt8], at offset: Int) {
        var v = value.bigEndian
        withUnsafeBytes(of: &v) { raw in
            for k in 0..<raw.count { blob[offset + k] = raw[k] }
        }
    }
}
