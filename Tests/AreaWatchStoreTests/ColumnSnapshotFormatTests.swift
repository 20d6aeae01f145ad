import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// The column snapshot file as hostile input (docs/FORMATS.md, "The column snapshot"): every
/// truncation, every flipped byte, lengths and values out of range behind a correct checksum,
/// files that are not regular files. Each must be refused with a reason — never a crash, a
/// hang, or columns that differ from what was written.
@Suite("Column snapshot format")
struct ColumnSnapshotFormatTests {
    static let crc = ColumnSnapshotFile.crc32

    /// Seeded rows with categories that collide under String equality but not as bytes
    /// (NFC and NFD "é"), an empty one and none.
    static func randomSnapshot(rows: Int, seed: UInt64) -> ColumnSnapshot {
        var rng = SplitMix64(seed: seed)
        let categories: [String?] = ["burglary", "caf\u{E9}", "cafe\u{301}", "", nil, "vehicle crime", "drugs"]
        var token = [UInt8](repeating: 0, count: StoreStamp.tokenBytes)
        for k in token.indices { token[k] = UInt8(truncatingIfNeeded: rng.next()) }
        var snapshot = ColumnSnapshot(
            stamp: StoreStamp(
                generation: Int64(rng.next() % 1000), token: token,
                lastIncidentRowid: Int64(rows), lastIngestRowid: 3))
        for _ in 0..<rows {
            snapshot.append(row(&rng, categories))
        }
        return snapshot
    }

    static func row(_ rng: inout SplitMix64, _ categories: [String?]) -> ColumnSnapshot.Row {
        ColumnSnapshot.Row(
            lat: Double(Int(rng.next() % 180_000_000)) / 1e6 - 90,
            lon: Double(Int(rng.next() % 360_000_000)) / 1e6 - 180,
            time: Int64(rng.next() % 2_000_000_000), handled: [true, false, nil][Int(rng.next() % 3)],
            category: categories[Int(rng.next() % UInt64(categories.count))])
    }

    static func decode(_ bytes: [UInt8]) throws(ColumnSnapshotFormat.Invalid) -> ColumnSnapshot {
        try ColumnSnapshotFormat.decode(bytes.span.bytes, checksum: crc)
    }

