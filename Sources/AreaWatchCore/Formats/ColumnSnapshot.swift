/// The store's state a column snapshot was taken at (docs/FORMATS.md, "The column snapshot").
/// Every write to the store's incidents changes `generation` and `token` (triggers and the
/// ingest commit), every ingest adds an `ingests` row: a snapshot whose stamp differs from the
/// store's describes some other state and is not used.
public struct StoreStamp: Sendable, Equatable, CustomStringConvertible {
    /// Writes to `incidents` counted by the store (one per row written, one more per ingest).
    public var generation: Int64
    /// 16 random bytes the store draws anew with every write: two copies of a store that
    /// diverged after the copy do not share it even when their counts agree.
    public var token: [UInt8]
    /// `max(rowid)` of `incidents` (0 when empty).
    public var lastIncidentRowid: Int64
    /// `max(rowid)` of `ingests` (0 when empty): written by every ingest, also by binaries that
    /// know nothing of the snapshot.
    public var lastIngestRowid: Int64

    public static let tokenBytes = 16

    public init(generation: Int64, token: [UInt8], lastIncidentRowid: Int64, lastIngestRowid: Int64) {
        self.generation = generation
        self.token = token
        self.lastIncidentRowid = lastIncidentRowid
        self.lastIngestRowid = lastIngestRowid
    }

    public var description: String {
        "generation \(generation), token \(token.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()), last incident \(lastIncidentRowid), last ingest \(lastIngestRowid)"
    }
}

/// Every incident of a store as the query stage reads it (lat, lon, time, handled, category), in
/// rowid order, with the stamp of the store state it was read at. The file form is
/// `ColumnSnapshotFormat`; `incidentColumns()` gives exactly what a scan of the store gives.
///
/// Categories are kept as distinct byte strings (`categoryTexts`) and turned into
/// `IncidentColumns` categories only when read: the scan interns the text of each row in rowid
/// order with String equality (canonically equivalent texts become one category, named as
/// first seen), and replaying that over the rows keeps the result identical even after an
/// update changed which row comes first.
public struct ColumnSnapshot: Sendable, Equatable {
    public var stamp: StoreStamp
    /// True when row `i` is the store's rowid `i + 1` (rows never deleted, the usual case):
    /// what lets a later ingest patch an updated row in place.
    public var rowidsAreDense: Bool
    public var lat: [Double] = []
    public var lon: [Double] = []
    public var time: [Int64] = []
    /// 1 true, 0 false, -1 unknown.
    public var handled: [Int8] = []
    /// Index into `categoryTexts`, -1 when the incident has none.
    public var category: [Int32] = []
    /// Distinct category texts (distinct as bytes).
    public var categoryTexts: [String] = []

    /// Index of each text in `categoryTexts`, by bytes; built when the first row is added.
    private var textIndex: [[UInt8]: Int32]?

    public init(stamp: StoreStamp, rowidsAreDense: Bool = true) {
        self.stamp = stamp
        self.rowidsAreDense = rowidsAreDense
    }

    public var count: Int { lat.count }

    public static func == (a: ColumnSnapshot, b: ColumnSnapshot) -> Bool {
        a.stamp == b.stamp && a.rowidsAreDense == b.rowidsAreDense && a.lat == b.lat && a.lon == b.lon
            && a.time == b.time && a.handled == b.handled && a.category == b.category
            && a.categoryTexts.map { Array($0.utf8) } == b.categoryTexts.map { Array($0.utf8) }
    }

    /// One incident as the store holds it.
    public struct Row: Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var time: Int64
        public var handled: Bool?
        public var category: String?

