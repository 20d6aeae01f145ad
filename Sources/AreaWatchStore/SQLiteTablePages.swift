import AreaWatchCore

/// The pages of a rowid table's B-tree in SQLite's file format
/// (https://www.sqlite.org/fileformat2.html, "B-tree Pages", "Record Format"), built as the
/// records come, with rowids 1, 2, 3 … in order. A GeoPackage layer is written once, whole, in
/// rowid order into a new file: laying its pages out here costs a copy per byte, where SQLite's
/// INSERT costs its bytecode and B-tree work per bound value, which was most of grid.gpkg's time
/// (docs/DECISIONS.md, "grid.gpkg's rows as pages"). Leaves are packed full, overflow chains as
/// SQLite makes them, interior levels above until one page remains: the root, which goes to the
/// table's existing root page.
///
/// Each record is written straight into its cell on the leaf being filled, which is always the
/// last page of the run of new pages. The run's place in the file (the number of its first page)
/// is known only when the file is closed, so a page number written while the rows come is
/// relative to the run and listed in `fixups`, made absolute by `finish`.
final class SQLiteTablePages {
    /// The page size, with no reserved bytes at the end of a page.
    let pageSize: Int
    /// Records so far; the last one's rowid.
    private(set) var count = 0
    /// The new pages in file order: each leaf after the overflow pages of its records (as
    /// SQLite numbers them), the interior pages after every leaf.
    private let run: PageRun
    /// The leaf being filled (the run's last page) and its cells, nil before its first record.
    private var leaf: Int?
    private var leafCells = 0
    /// Bytes of the leaf taken: the header and cell pointers from the start, cells from the end.
    private var leafUsed = 0
    private var leafTop = 0
    private var leafLastRowid: Int64 = 0
    /// Offsets on the open leaf where an overflow page's relative number was written.
    private var leafFixups: [(offset: Int, target: Int)] = []
    /// Every finished leaf (its run index) and its largest rowid, in order.
    private var leaves: [(page: Int, maxRowid: Int64)] = []
    /// Where a page number relative to the run goes (page and offset in the run) and its target.
    private var fixups: [(page: Int, offset: Int, target: Int)] = []
    /// A spilling payload, whole, before it is split between its leaf and its overflow pages.
    private var spill: [UInt8] = []

    init(pageSize: Int) {
        precondition(pageSize >= 512 && pageSize <= 65536 && pageSize & (pageSize - 1) == 0, "a SQLite page size")
        self.pageSize = pageSize
        run = PageRun(pageSize: pageSize)
    }

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

    // MARK: Leaves

