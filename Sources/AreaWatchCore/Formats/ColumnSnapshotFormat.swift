/// The bytes of a column snapshot file (docs/FORMATS.md, "The column snapshot"): a 128-byte
/// header, then the columns one after the other, little-endian, each starting at a multiple of
/// eight bytes. A CRC-32 over everything but its own four bytes catches a torn or damaged file;
/// the stamp in the header ties it to one state of the store.
///
/// Decoding treats the bytes as hostile: every length is checked against the file's size with
/// overflow-checked arithmetic before anything is read, and every value against its range
/// (categories in the table, handled −1/0/1, coordinates on the globe), so no file can make a
/// later stage trap or index out of bounds.
public enum ColumnSnapshotFormat {
    public static let magic: [UInt8] = Array("AWCOLUMN".utf8)
    public static let version: UInt32 = 1
    public static let headerSize = 128
    /// Header bytes 124..<128 hold the CRC-32.
    static let checksumOffset = 124
    static let flagDenseRowids: UInt32 = 1

    /// A CRC-32 continued over more bytes (zlib's `crc32`, passed in: Core links no library).
    public typealias Checksum = @Sendable (_ running: UInt32, _ bytes: RawSpan) -> UInt32

    /// Why bytes are not a usable snapshot.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Where each part starts, and the whole length, for `rows` rows and `textBytes` bytes of
    /// category table; nil when that overflows.
    struct Layout {
        var lat = 0, lon = 0, time = 0, category = 0, handled = 0, texts = 0, end = 0

        init?(rows: UInt64, textBytes: UInt64) {
            // 2^40 rows is far beyond any store and keeps every product below Int.max.
            guard rows < 1 << 40, textBytes < 1 << 50 else { return nil }
            let n = Int(rows)
            lat = ColumnSnapshotFormat.headerSize
            lon = lat + 8 * n
            time = lon + 8 * n
            category = time + 8 * n
            handled = category + Layout.padded(4 * n)
            texts = handled + Layout.padded(n)
            end = texts + Layout.padded(Int(textBytes))
        }

        static func padded(_ n: Int) -> Int { (n + 7) & ~7 }
    }

    // MARK: Encoding

    /// The whole file as one array (tests, small snapshots); `forEachPiece` writes without a copy.
    public static func encode(_ snapshot: ColumnSnapshot, checksum: Checksum) -> [UInt8] {
        var out: [UInt8] = []
        forEachPiece(snapshot, checksum: checksum) { piece in piece.withUnsafeBytes { out += $0 } }
        return out
    }

    /// Hands `body` the file's bytes in order as pieces: the header, then each column straight
    /// from its array (no copy of the columns on a little-endian host), the padding and the
    /// category table. The checksum is computed first, over the same pieces.
    public static func forEachPiece(
        _ snapshot: ColumnSnapshot, checksum: Checksum, _ body: (RawSpan) throws -> Void
    ) rethrows {
        let n = snapshot.count
        precondition(
            snapshot.lon.count == n && snapshot.time.count == n && snapshot.handled.count == n
                && snapshot.category.count == n && snapshot.stamp.token.count == StoreStamp.tokenBytes)
        var texts = BinaryWriter()
        for text in snapshot.categoryTexts { texts.string(text) }
        var table = texts.bytes
        let textBytes = table.count
        guard let layout = Layout(rows: UInt64(n), textBytes: UInt64(textBytes)) else {
            preconditionFailure("a column snapshot of \(n) rows is beyond the format")
        }
        table += [UInt8](repeating: 0, count: Layout.padded(textBytes) - textBytes)
        var header = self.header(snapshot, textBytes: textBytes, fileLength: layout.end)
        let categoryPad = [UInt8](repeating: 0, count: Layout.padded(4 * n) - 4 * n)
        let handledPad = [UInt8](repeating: 0, count: Layout.padded(n) - n)
        #if _endian(little)
            let (lat, lon, time, category) = (snapshot.lat, snapshot.lon, snapshot.time, snapshot.category)
        #else
            let lat = snapshot.lat.map(\.bitPattern.littleEndian), lon = snapshot.lon.map(\.bitPattern.littleEndian)
            let time = snapshot.time.map(\.littleEndian), category = snapshot.category.map(\.littleEndian)
        #endif
        func columns(_ visit: (RawSpan) throws -> Void) rethrows {
            try visit(lat.span.bytes)
            try visit(lon.span.bytes)
            try visit(time.span.bytes)
            try visit(category.span.bytes)
            try visit(categoryPad.span.bytes)
            try visit(snapshot.handled.span.bytes)
            try visit(handledPad.span.bytes)
            try visit(table.span.bytes)
        }
        var crc = checksum(0, header.span.bytes.extracting(0..<checksumOffset))
        columns { crc = checksum(crc, $0) }
        for k in 0..<4 { header[checksumOffset + k] = UInt8(truncatingIfNeeded: crc >> (8 * k)) }
        try body(header.span.bytes)
        try columns(body)
    }

