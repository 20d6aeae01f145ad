import Foundation
import NIOCore

/// A PMTiles version 3 archive read whole from memory (the public PMTiles v3 specification):
/// the 127-byte header, the root directory and the leaf directories (varint-encoded, run-length
/// entries, compressed with the header's internal compression), flattened once at load into one
/// sorted entry list, so a bad archive is refused when the report is loaded, not per request.
public struct PMTilesArchive: Sendable {
    public enum Compression: UInt8, Sendable { case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4 }

    public struct Header: Sendable, Equatable {
        public var rootOffset, rootLength, metadataOffset, metadataLength: UInt64
        public var leafOffset, leafLength, tileDataOffset, tileDataLength: UInt64
        public var addressedTiles, tileEntries, tileContents: UInt64
        public var clustered: Bool
        public var internalCompression: UInt8, tileCompression: UInt8, tileType: UInt8
        public var minZoom: UInt8, maxZoom: UInt8
        public var minLonE7, minLatE7, maxLonE7, maxLatE7: Int32
        public var centerZoom: UInt8
        public var centerLonE7, centerLatE7: Int32
    }

    /// A tile run: `runLength` consecutive tile IDs from `tileID` share one content.
    struct Entry: Sendable { var tileID: UInt64; var offset: UInt64; var length: UInt64; var runLength: UInt64 }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let message: String
        public var description: String { "\(path): \(message)" }
    }

    public let header: Header
    /// The JSON metadata, decompressed.
    public let metadata: [UInt8]
    /// The archive's bytes; a tile is served as a slice of them.
    private let buffer: ByteBuffer
    private let entries: [Entry]

    /// Leaf directories nest at most this deep (the reference readers stop at 3 levels; a deeper
    /// chain, or a cycle, is a broken or hostile archive).
    static let maxDepth = 4
    /// A directory or the metadata decompresses to at most this (far above any real archive's).
    static let maxDecompressed = 64 << 20

    public init(bytes: [UInt8], path: String) throws {
        try self.init(buffer: ByteBuffer(bytes: bytes), path: path)
    }

    public init(buffer: ByteBuffer, path: String) throws {
        // A slice starts at index 0, so the view's indices are the file's offsets.
        self.buffer = buffer.slice()
        let bytes = self.buffer.readableBytesView
        let fail = { (message: String) in Failure(path: path, message: message) }
        guard bytes.count >= 127, bytes[0..<7].elementsEqual("PMTiles".utf8) else { throw fail("not a PMTiles archive (no PMTiles magic)") }
        guard bytes[7] == 3 else { throw fail("PMTiles version \(bytes[7]), only version 3 is read") }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        func i32(_ at: Int) -> Int32 { Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }) }
        let h = Header(rootOffset: u64(8), rootLength: u64(16), metadataOffset: u64(24), metadataLength: u64(32),
                       leafOffset: u64(40), leafLength: u64(48), tileDataOffset: u64(56), tileDataLength: u64(64),
                       addressedTiles: u64(72), tileEntries: u64(80), tileContents: u64(88), clustered: bytes[96] == 1,
                       internalCompression: bytes[97], tileCompression: bytes[98], tileType: bytes[99],
                       minZoom: bytes[100], maxZoom: bytes[101], minLonE7: i32(102), minLatE7: i32(106),
                       maxLonE7: i32(110), maxLatE7: i32(114), centerZoom: bytes[118], centerLonE7: i32(119), centerLatE7: i32(123))
        header = h
        for (name, offset, length) in [("root directory", h.rootOffset, h.rootLength), ("metadata", h.metadataOffset, h.metadataLength),
                                       ("leaf directories", h.leafOffset, h.leafLength), ("tile data", h.tileDataOffset, h.tileDataLength)] {
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else {
                throw fail("\(name): bytes \(offset)+\(length) are beyond the end of the file (\(bytes.count) bytes)")
            }
        }
        let packing = h.internalCompression
        guard packing == Compression.none.rawValue || packing == Compression.gzip.rawValue else {
            throw fail("internal compression \(packing) is not supported (none or gzip)")
        }
        func section(_ offset: UInt64, _ length: UInt64, _ what: String) throws -> [UInt8] {
            let raw = bytes[Int(offset)..<Int(offset + length)]
            if raw.isEmpty { return [] }
            if packing == Compression.none.rawValue { return Array(raw) }
            do { return try Gzip.inflate(raw, limit: Self.maxDecompressed) } catch let e as Gzip.Failure {
                throw fail("\(what) at byte \(offset): \(e.message)")
            }
        }
        metadata = try section(h.metadataOffset, h.metadataLength, "metadata")
        var flat: [Entry] = []
        func walk(_ offset: UInt64, _ length: UInt64, depth: Int, what: String) throws {
            guard depth <= Self.maxDepth else { throw fail("leaf directories nested deeper than \(Self.maxDepth) levels") }
            let entries = try Self.decodeDirectory(try section(offset, length, what)) { fail("\(what) at byte \(offset): \($0)") }
            for e in entries {
                if e.runLength > 0 {
                    guard e.offset <= h.tileDataLength, e.length <= h.tileDataLength - e.offset else {
                        throw fail("tile \(e.tileID) (bytes \(e.offset)+\(e.length)) lies beyond the tile data")
                    }
                    if let last = flat.last, last.tileID &+ last.runLength > e.tileID {
                        throw fail("tile \(e.tileID) out of order or overlapping in \(what) at byte \(offset)")
                    }
                    flat.append(e)
                } else {
                    guard e.offset <= h.leafLength, e.length <= h.leafLength - e.offset else {
                        throw fail("leaf directory (bytes \(e.offset)+\(e.length)) lies beyond the leaf directories")
                    }
                    try walk(h.leafOffset + e.offset, e.length, depth: depth + 1, what: "leaf directory")
                }
            }
        }
        try walk(h.rootOffset, h.rootLength, depth: 0, what: "root directory")
        entries = flat
    }

    /// Entries of one decompressed directory: the count, then the tile-ID deltas, the run
    /// lengths, the lengths and the offsets (0 = right after the previous entry, else offset + 1).
    static func decodeDirectory(_ d: [UInt8], fail: (String) -> Failure) throws -> [Entry] {
        var i = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard i < d.count else { throw fail("directory cut short at byte \(i)") }
                let b = d[i]; i += 1
                guard shift < 64 else { throw fail("varint longer than 64 bits at byte \(i - 1)") }
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
        }
        let count = try varint()
        // Each entry takes at least 4 bytes: a count beyond that is a lie, not a reason to allocate.
        guard count <= UInt64(d.count) / 4 + 1 else { throw fail("directory claims \(count) entries in \(d.count) bytes") }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var id: UInt64 = 0
        for k in entries.indices {
            let (sum, overflow) = id.addingReportingOverflow(try varint())
            guard !overflow else { throw fail("tile ID overflows at entry \(k)") }
            id = sum
            entries[k].tileID = id
        }
        for k in entries.indices { entries[k].runLength = try varint() }
        for k in entries.indices { entries[k].length = try varint() }
        for k in entries.indices {
            let v = try varint()
            if v == 0 && k > 0 {
                entries[k].offset = entries[k - 1].offset &+ entries[k - 1].length
            } else if v == 0 {
                throw fail("the first entry's offset is encoded as 0 (follows a previous entry)")
            } else {
                entries[k].offset = v - 1
            }
        }
        return entries
    }

    /// The tile's stored bytes (compressed as `header.tileCompression` says), nil when absent.
    public func tile(z: Int, x: Int, y: Int) -> ByteBufferView? {
        guard let id = Self.tileID(z: z, x: x, y: y) else { return nil }
        // The last entry whose first tile ID is ≤ id, then whether id falls in its run.
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].tileID <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let e = entries[low - 1]
        guard id - e.tileID < e.runLength else { return nil }
        let start = Int(header.tileDataOffset + e.offset)
        return buffer.readableBytesView[start..<start + Int(e.length)]
    }

    /// The tile ID of z/x/y: the tiles of all lower zooms, then the position on the Hilbert curve.
    public static func tileID(z: Int, x: Int, y: Int) -> UInt64? {
        guard (0...31).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        var acc = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
        var x = UInt64(x), y = UInt64(y)
        var a = z - 1
        while a >= 0 {
            let s = UInt64(1) << UInt64(a)
            let rx = s & x, ry = s & y
            acc += ((3 * rx) ^ ry) << UInt64(a)
            if ry == 0 {
                // Wrapping: only the bits below s matter from here on (as with the reference's negative integers).
                if rx != 0 { x = (s &- 1) &- x; y = (s &- 1) &- y }
                swap(&x, &y)
            }
            a -= 1
        }
        return acc
    }

    /// The z/x/y of a tile ID (the inverse of `tileID`).
    public static func zxy(tileID id: UInt64) -> (z: Int, x: Int, y: Int)? {
        var z = 0, acc: UInt64 = 0
        while true {
            guard z <= 31 else { return nil }
            let count = UInt64(1) << UInt64(2 * z)
            if id < acc + count { break }
            acc += count
            z += 1
        }
        var pos = id - acc, x: UInt64 = 0, y: UInt64 = 0, s: UInt64 = 1
        let n = UInt64(1) << UInt64(z)
        while s < n {
            let rx = (pos / 2) & s, ry = (pos ^ rx) & s
            if ry == 0 {
                if rx != 0 { x = (s &- 1) &- x; y = (s &- 1) &- y }
                swap(&x, &y)
            }
            x += rx; y += ry
            pos >>= 1
            s <<= 1
        }
        return (z, Int(x), Int(y))
    }
}