    /// Appends the next record (rowid `count` after the call): `size` bytes, which `write`
    /// writes to the buffer it is given, exactly that long. A record goes to the open leaf when
    /// its cell (payload size, rowid, local payload, first overflow page) and cell pointer fit,
    /// else it starts the next leaf: leaves as full as their pages allow.
    func appendRecord(size: Int, _ write: (UnsafeMutableRawBufferPointer) -> Void) {
        count += 1
        let rowid = UInt64(count)
        let local = localSize(size)
        let cell = SQLiteVarint.length(UInt64(size)) + SQLiteVarint.length(rowid) + local + (local < size ? 4 : 0)
        if leaf != nil && leafUsed + cell + 2 > pageSize { closeLeaf() }
        var overflow: Int?
        if local < size {
            spill = [UInt8](repeating: 0, count: size)
            spill.withUnsafeMutableBytes(write)
            overflow = overflowPages(spill[local...])
        }
        let page = leaf ?? openLeaf()
        leafTop -= cell
        leafUsed += cell + 2
        let bytes = run.page(page)
        var at = leafTop
        at += SQLiteVarint.put(UInt64(size), at: at, in: bytes)
        at += SQLiteVarint.put(rowid, at: at, in: bytes)
        let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[at..<at + local])
        if let overflow {
            spill.withUnsafeBytes { payload.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<local])) }
            leafFixups.append((at + local, overflow))
        } else {
            write(payload)
        }
        bytes.storeBytes(of: UInt16(leafTop).bigEndian, toByteOffset: 8 + 2 * leafCells, as: UInt16.self)
        leafCells += 1
        leafLastRowid = Int64(rowid)
    }

    private func openLeaf() -> Int {
        let page = run.addPage()
        leaf = page
        (leafCells, leafUsed, leafTop) = (0, 8, pageSize)
        return page
    }

    /// Ends the open leaf: a table leaf page (type 13), cells from the page's end down.
    private func closeLeaf() {
        guard let page = leaf else { return }
        let bytes = run.page(page)
        bytes[0] = 13
        bytes.storeBytes(of: UInt16(leafCells).bigEndian, toByteOffset: 3, as: UInt16.self)
        // A cell content area starting at 65536 is stored as 0.
        bytes.storeBytes(of: UInt16(truncatingIfNeeded: leafTop).bigEndian, toByteOffset: 5, as: UInt16.self)
        fixups += leafFixups.map { (page, $0.offset, $0.target) }
        leafFixups.removeAll()
        leaves.append((page, leafLastRowid))
        leaf = nil
    }

    /// The chain of overflow pages holding `rest`: each the next page's number (0 for the last),
    /// then up to U − 4 bytes. They go before the open leaf, which moves after them (its page
    /// number is not written anywhere yet). Returns the first page's run index.
    private func overflowPages(_ rest: ArraySlice<UInt8>) -> Int {
        let step = pageSize - 4
        let n = (rest.count + step - 1) / step
        var first = run.count
        for _ in 0..<n { _ = run.addPage() }
        if let open = leaf {
            run.move(open, to: open + n)
            leaf = open + n
            first = open
        }
        rest.withUnsafeBytes { rest in
            for p in 0..<n {
                let bytes = run.page(first + p)
                if p + 1 < n { fixups.append((first + p, 0, first + p + 1)) }
                let piece = UnsafeRawBufferPointer(rebasing: rest[p * step..<min((p + 1) * step, rest.count)])
                UnsafeMutableRawBufferPointer(rebasing: bytes[4..<4 + piece.count]).copyMemory(from: piece)
            }
        }
        return first
    }
}

extension SQLiteTablePages {
    // MARK: The tree

    /// Ends the tree, whose run of new pages goes to the file from page number `firstNew` on:
    /// the last leaf closed, every relative page number made absolute, the interior levels
    /// added. Returns the root's content (the table's root page keeps its number) and the run's
    /// page count, to be written with `forEachRunBlock`; nil without records: the root stays the
    /// empty leaf SQLite made. Called once, after the last record.
    func finish(firstNew: Int) -> (rootPage: [UInt8], newPages: Int)? {
        guard count > 0 else { return nil }
        closeLeaf()
        for f in fixups {
            run.page(f.page).storeBytes(
                of: UInt32(firstNew + f.target).bigEndian, toByteOffset: f.offset, as: UInt32.self)
        }
        fixups = []
        // One leaf is the root: it is the run's last page, after its own overflow pages.
        if leaves.count == 1 {
            let root = run.removeLast()
            return (root, run.count)
        }
        var children = leaves[...]
        while true {
            let groups = interiorGroups(children)
            if groups.count == 1 {
                var root = [UInt8](repeating: 0, count: pageSize)
                root.withUnsafeMutableBytes { interiorPage(children, firstNew: firstNew, into: $0) }
                return (root, run.count)
            }
            var parents: [(page: Int, maxRowid: Int64)] = []
            for group in groups {
                let page = run.addPage()
                interiorPage(children[group], firstNew: firstNew, into: run.page(page))
                parents.append((page, children[group.upperBound - 1].maxRowid))
            }
            children = parents[...]
        }
    }