    /// The header of `snapshot` with its checksum field zero.
    private static func header(_ snapshot: ColumnSnapshot, textBytes: Int, fileLength: Int) -> [UInt8] {
        var header = BinaryWriter(capacity: headerSize)
        header.bytes += magic
        header.u32(version)
        header.u32(UInt32(headerSize))
        header.u64(UInt64(snapshot.count))
        header.u64(UInt64(snapshot.categoryTexts.count))
        header.u64(UInt64(textBytes))
        header.u64(UInt64(fileLength))
        header.i64(snapshot.stamp.generation)
        header.bytes += snapshot.stamp.token
        header.i64(snapshot.stamp.lastIncidentRowid)
        header.i64(snapshot.stamp.lastIngestRowid)
        header.u32(snapshot.rowidsAreDense ? flagDenseRowids : 0)
        header.bytes += [UInt8](repeating: 0, count: headerSize - header.bytes.count)
        return header.bytes
    }

    /// The CRC-32 a whole file in memory should carry: of its header before the checksum field,
    /// then of everything after the header.
    public static func fileChecksum(_ bytes: RawSpan, _ checksum: Checksum) -> UInt32 {
        let head = checksum(0, bytes.extracting(0..<checksumOffset))
        return checksum(head, bytes.extracting(headerSize..<bytes.byteCount))
    }

    // MARK: Decoding

    /// The header alone: enough to compare the stamp and the length before reading the rest.
    public struct Header: Sendable, Equatable {
        public var rows: Int
        public var categoryCount: Int
        public var textBytes: Int
        public var fileLength: Int
        public var stamp: StoreStamp
        public var rowidsAreDense: Bool
    }

    /// Reads and checks the header (the first `headerSize` bytes of the file).
    public static func header(_ bytes: RawSpan) throws(Invalid) -> Header {
        guard bytes.byteCount >= headerSize else {
            throw Invalid(reason: "shorter than its header (\(bytes.byteCount) bytes)")
        }
        guard Self.bytes(bytes, 0..<8) == magic else { throw Invalid(reason: "not a column snapshot (magic)") }
        let version = u32(bytes, 8)
        guard version == ColumnSnapshotFormat.version else {
            throw Invalid(reason: "format version \(version), this areawatch reads \(ColumnSnapshotFormat.version)")
        }
        guard u32(bytes, 12) == UInt32(headerSize) else { throw Invalid(reason: "header size \(u32(bytes, 12))") }
        let flags = u32(bytes, 88)
        guard flags & ~flagDenseRowids == 0 else { throw Invalid(reason: "unknown flags \(flags)") }
        guard Self.bytes(bytes, 92..<checksumOffset).allSatisfy({ $0 == 0 }) else {
            throw Invalid(reason: "reserved header bytes are not zero")
        }
        let rows = u64(bytes, 16), categories = u64(bytes, 24), textBytes = u64(bytes, 32), length = u64(bytes, 40)
        guard let layout = Layout(rows: rows, textBytes: textBytes), UInt64(layout.end) == length else {
            throw Invalid(
                reason: "its lengths disagree (\(rows) rows, \(textBytes) category bytes, \(length) bytes in all)")
        }
        // Each category takes at least its 4-byte length.
        guard categories <= textBytes / 4 else {
            throw Invalid(reason: "\(categories) categories in \(textBytes) bytes")
        }
        let stamp = StoreStamp(
            generation: Int64(bitPattern: u64(bytes, 48)), token: Self.bytes(bytes, 56..<72),
            lastIncidentRowid: Int64(bitPattern: u64(bytes, 72)), lastIngestRowid: Int64(bitPattern: u64(bytes, 80)))
        let dense = flags & flagDenseRowids != 0
        if dense && UInt64(bitPattern: stamp.lastIncidentRowid) != rows {
            throw Invalid(reason: "\(rows) rows with rowids 1…n but the last rowid is \(stamp.lastIncidentRowid)")
        }
        return Header(
            rows: Int(rows), categoryCount: Int(categories), textBytes: Int(textBytes), fileLength: layout.end,
            stamp: stamp, rowidsAreDense: dense)
    }

