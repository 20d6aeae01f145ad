/// The pages of a rowid table's B-tree in SQLite's file format
/// (https://www.sqlite.org/fileformat2.html, "B-tree Pages", "Record Format"), built from records
/// whose rowids are 1, 2, 3 … in order. A GeoPackage layer is written once, whole, in rowid order
/// into a new file: laying its pages out here costs a copy per byte, where SQLite's INSERT costs
/// its bytecode and B-tree work per bound value, which was most of grid.gpkg's time
/// (docs/DECISIONS.md, "grid.gpkg's rows as pages"). Leaves are packed full, overflow chains as
/// SQLite makes them, interior levels above until one page remains: the root, which goes to the
/// table's existing root page.
struct SQLiteTablePages {
    /// The page size, with no reserved bytes at the end of a page.
    let pageSize: Int
    /// Every record, back to back; record k (rowid k + 1) ends at `ends[k]`.
    private(set) var payloads: [UInt8] = []
    private(set) var ends: [Int] = []

    init(pageSize: Int) {
        precondition(pageSize >= 512 && pageSize <= 65536 && pageSize & (pageSize - 1) == 0, "a SQLite page size")
        self.pageSize = pageSize
    }

    var count: Int { ends.count }

    /// Appends the next record, which `write` appends to the bytes it is given (its rowid is
    /// `count` after the call).
    mutating func appendRecord(_ write: (inout [UInt8]) -> Void) {
        write(&payloads)
        ends.append(payloads.count)
    }

    /// The tree: the content of the table's root page (which keeps its number) and the new
    /// pages, numbered from `firstNew` on in their order in `pages`, so that they are written
    /// as one run. Nil without records: the root stays the empty leaf SQLite made.
    func build(firstNew: Int) -> (rootPage: [UInt8], pages: [UInt8], newPages: Int)? {
        guard !ends.isEmpty else { return nil }
        var out = PageRun(pageSize: pageSize, next: firstNew)
        let leaves = leafGroups()
        var children: [(page: Int, maxRowid: Int64)] = []
        var rootPage: [UInt8] = []
        for group in leaves {
            let isRoot = leaves.count == 1
            let page = leafPage(group, out: &out)
            if isRoot {
                rootPage = page
            } else {
                children.append((out.add(page), Int64(group.upperBound)))
            }
        }
        while !children.isEmpty {
            let groups = interiorGroups(children)
            var parents: [(page: Int, maxRowid: Int64)] = []
            for group in groups {
                let page = interiorPage(Array(children[group]))
                if groups.count == 1 {
                    rootPage = page
                } else {
                    parents.append((out.add(page), children[group.upperBound - 1].maxRowid))
                }
            }
            children = groups.count == 1 ? [] : parents
        }
        return (rootPage, out.bytes, out.count)
    }

    // MARK: Leaves

    /// The largest payload stored wholly on a leaf page (U − 35), and the least a spilling
    /// payload keeps on it (M).
    private var maxLocal: Int { pageSize - 35 }
    private var minLocal: Int { (pageSize - 12) * 32 / 255 - 23 }

    /// Bytes of a payload of `size` bytes kept on the leaf; the rest goes to overflow pages.
    private func localSize(_ size: Int) -> Int {
        if size <= maxLocal { return size }
        let k = minLocal + (size - minLocal) % (pageSize - 4)
        return k <= maxLocal ? k : minLocal
    }

    private func payload(_ k: Int) -> Range<Int> { (k == 0 ? 0 : ends[k - 1])..<ends[k] }

    /// A cell's bytes on its leaf: payload size, rowid, the local payload, the first overflow
    /// page if any.
    private func cellSize(_ k: Int) -> Int {
        let size = payload(k).count
        let local = localSize(size)
        return SQLiteVarint.length(UInt64(size)) + SQLiteVarint.length(UInt64(k + 1)) + local
            + (local < size ? 4 : 0)
    }

    /// Records per leaf, each leaf as full as its page allows (rowids are k + 1).
    private func leafGroups() -> [Range<Int>] {
        pack(ends.count, header: 8) { cellSize($0) + 2 }
    }