    /// The run's bytes (after `finish`), block by block in page order.
    func forEachRunBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try run.forEachBlock(body)
    }

    /// Children per interior page: every child but the last is a cell (its page and its
    /// largest rowid), the last is the page's right-most pointer.
    private func interiorGroups(_ children: ArraySlice<(page: Int, maxRowid: Int64)>) -> [Range<Int>] {
        // Each child counted as a cell (pointer, page number, key): the last one, the page's
        // right-most pointer, needs no cell, so a page is never overfull.
        var groups: [Range<Int>] = []
        var start = children.startIndex, used = 12
        for k in children.indices {
            let bytes = 2 + 4 + SQLiteVarint.length(UInt64(children[k].maxRowid))
            if used + bytes > pageSize && k > start {
                groups.append(start..<k)
                start = k
                used = 12
            }
            used += bytes
        }
        groups.append(start..<children.endIndex)
        // No page but the root may be without cells: a last page of one child takes one more.
        if groups.count > 1, groups[groups.count - 1].count < 2 {
            let last = groups.count - 1
            groups[last - 1] = groups[last - 1].lowerBound..<groups[last - 1].upperBound - 1
            groups[last] = groups[last].lowerBound - 1..<groups[last].upperBound
        }
        return groups
    }

    /// A table interior page (type 5) of `children`, written to the zeroed `bytes`.
    private func interiorPage(
        _ children: ArraySlice<(page: Int, maxRowid: Int64)>, firstNew: Int, into bytes: UnsafeMutableRawBufferPointer
    ) {
        var top = pageSize
        for (i, child) in children.dropLast().enumerated() {
            top -= 4 + SQLiteVarint.length(UInt64(child.maxRowid))
            bytes.storeBytes(of: UInt32(firstNew + child.page).bigEndian, toByteOffset: top, as: UInt32.self)
            _ = SQLiteVarint.put(UInt64(child.maxRowid), at: top + 4, in: bytes)
            bytes.storeBytes(of: UInt16(top).bigEndian, toByteOffset: 12 + 2 * i, as: UInt16.self)
        }
        bytes[0] = 5
        bytes.storeBytes(of: UInt16(children.count - 1).bigEndian, toByteOffset: 3, as: UInt16.self)
        bytes.storeBytes(of: UInt16(truncatingIfNeeded: top).bigEndian, toByteOffset: 5, as: UInt16.self)
        bytes.storeBytes(of: UInt32(firstNew + children.last!.page).bigEndian, toByteOffset: 8, as: UInt32.self)
    }
}

/// New pages in the order they are numbered, in blocks of zeroed memory that stay where they
/// are while the run grows (no page is copied to make room). Blocks are whole huge pages
/// (`HugePageAllocation`), so filling them faults once per 2 MiB rather than once per 4 KiB.
/// A page's bytes stay valid as long as the run: blocks are freed only with it.
private final class PageRun {
    private final class Block {
        let memory: HugePageAllocation
        init(bytes: Int) { memory = HugePageAllocation(zeroedBytes: bytes) }
    }

    let pageSize: Int
    private let pagesPerBlock: Int
    private var blocks: [Block] = []
    private(set) var count = 0

    init(pageSize: Int) {
        self.pageSize = pageSize
        pagesPerBlock = (4 << 20) / pageSize
    }

    /// Adds a zeroed page at the end; returns its index.
    func addPage() -> Int {
        if count == blocks.count * pagesPerBlock { blocks.append(Block(bytes: pagesPerBlock * pageSize)) }
        count += 1
        return count - 1
    }

    func page(_ index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count, "a page of the run")
        let start = blocks[index / pagesPerBlock].memory.base + index % pagesPerBlock * pageSize
        return UnsafeMutableRawBufferPointer(start: start, count: pageSize)
    }

    /// Copies page `from` to page `to` and zeroes `from`.
    func move(_ from: Int, to: Int) {
        let source = page(from)
        page(to).copyMemory(from: UnsafeRawBufferPointer(source))
        source.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Takes the last page out of the run, leaving its place zeroed.
    func removeLast() -> [UInt8] {
        let last = page(count - 1)
        let bytes = [UInt8](last)
        last.initializeMemory(as: UInt8.self, repeating: 0)
        count -= 1
        return bytes
    }

    func forEachBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for (b, block) in blocks.enumerated() where b * pagesPerBlock < count {
            let pages = min(pagesPerBlock, count - b * pagesPerBlock)
            try body(UnsafeRawBufferPointer(start: block.memory.base, count: pages * pageSize))
        }
    }
}

/// SQLite's variable-length integer: 1–9 bytes, big-endian groups of 7 bits with the high bit
/// set on every byte but the last; a ninth byte carries 8 bits.
enum SQLiteVarint {
    static func length(_ v: UInt64) -> Int {
        if v < 0x80 { return 1 }
        if v >> 56 != 0 { return 9 }
        return (70 - v.leadingZeroBitCount) / 7
    }

    /// Writes `v` at `offset` (the bytes must be there); returns its length.
    @discardableResult @inline(__always)
    static func put(_ v: UInt64, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) -> Int {
        if v < 0x80 {
            bytes[offset] = UInt8(v)
            return 1
        }
        return putLong(v, at: offset, in: bytes)
    }

