import AreaWatchCore

/// The column-snapshot values (time, handled, category) of the rows a bulk load inserts, taken
/// from the incidents as they go in, in rowid order; lat and lon are the load's `PointRows`.
///
/// Why (docs/PERFORMANCE.md, "Store"): reading the new rows back from SQLite inside the
/// transaction to extend the snapshot would read every row the load just wrote a second time.
/// The values are those a read-back gives: SQLite stores bound integers, doubles and text
/// unchanged, except a REAL of -0.0, which it writes as the integer 0 and reads back as +0.0
/// (`InsertedColumns.init` turns -0.0 into +0.0; the readers give +0.0 already, but the
/// snapshot must not depend on that). Rows the file updated after inserting them are read
/// back (`InsertedColumns.apply(updates:)`).
final class ColumnCapture {
    var time: [Int64] = []
    var handled: [Int8] = []
    /// Index into `texts`, -1 for none.
    var category: [Int32] = []
    /// Distinct category texts (distinct as bytes), numbered as first seen.
    private(set) var texts: [String] = []
    /// Categories repeat on every row: the bytes are looked up in an interner, whose entries are
    /// numbered as first seen (`entryIDs` maps them to `texts`), rather than hashing a byte array
    /// per row as `ColumnSnapshot.append` does.
    private let interner = TextInterner()
    private var entryIDs: [Int32] = []
    /// Texts the interner does not keep (long, or past its capacity).
    private var others: [[UInt8]: Int32] = [:]

    func reserveCapacity(_ n: Int) {
        time.reserveCapacity(n)
        handled.reserveCapacity(n)
        category.reserveCapacity(n)
    }

    @inline(__always)
    func append(_ incident: Incident) {
        append(time: incident.time, handled: incident.handled, category: incident.category)
    }

    @inline(__always)
    func append(time: Int64, handled: Bool?, category: String?) {
        self.time.append(time)
        self.handled.append(IncidentColumns.code(handled))
        self.category.append(id(of: category))
    }

    private func id(of text: String?) -> Int32 {
        guard let text else { return -1 }
        if let id = text.utf8.withContiguousStorageIfAvailable({ id(ofBytes: $0.span) }) { return id }
        var copy = text
        return copy.withUTF8 { id(ofBytes: $0.span) }
    }

    private func id(ofBytes bytes: Span<UInt8>) -> Int32 {
        if let entry = interner.entry(bytes) {
            if entry == entryIDs.count { entryIDs.append(newText(bytes)) }
            return entryIDs[entry]
        }
        let key = bytes.copiedArray
        if let id = others[key] { return id }
        let id = newText(bytes)
        others[key] = id
        return id
    }

    private func newText(_ bytes: Span<UInt8>) -> Int32 {
        texts.append(bytes.decodedString)
        return Int32(texts.count - 1)
    }
}

/// Every column of the column snapshot for the rows a bulk load inserted: rowids
/// `firstRowid, firstRowid + 1, …` (`FileTransaction.takeInsertedColumns`).
public struct InsertedColumns: Sendable {
    public let firstRowid: Int64
    public var lat: [Double]
    public var lon: [Double]
    public var time: [Int64]
    public var handled: [Int8]
    public var category: [Int32]
    public var categoryTexts: [String]

    public var count: Int { lat.count }

    /// Nil unless the rowids are `rowids[0], rowids[0] + 1, …` and every column has one value per
    /// row. The coordinate arrays are shared with `rows`, copied only where one holds -0.0.
    init?(rows: IncidentStore.PointRows, capture: ColumnCapture) {
        let n = rows.rowids.count
        guard let first = rows.rowids.first, rows.lats.count == n, rows.lons.count == n,
            capture.time.count == n, capture.handled.count == n, capture.category.count == n
        else { return nil }
        let rowids = rows.rowids.span
        for k in rowids.indices where rowids[k] != first + Int64(k) { return nil }
        firstRowid = first
        lat = InsertedColumns.asStored(rows.lats)
        lon = InsertedColumns.asStored(rows.lons)
        time = capture.time
        handled = capture.handled
        category = capture.category
        categoryTexts = capture.texts
    }

    /// Puts in the values of rows the file updated after inserting them (read back from the
    /// store), then numbers the categories again as a read-back in rowid order would: by first
    /// appearance, texts no row holds any more dropped.
    mutating func apply(updates: [(rowid: Int64, row: ColumnSnapshot.Row)]) {
        guard !updates.isEmpty else { return }
        var ids: [[UInt8]: Int32] = [:]
        for (k, text) in categoryTexts.enumerated() { ids[Array(text.utf8)] = Int32(k) }
        for (rowid, row) in updates {
            let i = Int(rowid - firstRowid)
            lat[i] = row.lat
            lon[i] = row.lon
            time[i] = row.time
            handled[i] = IncidentColumns.code(row.handled)
            if let text = row.category {
                let key = Array(text.utf8)
                if ids[key] == nil {
                    ids[key] = Int32(categoryTexts.count)
                    categoryTexts.append(text)
                }
                category[i] = ids[key]!
            } else {
                category[i] = -1
            }
        }
        var remap = [Int32](repeating: -1, count: categoryTexts.count)
        var texts: [String] = []
        for i in category.indices where category[i] >= 0 {
            let id = Int(category[i])
            if remap[id] < 0 {
                remap[id] = Int32(texts.count)
                texts.append(categoryTexts[id])
            }
            category[i] = remap[id]
        }
        categoryTexts = texts
    }

    /// The values as SQLite reads them back from a REAL column: -0.0 becomes +0.0.
    static func asStored(_ values: [Double]) -> [Double] {
        let negativeZero = (-0.0 as Double).bitPattern
        guard let first = values.firstIndex(where: { $0.bitPattern == negativeZero }) else { return values }
        var copy = values
        for i in first..<copy.count where copy[i].bitPattern == negativeZero { copy[i] = 0 }
        return copy
    }
}