        public init(lat: Double, lon: Double, time: Int64, handled: Bool?, category: String?) {
            self.lat = lat
            self.lon = lon
            self.time = time
            self.handled = handled
            self.category = category
        }
    }

    public mutating func reserveCapacity(_ n: Int) {
        lat.reserveCapacity(n)
        lon.reserveCapacity(n)
        time.reserveCapacity(n)
        handled.reserveCapacity(n)
        category.reserveCapacity(n)
    }

    /// Adds the next row (the store's next rowid).
    public mutating func append(_ row: Row) {
        let id = categoryID(row.category)
        lat.append(row.lat)
        lon.append(row.lon)
        time.append(row.time)
        handled.append(IncidentColumns.code(row.handled))
        category.append(id)
    }

    /// Adds rows given as whole columns (the store's next rowids, in order), their categories
    /// numbered into `texts` (distinct as bytes, numbered as first seen; -1 for none). An empty
    /// snapshot takes the arrays as they are.
    public mutating func append(
        lat: [Double], lon: [Double], time: [Int64], handled: [Int8], category: [Int32],
        categoryTexts texts: [String]
    ) {
        precondition(
            lon.count == lat.count && time.count == lat.count && handled.count == lat.count
                && category.count == lat.count, "columns of unequal lengths")
        if count == 0 && categoryTexts.isEmpty {
            self.lat = lat
            self.lon = lon
            self.time = time
            self.handled = handled
            self.category = category
            categoryTexts = texts
            textIndex = nil
            return
        }
        let remap = texts.map { categoryID($0) }
        self.lat += lat
        self.lon += lon
        self.time += time
        self.handled += handled
        self.category.reserveCapacity(self.category.count + category.count)
        for id in category { self.category.append(id < 0 ? -1 : remap[Int(id)]) }
    }

    /// Row `i` as the store holds it.
    public func row(at i: Int) -> Row {
        let h = handled[i]
        return Row(
            lat: lat[i], lon: lon[i], time: time[i], handled: h < 0 ? nil : h != 0,
            category: category[i] < 0 ? nil : categoryTexts[Int(category[i])])
    }

    /// Replaces row `i` (an ingest updated that incident).
    public mutating func replace(at i: Int, with row: Row) {
        let id = categoryID(row.category)
        lat[i] = row.lat
        lon[i] = row.lon
        time[i] = row.time
        handled[i] = IncidentColumns.code(row.handled)
        category[i] = id
    }

    private mutating func categoryID(_ text: String?) -> Int32 {
        guard let text else { return -1 }
        if textIndex == nil {
            var index: [[UInt8]: Int32] = [:]
            for (k, t) in categoryTexts.enumerated() where index[Array(t.utf8)] == nil {
                index[Array(t.utf8)] = Int32(k)
            }
            textIndex = index
        }
        let bytes = Array(text.utf8)
        if let id = textIndex![bytes] { return id }
        let id = Int32(categoryTexts.count)
        categoryTexts.append(text)
        textIndex![bytes] = id
        return id
    }

    /// The columns a scan of the store in rowid order gives, category numbering included.
    public func incidentColumns() -> IncidentColumns {
        var columns = IncidentColumns()
        var remap = [Int32](repeating: -2, count: categoryTexts.count)
        var ids = category
        ids.withUnsafeMutableBufferPointer { ids in
            remap.withUnsafeMutableBufferPointer { remap in
                for i in ids.indices {
                    let id = Int(ids[i])
                    if id < 0 { continue }
                    if remap[id] == -2 { remap[id] = columns.internCategory(categoryTexts[id]) }
                    ids[i] = remap[id]
                }
            }
        }
        columns.adopt(lat: lat, lon: lon, time: time, handled: handled, category: ids)
        return columns
    }

    /// A snapshot of columns read from the store in rowid order (their categories become the
    /// texts; a scan never gives two categories with the same bytes).
    public init(columns: IncidentColumns, stamp: StoreStamp, rowidsAreDense: Bool) {
        self.init(stamp: stamp, rowidsAreDense: rowidsAreDense)
        lat = columns.lat
        lon = columns.lon
        time = columns.time
        handled = columns.handled
        category = columns.category
        categoryTexts = columns.categories
    }
}