    private static func putLong(_ v: UInt64, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) -> Int {
        if v < 0x4000 { // a record's size, a rowid, a text's or blob's type: mostly 2 bytes
            bytes[offset] = UInt8(truncatingIfNeeded: v >> 7) | 0x80
            bytes[offset + 1] = UInt8(truncatingIfNeeded: v) & 0x7F
            return 2
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
}

/// One record being built in SQLite's record format: per value a serial type in the header
/// (0 NULL, 8 and 9 the integers 0 and 1, 1–6 a big-endian integer of 1, 2, 3, 4, 6 or 8 bytes,
/// 7 a big-endian IEEE double, 2n + 12 a blob and 2n + 13 a text of n bytes), the values after
/// the header in the same order. The serial types and the values are kept apart while the
/// values come (the header's size is known only at the end) in buffers that keep their
/// capacity from record to record, so a value costs a store or a copy, no allocation.
struct SQLiteRecord: ~Copyable {
    /// The serial types as varints, in value order.
    private var types = GrowableBuffer<UInt8>(capacity: 64)
    private var body = GrowableBuffer<UInt8>(capacity: 1024)
    private(set) var valueCount = 0

    init() {}

    @inline(__always)
    mutating func appendNull() { serialType(0) }

    @inline(__always)
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
        // The low `bytes` bytes, big-endian: all 8 stored shifted to the front of the spare room,
        // the first `bytes` kept.
        body.appendUninitialized(maxCount: 8) { out in
            let front = UInt64(bitPattern: v) << UInt64(8 * (8 - bytes))
            UnsafeMutableRawBufferPointer(out).storeBytes(of: front.bigEndian, as: UInt64.self)
            return bytes
        }
    }

    @inline(__always)
    mutating func append(_ v: Double) {
        serialType(7)
        body.appendUninitialized(maxCount: 8) { out in
            UnsafeMutableRawBufferPointer(out).storeBytes(of: v.bitPattern.bigEndian, as: UInt64.self)
            return 8
        }
    }

    mutating func appendText(_ bytes: RawSpan) {
        serialType(UInt64(2 * bytes.byteCount + 13))
        appendBody(bytes)
    }

    mutating func appendBlob(_ bytes: RawSpan) {
        serialType(UInt64(2 * bytes.byteCount + 12))
        appendBody(bytes)
    }

    /// The bytes copied into `body` (one copy, through the buffer's bulk append).
    @inline(__always)
    private mutating func appendBody(_ bytes: RawSpan) {
        bytes.withUnsafeBytes { body.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    @inline(__always)
    private mutating func serialType(_ t: UInt64) {
        valueCount += 1
        // Every type but a long text's or blob's is one byte.
        if t < 0x80 { return types.append(UInt8(t)) }
        types.appendUninitialized(maxCount: 9) { SQLiteVarint.put(t, at: 0, in: UnsafeMutableRawBufferPointer($0)) }
    }

    /// The size of the header of `head`'s values then these: the varint of its own size, then
    /// the serial types.
    private func headerSize(after head: borrowing SQLiteRecord) -> Int {
        let types = head.types.count + self.types.count
        var size = types + 1
        while SQLiteVarint.length(UInt64(size)) + types != size { size = types + SQLiteVarint.length(UInt64(size)) }
        return size
    }

    /// The bytes of the record of `head`'s values then these.
    func size(after head: borrowing SQLiteRecord) -> Int {
        headerSize(after: head) + head.body.count + body.count
    }

    /// Writes the record of `head`'s values then these (header size, serial types, values) to
    /// `out`, `size(after: head)` bytes; both builders are left empty.
    mutating func finish(after head: inout SQLiteRecord, to out: UnsafeMutableRawBufferPointer) {
        var at = SQLiteVarint.put(UInt64(headerSize(after: head)), at: 0, in: out)
        func copy(_ part: UnsafeBufferPointer<UInt8>) {
            UnsafeMutableRawBufferPointer(rebasing: out[at..<at + part.count]).copyMemory(
                from: UnsafeRawBufferPointer(part))
            at += part.count
        }
        copy(head.types.unsafeElements)
        copy(types.unsafeElements)
        copy(head.body.unsafeElements)
        copy(body.unsafeElements)
        precondition(at == out.count, "a record written to a buffer of another size")
        head.removeAll()
        removeAll()
    }

    mutating func removeAll() {
        types.removeAll()
        body.removeAll()
        valueCount = 0
    }
}