    /// The bytes with their checksum recomputed: a forged or self-consistent file, so the
    /// value checks behind the checksum are what must refuse it.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        let crc = ColumnSnapshotFormat.fileChecksum(bytes.span.bytes, Self.crc)
        withUnsafeBytes(of: crc.littleEndian) { for k in 0..<4 { out[124 + k] = $0[k] } }
        return out
    }

    static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { for k in 0..<$0.count { bytes[offset + k] = $0[k] } }
    }

    @Test("round trip: decode(encode(s)) == s, whatever the sizes", arguments: [0, 1, 7, 8, 9, 1000])
    func roundTrip(rows: Int) throws {
        let snapshot = Self.randomSnapshot(rows: rows, seed: UInt64(rows) + 5)
        let bytes = ColumnSnapshotFormat.encode(snapshot, checksum: Self.crc)
        #expect(bytes.count % 8 == 0)
        #expect(try Self.decode(bytes) == snapshot)
    }

    @Test("a decoded snapshot has room for a night's rows: appending them keeps every column in place")
    func roomForTheNextNight() throws {
        let rows = 5000
        var snapshot = try Self.decode(
            ColumnSnapshotFormat.encode(Self.randomSnapshot(rows: rows, seed: 17), checksum: Self.crc))
        let room = rows / 64 + 65_536
        for capacity in [
            snapshot.lat.capacity, snapshot.lon.capacity, snapshot.time.capacity, snapshot.handled.capacity,
            snapshot.category.capacity
        ] {
            #expect(capacity >= rows + room)
        }
        let before = snapshot.lat.withUnsafeBufferPointer { $0.baseAddress }
        var rng = SplitMix64(seed: 18)
        snapshot.reserveCapacity(rows + room)
        for _ in 0..<room { snapshot.append(Self.row(&rng, ["theft", nil])) }
        #expect(snapshot.lat.withUnsafeBufferPointer { $0.baseAddress } == before, "the column was not moved")
    }

    /// `encode` is built from the pieces, so the pieces are checked against the decoder and the
    /// layout FORMATS.md gives, not against `encode`.
    @Test("the pieces written are a file that decodes to the snapshot, checksum included, in FORMATS.md's layout")
    func piecesAreTheFile() throws {
        let snapshot = Self.randomSnapshot(rows: 33, seed: 9)
        var pieces: [UInt8] = []
        ColumnSnapshotFormat.forEachPiece(snapshot, checksum: Self.crc) { piece in
            pieces += (0..<piece.byteCount).map { piece.unsafeLoad(fromByteOffset: $0, as: UInt8.self) }
        }
        #expect(try Self.decode(pieces) == snapshot)
        #expect(Self.resealed(pieces) == pieces, "the checksum at byte 124 is the file's")
        let table = snapshot.categoryTexts.reduce(0) { $0 + 4 + $1.utf8.count }
        // Header, three 8-byte columns, categories (132 bytes padded to 136), handled (33 → 40), table padded.
        #expect(pieces.count == 128 + 3 * 8 * 33 + 136 + 40 + (table + 7) / 8 * 8)
        #expect(Array(pieces[0..<8]) == Array("AWCOLUMN".utf8))
    }

    @Test("every truncation and every extension is refused")
    func truncations() {
        let bytes = ColumnSnapshotFormat.encode(Self.randomSnapshot(rows: 40, seed: 2), checksum: Self.crc)
        for length in 0..<bytes.count {
            #expect(throws: ColumnSnapshotFormat.Invalid.self, "cut to \(length)") {
                try Self.decode(Array(bytes[0..<length]))
            }
        }
        #expect(throws: ColumnSnapshotFormat.Invalid.self) { try Self.decode(bytes + [0]) }
        #expect(throws: ColumnSnapshotFormat.Invalid.self) { try Self.decode(bytes + [UInt8](repeating: 0, count: 8)) }
    }

    @Test("every single flipped byte is refused (by the checksum or by the header)")
    func flippedBytes() {
        let bytes = ColumnSnapshotFormat.encode(Self.randomSnapshot(rows: 40, seed: 3), checksum: Self.crc)
        for position in bytes.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = bytes
                damaged[position] ^= mask
                #expect(throws: ColumnSnapshotFormat.Invalid.self, "byte \(position) ^ \(mask)") {
                    try Self.decode(damaged)
                }
            }
        }
    }

    @Test("values out of range behind a correct checksum are refused")
    func forgedValues() throws {
        let snapshot = Self.randomSnapshot(rows: 10, seed: 4)
        let bytes = ColumnSnapshotFormat.encode(snapshot, checksum: Self.crc)
        let n = 10
        let category = 128 + 24 * n, handled = category + 40, texts = handled + 16
        var cases: [(String, [UInt8])] = []
        var b = bytes
        Self.put(Int32(snapshot.categoryTexts.count), at: category + 4, in: &b)
        cases.append(("category past the table", b))
        b = bytes
        Self.put(Int32(-2), at: category, in: &b)
        cases.append(("category -2", b))
        b = bytes
        Self.put(Int8(2), at: handled + 3, in: &b)
        cases.append(("handled 2", b))
        b = bytes
        Self.put(Double.nan.bitPattern, at: 128 + 8, in: &b)
        cases.append(("latitude NaN", b))
        b = bytes
        Self.put(Double(91).bitPattern, at: 128, in: &b)
        cases.append(("latitude 91", b))
        b = bytes
        Self.put((-180.5).bitPattern, at: 128 + 8 * n, in: &b)
        cases.append(("longitude -180.5", b))
        b = bytes
        Self.put(UInt32(0xFFFF_FFF0), at: texts, in: &b)
        cases.append(("category text longer than its table", b))
        b = bytes
        b[texts + 4] = 0xFF
        cases.append(("category text not UTF-8", b))
        b = bytes
        Self.put(UInt64(1) << 39, at: 16, in: &b)
        cases.append(("2^39 rows in a small file", b))
        b = bytes
        Self.put(UInt64.max, at: 16, in: &b)
        cases.append(("2^64-1 rows", b))
        b = bytes
        Self.put(UInt64.max - 7, at: 32, in: &b)
        cases.append(("category table of 2^64-8 bytes", b))
        b = bytes
        Self.put(UInt64(1) << 40, at: 24, in: &b)
        cases.append(("2^40 categories", b))
        b = bytes
        Self.put(UInt32(2), at: 8, in: &b)
        cases.append(("version 2", b))
        b = bytes
        Self.put(UInt32(2), at: 88, in: &b)
        cases.append(("unknown flag", b))
        b = bytes
        b[100] = 1
        cases.append(("reserved byte set", b))
        b = bytes
        b[handled + n] = 1
        cases.append(("padding set", b))
        b = bytes
        Self.put(Int64(11), at: 72, in: &b)
        cases.append(("dense rowids but last rowid 11 for 10 rows", b))
        for (name, forged) in cases {
            #expect(throws: ColumnSnapshotFormat.Invalid.self, "\(name)") { try Self.decode(Self.resealed(forged)) }
        }
        // The offsets above are right: the untouched file resealed still decodes.
        #expect(try Self.decode(Self.resealed(bytes)) == snapshot)
    }

    @Test("a FIFO, a folder or an empty file in the snapshot's place: refused at once")
    func notRegularFiles() throws {
        let dir = try TempDir()
        let stamp = Self.randomSnapshot(rows: 0, seed: 1).stamp
        let fifo = dir.path + "/fifo.columns"
        #expect(mkfifo(fifo, 0o644) == 0)
        guard case .invalid = ColumnSnapshotFile.read(path: fifo, expecting: stamp) else {
            Issue.record("a FIFO was read")
            return
        }
        let folder = try dir.folder("folder.columns")
        guard case .invalid = ColumnSnapshotFile.read(path: folder, expecting: stamp) else {
            Issue.record("a folder was read")
            return
        }
        let empty = try dir.file("empty.columns", "")
        guard case .invalid = ColumnSnapshotFile.read(path: empty, expecting: stamp) else {
            Issue.record("an empty file was read")
            return
        }
        guard case .missing = ColumnSnapshotFile.read(path: dir.path + "/none.columns", expecting: stamp) else {
            Issue.record("a missing file was not reported missing")
            return
        }
    }

    @Test("written atomically, read back equal; a different stamp is stale; leftovers of killed writers removed")
    func fileRoundTrip() throws {
        let dir = try TempDir()
        let path = dir.path + "/s.db.columns"
        let snapshot = Self.randomSnapshot(rows: 5000, seed: 8)
        let leftover = try dir.file("s.db.columns.tmp-99999999", "half a file")
        try ColumnSnapshotFile.write(snapshot, to: path)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir.path)).contains { $0.contains(".tmp-") })
        guard case .valid(let read) = ColumnSnapshotFile.read(path: path, expecting: snapshot.stamp) else {
            Issue.record("not read back")
            return
        }
        #expect(read == snapshot)
        var other = snapshot.stamp
        other.generation += 1
        guard case .invalid(let reason) = ColumnSnapshotFile.read(path: path, expecting: other) else {
            Issue.record("stale read")
            return
        }
        #expect(reason.contains("stale"))

        // More rows than the store has rowids: refused before anything is allocated for them.
        var oversized = snapshot
        oversized.rowidsAreDense = false
        oversized.stamp.lastIncidentRowid = 10
        try ColumnSnapshotFile.write(oversized, to: path)
        guard case .invalid(let tooMany) = ColumnSnapshotFile.read(path: path, expecting: oversized.stamp) else {
            Issue.record("5000 rows taken for a store whose last rowid is 10")
            return
        }
        #expect(tooMany.contains("more than the store's last rowid"))
    }
}
