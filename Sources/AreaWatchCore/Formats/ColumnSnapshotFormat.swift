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
    public typealias Checksum = @Sendable (_ running: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32

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

    /// The whole file as one array (tests, small snapshots); `withPieces` writes without a copy.
    public static func encode(_ snapshot: ColumnSnapshot, checksum: Checksum) -> [UInt8] {
        withPieces(snapshot, checksum: checksum) { pieces in pieces.reduce(into: [UInt8]()) { $0 += $1 } }
    }

    /// Hands `body` the file's bytes in order as pieces: the header, then each column straight
    /// from its array (no copy of the columns on a little-endian host), the padding and the
    /// category table. The checksum is computed first, over the same pieces.
    public static func withPieces<R>(
        _ snapshot: ColumnSnapshot, checksum: Checksum,
        _ body: ([UnsafeRawBufferPointer]) throws -> R
    ) rethrows -> R {
        let n = snapshot.count
        precondition(
            snapshot.lon.count == n && snapshot.time.count == n && snapshot.handled.count == n
                && snapshot.category.count == n && snapshot.stamp.token.count == StoreStamp.tokenBytes)
        var table: [UInt8] = []
        for text in snapshot.categoryTexts {
            let bytes = Array(text.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { table += $0 }
            table += bytes
        }
        let textBytes = table.count
        guard let layout = Layout(rows: UInt64(n), textBytes: UInt64(textBytes)) else {
            preconditionFailure("a column snapshot of \(n) rows is beyond the format")
        }
        table += [UInt8](repeating: 0, count: Layout.padded(textBytes) - textBytes)
        var header = [UInt8](repeating: 0, count: headerSize)
        header.withUnsafeMutableBytes { out in
            func u32(_ v: UInt32, _ at: Int) { out.storeBytes(of: v.littleEndian, toByteOffset: at, as: UInt32.self) }
            func u64(_ v: UInt64, _ at: Int) { out.storeBytes(of: v.littleEndian, toByteOffset: at, as: UInt64.self) }
            for (k, b) in magic.enumerated() { out[k] = b }
            u32(version, 8)
            u32(UInt32(headerSize), 12)
            u64(UInt64(n), 16)
            u64(UInt64(snapshot.categoryTexts.count), 24)
            u64(UInt64(textBytes), 32)
            u64(UInt64(layout.end), 40)
            u64(UInt64(bitPattern: snapshot.stamp.generation), 48)
            for (k, b) in snapshot.stamp.token.enumerated() { out[56 + k] = b }
            u64(UInt64(bitPattern: snapshot.stamp.lastIncidentRowid), 72)
            u64(UInt64(bitPattern: snapshot.stamp.lastIngestRowid), 80)
            u32(snapshot.rowidsAreDense ? flagDenseRowids : 0, 88)
        }
        let categoryPad = [UInt8](repeating: 0, count: Layout.padded(4 * n) - 4 * n)
        let handledPad = [UInt8](repeating: 0, count: Layout.padded(n) - n)
        return try littleEndian(snapshot.lat.map(\.bitPattern), bitPatternOf: snapshot.lat) { lat in
            try littleEndian(snapshot.lon.map(\.bitPattern), bitPatternOf: snapshot.lon) { lon in
                try littleEndian(snapshot.time) { time in
                    try littleEndian(snapshot.category) { category in
                        try littleEndian(snapshot.handled) { handled in
                            try categoryPad.withUnsafeBytes { categoryPad in
                                try handledPad.withUnsafeBytes { handledPad in
                                    try table.withUnsafeBytes { table in
                                        let columns = [
                                            lat, lon, time, category, categoryPad, handled, handledPad, table
                                        ]
                                        var crc = header.withUnsafeBytes {
                                            checksum(0, UnsafeRawBufferPointer(rebasing: $0[0..<checksumOffset]))
                                        }
                                        for piece in columns { crc = checksum(crc, piece) }
                                        header.withUnsafeMutableBytes {
                                            $0.storeBytes(
                                                of: crc.littleEndian, toByteOffset: checksumOffset, as: UInt32.self)
                                        }
                                        return try header.withUnsafeBytes { try body([$0] + columns) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The CRC-32 a whole file in memory should carry: of its header before the checksum field,
    /// then of everything after the header.
    public static func fileChecksum(_ bytes: UnsafeRawBufferPointer, _ checksum: Checksum) -> UInt32 {
        let head = checksum(0, UnsafeRawBufferPointer(rebasing: bytes[0..<checksumOffset]))
        return checksum(head, UnsafeRawBufferPointer(rebasing: bytes[headerSize...]))
    }

    /// The array's bytes little-endian: the array itself on a little-endian host.
    private static func littleEndian<T: FixedWidthInteger, R>(
        _ values: [T], _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        #if _endian(little)
            return try values.withUnsafeBytes(body)
        #else
            return try values.map(\.littleEndian).withUnsafeBytes(body)
        #endif
    }

    /// A Double column's bytes: the array itself on a little-endian host (`bits` is then unused
    /// and, being lazy, never built).
    private static func littleEndian<R>(
        _ bits: @autoclosure () -> [UInt64], bitPatternOf values: [Double],
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        #if _endian(little)
            return try values.withUnsafeBytes(body)
        #else
            return try littleEndian(bits(), body)
        #endif
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
    public static func header(_ bytes: UnsafeRawBufferPointer) throws(Invalid) -> Header {
        guard bytes.count >= headerSize else { throw Invalid(reason: "shorter than its header (\(bytes.count) bytes)") }
        guard magic.withUnsafeBytes({ $0.elementsEqual(bytes[0..<8]) }) else {
            throw Invalid(reason: "not a column snapshot (magic)")
        }
        let r = Reader(bytes: bytes)
        let version = r.u32(8)
        guard version == ColumnSnapshotFormat.version else {
            throw Invalid(reason: "format version \(version), this areawatch reads \(ColumnSnapshotFormat.version)")
        }
        guard r.u32(12) == UInt32(headerSize) else { throw Invalid(reason: "header size \(r.u32(12))") }
        let flags = r.u32(88)
        guard flags & ~flagDenseRowids == 0 else { throw Invalid(reason: "unknown flags \(flags)") }
        guard bytes[92..<checksumOffset].allSatisfy({ $0 == 0 }) else {
            throw Invalid(reason: "reserved header bytes are not zero")
        }
        let rows = r.u64(16), categories = r.u64(24), textBytes = r.u64(32), length = r.u64(40)
        guard let layout = Layout(rows: rows, textBytes: textBytes), UInt64(layout.end) == length else {
            throw Invalid(
                reason: "its lengths disagree (\(rows) rows, \(textBytes) category bytes, \(length) bytes in all)")
        }
        // Each category takes at least its 4-byte length.
        guard categories <= textBytes / 4 else {
            throw Invalid(reason: "\(categories) categories in \(textBytes) bytes")
        }
        let stamp = StoreStamp(
            generation: Int64(bitPattern: r.u64(48)), token: Array(bytes[56..<72]),
            lastIncidentRowid: Int64(bitPattern: r.u64(72)), lastIngestRowid: Int64(bitPattern: r.u64(80)))
        let dense = flags & flagDenseRowids != 0
        if dense && UInt64(bitPattern: stamp.lastIncidentRowid) != rows {
            throw Invalid(reason: "\(rows) rows with rowids 1…n but the last rowid is \(stamp.lastIncidentRowid)")
        }
        return Header(
            rows: Int(rows), categoryCount: Int(categories), textBytes: Int(textBytes), fileLength: layout.end,
            stamp: stamp, rowidsAreDense: dense)
    }

    /// Decodes a whole file held in memory; throws `Invalid` for anything but an intact snapshot.
    public static func decode(_ bytes: UnsafeRawBufferPointer, checksum: Checksum) throws(Invalid) -> ColumnSnapshot {
        try decode(size: bytes.count, checksum: checksum) { offset, out in
            guard offset >= 0, offset <= bytes.count, out.count <= bytes.count - offset else { return false }
            out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + out.count]))
            return true
        }
    }

    /// Decodes a file of `size` bytes, `read(offset, buffer)` filling `buffer` from the file
    /// (false when it cannot): each column is read straight into its array, the checksum
    /// computed as it comes.
    public static func decode(
        size: Int, checksum: Checksum,
        read: (_ offset: Int, _ into: UnsafeMutableRawBufferPointer) -> Bool
    ) throws(Invalid) -> ColumnSnapshot {
        var head = [UInt8](repeating: 0, count: headerSize)
        guard size >= headerSize, head.withUnsafeMutableBytes({ read(0, $0) }) else {
            throw Invalid(reason: "shorter than its header (\(size) bytes)")
        }
        let header = try head.withUnsafeBytes { bytes in
            Result { () throws(Invalid) in try ColumnSnapshotFormat.header(bytes) }
        }.get()
        guard size == header.fileLength else {
            throw Invalid(reason: "\(size) bytes where the header says \(header.fileLength) (truncated or extended)")
        }
        guard let layout = Layout(rows: UInt64(header.rows), textBytes: UInt64(header.textBytes)) else {
            throw Invalid(reason: "lengths overflow")
        }
        var crc = head.withUnsafeBytes { checksum(0, UnsafeRawBufferPointer(rebasing: $0[0..<checksumOffset])) }
        var failed = false
        var nonzeroPadding = false
        // Room for the rows of the next nights: a night appends its rows to the snapshot it
        // read, which would otherwise reallocate and copy every column first.
        let headroom = header.rows / 64 + 65_536
        func column<T: BitwiseCopyable>(_ offset: Int, _ n: Int, as: T.Type, spare: Int = 0) -> [T] {
            [T](unsafeUninitializedCapacity: n + spare) { whole, initialized in
                let out = UnsafeMutableBufferPointer(rebasing: whole[0..<n])
                let raw = UnsafeMutableRawBufferPointer(out)
                HugePageAllocation.adviseHugePages(UnsafeMutableRawBufferPointer(whole))
                if !failed && read(offset, raw) {
                    crc = checksum(crc, UnsafeRawBufferPointer(raw))
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
        let stored = UInt32(
            littleEndian: head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: checksumOffset, as: UInt32.self) })
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
        snapshot.categoryTexts = try table.withUnsafeBytes { bytes in
            Result { () throws(Invalid) in
                try texts(Reader(bytes: bytes), from: 0, bytes: header.textBytes, count: header.categoryCount)
            }
        }.get()
        try check(snapshot)
        return snapshot
    }

    private static func texts(_ r: Reader, from start: Int, bytes: Int, count: Int) throws(Invalid) -> [String] {
        var texts: [String] = []
        texts.reserveCapacity(count)
        var at = start
        let end = start + bytes
        for k in 0..<count {
            guard at + 4 <= end else { throw Invalid(reason: "category \(k) runs past its table") }
            let length = Int(r.u32(at))
            guard length <= end - at - 4 else { throw Invalid(reason: "category \(k) runs past its table") }
            guard let text = String(validating: r.bytes[at + 4..<at + 4 + length], as: UTF8.self) else {
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
        s.category.withUnsafeBufferPointer { c in
            s.handled.withUnsafeBufferPointer { h in
                for i in c.indices where c[i] < -1 || c[i] >= categories || h[i] < -1 || h[i] > 1 {
                    bad = i
                    break
                }
            }
        }
        if bad >= 0 { throw Invalid(reason: "row \(bad): category or handled code out of range") }
        s.lat.withUnsafeBufferPointer { lat in
            s.lon.withUnsafeBufferPointer { lon in
                // `!(a <= x && x <= b)` is also true for NaN.
                for i in lat.indices where !(-90 <= lat[i] && lat[i] <= 90 && -180 <= lon[i] && lon[i] <= 180) {
                    bad = i
                    break
                }
            }
        }
        if bad >= 0 { throw Invalid(reason: "row \(bad): coordinates off the globe") }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer

        func u32(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        func u64(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }
}