    /// Items 0..<`count` in consecutive runs, each as long as fits a page: `header` bytes, then
    /// `size(k)` bytes for item k.
    private func pack(_ count: Int, header: Int, size: (Int) -> Int) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start = 0, used = header
        for k in 0..<count {
            let bytes = size(k)
            if used + bytes > pageSize && k > start {
                groups.append(start..<k)
                start = k
                used = header
            }
            used += bytes
        }
        groups.append(start..<count)
        return groups
    }

    /// A table leaf page (type 13) of `group`'s records, cells from the page's end down; each
    /// spilling payload's overflow pages are added to `out` first.
    private func leafPage(_ group: Range<Int>, out: inout PageRun) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSize)
        var top = pageSize
        for (i, k) in group.enumerated() {
            let range = payload(k)
            let local = localSize(range.count)
            let spill = range.lowerBound + local
            let overflow = local < range.count ? overflowPages(payloads[spill..<range.upperBound], out: &out) : nil
            top -= cellSize(k)
            var at = top
            at += SQLiteVarint.put(UInt64(range.count), at: at, in: &page)
            at += SQLiteVarint.put(UInt64(k + 1), at: at, in: &page)
            page[at..<at + local] = payloads[range.lowerBound..<spill]
            if let overflow { SQLiteBigEndian.put(UInt32(overflow), at: at + local, in: &page) }
            SQLiteBigEndian.put(UInt16(top), at: 8 + 2 * i, in: &page)
        }
        page[0] = 13
        SQLiteBigEndian.put(UInt16(group.count), at: 3, in: &page)
        SQLiteBigEndian.put(UInt16(truncatingIfNeeded: top), at: 5, in: &page)
        return page
    }

    /// The chain of overflow pages holding `rest`: each the next page's number (0 for the last),
    /// then up to U − 4 bytes. Returns the first page's number.
    private func overflowPages(_ rest: ArraySlice<UInt8>, out: inout PageRun) -> Int {
        let step = pageSize - 4
        let count = (rest.count + step - 1) / step
        let first = out.next
        for p in 0..<count {
            var page = [UInt8](repeating: 0, count: pageSize)
            SQLiteBigEndian.put(UInt32(p + 1 < count ? first + p + 1 : 0), at: 0, in: &page)
            let from = rest.startIndex + p * step
            let piece = rest[from..<min(from + step, rest.endIndex)]
            page.replaceSubrange(4..<4 + piece.count, with: piece)
            _ = out.add(page)
        }
        return first
    }

    // MARK: Interior pages

    /// Children per interior page: every child but the last is a cell (its page and its
    /// largest rowid), the last is the page's right-most pointer.
    private func interiorGroups(_ children: [(page: Int, maxRowid: Int64)]) -> [Range<Int>] {
        // Each child counted as a cell (pointer, page number, key): the last one, the page's
        // right-most pointer, needs no cell, so a page is never overfull.
        var groups = pack(children.count, header: 12) { 2 + 4 + SQLiteVarint.length(UInt64(children[$0].maxRowid)) }
        // No page but the root may be without cells: a last page of one child takes one more.
        if groups.count > 1, groups[groups.count - 1].count < 2 {
            let last = groups.count - 1
            groups[last - 1] = groups[last - 1].lowerBound..<groups[last - 1].upperBound - 1
            groups[last] = groups[last].lowerBound - 1..<groups[last].upperBound
        }
        return groups
    }

    /// A table interior page (type 5).
    private func interiorPage(_ children: [(page: Int, maxRowid: Int64)]) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSize)
        var top = pageSize
        for (i, child) in children.dropLast().enumerated() {
            var cell: [UInt8] = []
            SQLiteBigEndian.put(UInt32(child.page), at: 0, in: &cell, growing: true)
            SQLiteVarint.append(UInt64(child.maxRowid), to: &cell)
            top -= cell.count
            page.replaceSubrange(top..<top + cell.count, with: cell)
            SQLiteBigEndian.put(UInt16(top), at: 12 + 2 * i, in: &page)
        }
        page[0] = 5
        SQLiteBigEndian.put(UInt16(children.count - 1), at: 3, in: &page)
        SQLiteBigEndian.put(UInt16(truncatingIfNeeded: top), at: 5, in: &page)
        SQLiteBigEndian.put(UInt32(children[children.count - 1].page), at: 8, in: &page)
        return page
    }
}

/// New pages numbered in the order they are added, kept as one run of bytes.
private struct PageRun {
    let pageSize: Int
    private(set) var next: Int
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    init(pageSize: Int, next: Int) {
        self.pageSize = pageSize
        self.next = next
    }

    /// Adds a page; returns its number.
    mutating func add(_ page: [UInt8]) -> Int {
        precondition(page.count == pageSize)
        bytes += page
        count += 1
        next += 1
        return next - 1
    }
}

/// SQLite's variable-length integer: 1–9 bytes, big-endian groups of 7 bits with the high bit
/// set on every byte but the last; a ninth byte carries 8 bits.
enum SQLiteVarint {
    static func length(_ v: UInt64) -> Int {
        if v >> 56 != 0 { return 9 }
        var n = 1, rest = v >> 7
        while rest != 0 {
            n += 1
            rest >>= 7
        }
        return n
    }