    /// Decodes a whole file held in memory; throws `Invalid` for anything but an intact snapshot.
    public static func decode(_ bytes: RawSpan, checksum: Checksum) throws(Invalid) -> ColumnSnapshot {
        try decode(size: bytes.byteCount, checksum: checksum) { offset, out in
            guard offset >= 0, offset <= bytes.byteCount, out.byteCount <= bytes.byteCount - offset else {
                return false
            }
            let source = bytes.extracting(offset..<offset + out.byteCount)
            out.withUnsafeMutableBytes { into in source.withUnsafeBytes { into.copyMemory(from: $0) } }
            return true
        }
    }

    /// Decodes a file of `size` bytes, `read(offset, buffer)` filling `buffer` from the file
    /// (false when it cannot): each column is read straight into its array, the checksum
    /// computed as it comes.
    public static func decode(
        size: Int, checksum: Checksum,
        read: (_ offset: Int, _ into: inout MutableRawSpan) -> Bool
    ) throws(Invalid) -> ColumnSnapshot {
        var head = [UInt8](repeating: 0, count: headerSize)
        guard size >= headerSize, readFully(into: &head, at: 0, read) else {
            throw Invalid(reason: "shorter than its header (\(size) bytes)")
        }
        let header = try ColumnSnapshotFormat.header(head.span.bytes)
        guard size == header.fileLength else {
            throw Invalid(reason: "\(size) bytes where the header says \(header.fileLength) (truncated or extended)")
        }
        guard let layout = Layout(rows: UInt64(header.rows), textBytes: UInt64(header.textBytes)) else {
            throw Invalid(reason: "lengths overflow")
        }
        var crc = checksum(0, head.span.bytes.extracting(0..<checksumOffset))
        var failed = false
        var nonzeroPadding = false
        // Room for the rows of the next nights: a night appends its rows to the snapshot it
        // read, which would otherwise reallocate and copy every column first.
        let headroom = header.rows / 64 + 65_536
        func column<T: BitwiseCopyable>(_ offset: Int, _ n: Int, as: T.Type, spare: Int = 0) -> [T] {
            // Uninitialized, advised for huge pages before the read faults its pages in, then
            // initialized whole (zeroed first where the read fails).
            [T](unsafeUninitializedCapacity: n + spare) { whole, initialized in
                let storage = UnsafeMutableRawBufferPointer(whole)
                HugePageAllocation.adviseHugePages(storage)
                let raw = UnsafeMutableRawBufferPointer(rebasing: storage[0..<n * MemoryLayout<T>.stride])
                var out = raw.mutableBytes
                if !failed && read(offset, &out) {
                    crc = checksum(crc, raw.bytes)
                } else {
                    failed = true
                    raw.initializeMemory(as: UInt8.self, repeating: 0)
                }
                initialized = n
            }
        }
        func padding(_ offset: Int, _ count: Int) {
            let bytes: [UInt8] = column(offset, count, as: UInt8.self)
            if bytes.contains(where: { $0 != 0 }) { nonzeroPadding = true }
        }
        let n = header.rows
        var snapshot = ColumnSnapshot(stamp: header.stamp, rowidsAreDense: header.rowidsAreDense)
        snapshot.lat = column(layout.lat, n, as: Double.self, spare: headroom)
        snapshot.lon = column(layout.lon, n, as: Double.self, spare: headroom)
        snapshot.time = column(layout.time, n, as: Int64.self, spare: headroom)
        snapshot.category = column(layout.category, n, as: Int32.self, spare: headroom)
        padding(layout.category + 4 * n, layout.handled - layout.category - 4 * n)
        snapshot.handled = column(layout.handled, n, as: Int8.self, spare: headroom)
        padding(layout.handled + n, layout.texts - layout.handled - n)
        let table = column(layout.texts, layout.end - layout.texts, as: UInt8.self)
        guard !failed else { throw Invalid(reason: "could not be read whole") }
        let stored = u32(head.span.bytes, checksumOffset)
        guard stored == crc else { throw Invalid(reason: "checksum mismatch (damaged)") }
        guard !nonzeroPadding, table[header.textBytes...].allSatisfy({ $0 == 0 }) else {
            throw Invalid(reason: "padding is not zero")
        }
        #if _endian(big)
            snapshot.lat = snapshot.lat.map { Double(bitPattern: UInt64(littleEndian: $0.bitPattern)) }
            snapshot.lon = snapshot.lon.map { Double(bitPattern: UInt64(littleEndian: $0.bitPattern)) }
            snapshot.time = snapshot.time.map { Int64(littleEndian: $0) }
            snapshot.category = snapshot.category.map { Int32(littleEndian: $0) }
        #endif
        snapshot.categoryTexts = try texts(table, bytes: header.textBytes, count: header.categoryCount)
        try check(snapshot)
        return snapshot
    }

    /// Fills `out` with the file's bytes from `offset` on, through `read`.
    private static func readFully(
        into out: inout [UInt8], at offset: Int, _ read: (_ offset: Int, _ into: inout MutableRawSpan) -> Bool
    ) -> Bool {
        var span = out.mutableSpan
        var raw = span.mutableBytes
        return read(offset, &raw)
    }

    private static func texts(_ table: [UInt8], bytes textBytes: Int, count: Int) throws(Invalid) -> [String] {
        let span = table.span.bytes
        var texts: [String] = []
        texts.reserveCapacity(count)
        var at = 0
        let end = textBytes
        for k in 0..<count {
            guard at + 4 <= end else { throw Invalid(reason: "category \(k) runs past its table") }
            let length = Int(u32(span, at))
            guard length <= end - at - 4 else { throw Invalid(reason: "category \(k) runs past its table") }
            guard let text = String(validating: table[at + 4..<at + 4 + length], as: UTF8.self) else {
                throw Invalid(reason: "category \(k) is not UTF-8")
            }
            texts.append(text)
            at += 4 + length
        }
        guard at == end else { throw Invalid(reason: "\(end - at) bytes left after the category table") }
        return texts
    }

    /// Every value in range: what the store can hold and what the query stage indexes with.
    private static func check(_ s: ColumnSnapshot) throws(Invalid) {
        let categories = Int32(clamping: s.categoryTexts.count)
        var bad = -1
        let c = s.category.span, h = s.handled.span
        precondition(h.count == c.count)
        for i in c.indices
        where c[unchecked: i] < -1 || c[unchecked: i] >= categories || h[unchecked: i] < -1 || h[unchecked: i] > 1 {
            bad = i
            break
        }
        if bad >= 0 { throw Invalid(reason: "row \(bad): category or handled code out of range") }
        let lat = s.lat.span, lon = s.lon.span
        precondition(lon.count == lat.count)
        // `!(a <= x && x <= b)` is also true for NaN.
        for i in lat.indices {
            let y = lat[unchecked: i], x = lon[unchecked: i]
            if !(-90 <= y && y <= 90 && -180 <= x && x <= 180) {
                bad = i
                break
            }
        }
        if bad >= 0 { throw Invalid(reason: "row \(bad): coordinates off the globe") }
    }

    /// Little-endian fields of a span, bounds-checked.
    private static func u32(_ bytes: RawSpan, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private static func u64(_ bytes: RawSpan, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func bytes(_ bytes: RawSpan, _ range: Range<Int>) -> [UInt8] {
        range.map { bytes.unsafeLoad(fromByteOffset: $0, as: UInt8.self) }
    }
}