    /// Writes `v` at `offset` (the bytes must be there); returns its length.
    static func put(_ v: UInt64, at offset: Int, in bytes: inout [UInt8]) -> Int {
        if v < 0x80 {
            bytes[offset] = UInt8(v)
            return 1
        }
        let n = length(v)
        if n == 9 {
            for j in 0..<8 { bytes[offset + j] = UInt8(truncatingIfNeeded: v >> UInt64(57 - 7 * j)) | 0x80 }
            bytes[offset + 8] = UInt8(truncatingIfNeeded: v)
            return 9
        }
        for j in 0..<n {
            let group = UInt8(truncatingIfNeeded: v >> UInt64(7 * (n - 1 - j))) & 0x7F
            bytes[offset + j] = j < n - 1 ? group | 0x80 : group
        }
        return n
    }

    static func append(_ v: UInt64, to out: inout [UInt8]) {
        if v < 0x80 { return out.append(UInt8(v)) }
        if v >> 56 != 0 {
            for shift in stride(from: 57, through: 8, by: -7) {
                out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)) | 0x80)
            }
            out.append(UInt8(truncatingIfNeeded: v))
            return
        }
        let n = length(v)
        for k in stride(from: n - 1, through: 1, by: -1) {
            out.append(UInt8(truncatingIfNeeded: v >> UInt64(7 * k)) | 0x80)
        }
        out.append(UInt8(v & 0x7F))
    }
}

enum SQLiteBigEndian {
    /// Writes `v` big-endian at `offset` (appending when `growing` and the bytes end there).
    static func put<T: FixedWidthInteger>(_ v: T, at offset: Int, in bytes: inout [UInt8], growing: Bool = false) {
        let size = MemoryLayout<T>.size
        if growing && bytes.count < offset + size {
            bytes.append(contentsOf: repeatElement(0, count: offset + size - bytes.count))
        }
        for k in 0..<size {
            bytes[offset + k] = UInt8(truncatingIfNeeded: v >> T(8 * (size - 1 - k)))
        }
    }
}

/// One record being built in SQLite's record format: per value a serial type in the header
/// (0 NULL, 8 and 9 the integers 0 and 1, 1–6 a big-endian integer of 1, 2, 3, 4, 6 or 8 bytes,
/// 7 a big-endian IEEE double, 2n + 12 a blob and 2n + 13 a text of n bytes), the values after
/// the header in the same order.
struct SQLiteRecord {
    /// The serial types as varints, in value order.
    private(set) var header: [UInt8] = []
    private(set) var body: [UInt8] = []
    private(set) var valueCount = 0

    mutating func appendNull() { serialType(0) }

    mutating func append(_ v: Int64) {
        if v == 0 || v == 1 { return serialType(UInt64(8 + v)) }
        let (type, bytes): (UInt64, Int) =
            switch v {
            case -128...127: (1, 1)
            case -32768...32767: (2, 2)
            case -8_388_608...8_388_607: (3, 3)
            case -2_147_483_648...2_147_483_647: (4, 4)
            case -140_737_488_355_328...140_737_488_355_327: (5, 6)
            default: (6, 8)
            }
        serialType(type)
        withUnsafeBytes(of: v.bigEndian) { body.append(contentsOf: $0[(8 - bytes)...]) }
    }

    mutating func append(_ v: Double) {
        serialType(7)
        withUnsafeBytes(of: v.bitPattern.bigEndian) { body.append(contentsOf: $0) }
    }

    mutating func appendText(_ bytes: some Collection<UInt8>) {
        serialType(UInt64(2 * bytes.count + 13))
        body.append(contentsOf: bytes)
    }

    /// A blob whose bytes `write` appends.
    mutating func appendBlob(_ write: (inout [UInt8]) -> Void) {
        let start = body.count
        write(&body)
        serialType(UInt64(2 * (body.count - start) + 12))
    }

    private mutating func serialType(_ t: UInt64) {
        SQLiteVarint.append(t, to: &header)
        valueCount += 1
    }

    /// The record of `head`'s values then these (header size, serial types, values) appended
    /// to `out`; both builders empty.
    mutating func finish(after head: inout SQLiteRecord, to out: inout [UInt8]) {
        let types = head.header.count + header.count
        var headerSize = types + 1
        while SQLiteVarint.length(UInt64(headerSize)) + types != headerSize {
            headerSize = types + SQLiteVarint.length(UInt64(headerSize))
        }
        SQLiteVarint.append(UInt64(headerSize), to: &out)
        out += head.header
        out += header
        out += head.body
        out += body
        head.removeAll()
        removeAll()
    }

    mutating func removeAll() {
        header.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: true)
        valueCount = 0
    }
}
