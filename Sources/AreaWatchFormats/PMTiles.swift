/// PMTiles v3 (github.com/protomaps/PMTiles, spec v3): one file of tiles addressed by tile id,
/// with a 127-byte header, a root directory, JSON metadata, leaf directories and the tile data,
/// in that order. The one codec of the header, the directories and the tile ids: the report
/// writes archives with it and `serve` reads them with it.
public enum PMTiles {
    /// Compression codes of the header.
    public enum Compression: UInt8, Sendable { case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4 }
    public static let gzip = Compression.gzip.rawValue
    /// Tile type code of Mapbox Vector Tiles.
    public static let mvt: UInt8 = 1
    public static let headerLength = 127
    /// The header and the root directory must fit in the first 16 KiB (one read by a client).
    public static let rootLimit = 16_384 - headerLength

    /// The tile id of z/x/y: the number of tiles of all lower zooms, plus the position of (x, y)
    /// on the zoom's Hilbert curve (starting at (0, 0), then (0, 1) at zoom 1); nil outside the
    /// zoom's tiles or beyond zoom 31.
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
                // Rotate the quadrant so the sub-curve has the orientation of the whole (wrapping:
                // only the bits below s matter from here on, as with the reference's negative
                // integers).
                if rx != 0 {
                    x = (s &- 1) &- x
                    y = (s &- 1) &- y
                }
                swap(&x, &y)
            }
            a -= 1
        }
        return acc
    }

    /// The z/x/y of a tile id (the inverse of `tileID`).
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
                if rx != 0 {
                    x = (s &- 1) &- x
                    y = (s &- 1) &- y
                }
                swap(&x, &y)
            }
            x += rx
            y += ry
            pos >>= 1
            s <<= 1
        }
        return (z, Int(x), Int(y))
    }

    /// One directory entry: `runLength` consecutive tile ids from `tileID` share one content;
    /// `runLength` 0 marks a leaf directory (offset into the leaf section).
    public struct Entry: Sendable, Equatable {
        public var tileID: UInt64
        public var offset: UInt64
        public var length: UInt64
        public var runLength: UInt64

        public init(tileID: UInt64, offset: UInt64, length: UInt64, runLength: UInt64) {
            self.tileID = tileID
            self.offset = offset
            self.length = length
            self.runLength = runLength
        }
    }

    /// A directory before compression: the count, then the columns tile id (delta from the
    /// previous), run length, length and offset (0 when it follows the previous entry's bytes,
    /// else offset + 1), each a varint.
    public static func encodeDirectory(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        Protobuf.appendVarint(UInt64(entries.count), to: &out)
        var last: UInt64 = 0
        for e in entries {
            Protobuf.appendVarint(e.tileID - last, to: &out)
            last = e.tileID
        }
        for e in entries { Protobuf.appendVarint(e.runLength, to: &out) }
        for e in entries { Protobuf.appendVarint(e.length, to: &out) }
        for (k, e) in entries.enumerated() {
            if k > 0 && e.offset == entries[k - 1].offset + entries[k - 1].length {
                Protobuf.appendVarint(0, to: &out)
            } else {
                Protobuf.appendVarint(e.offset + 1, to: &out)
            }
        }
        return out
    }

    /// Why a directory could not be decoded (the reader adds where it lies).
    public struct DirectoryError: Error, Sendable, Equatable {
        public let message: String
    }

    /// The entries of one decompressed directory (the inverse of `encodeDirectory`).
    public static func decodeDirectory(_ d: [UInt8]) throws(DirectoryError) -> [Entry] {
        var reader = VarintReader(bytes: d)
        let count = try reader.next()
        // Each entry takes at least 4 bytes: a count beyond that is a lie, not a reason to allocate.
        guard count <= UInt64(d.count) / 4 + 1 else {
            throw DirectoryError(message: "directory claims \(count) entries in \(d.count) bytes")
        }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var id: UInt64 = 0
        for k in entries.indices {
            let (sum, overflow) = id.addingReportingOverflow(try reader.next())
            guard !overflow else { throw DirectoryError(message: "tile ID overflows at entry \(k)") }
            id = sum
            entries[k].tileID = id
        }
        for k in entries.indices { entries[k].runLength = try reader.next() }
        for k in entries.indices { entries[k].length = try reader.next() }
        for k in entries.indices {
            let v = try reader.next()
            if v == 0 && k > 0 {
                entries[k].offset = entries[k - 1].offset &+ entries[k - 1].length
            } else if v == 0 {
                throw DirectoryError(message: "the first entry's offset is encoded as 0 (follows a previous entry)")
            } else {
                entries[k].offset = v - 1
            }
        }
        return entries
    }

    /// Varints read one after the other from a decompressed directory.
    private struct VarintReader {
        let bytes: [UInt8]
        var i = 0

        mutating func next() throws(DirectoryError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard i < bytes.count else { throw DirectoryError(message: "directory cut short at byte \(i)") }
                let b = bytes[i]
                i += 1
                guard shift < 64 else { throw DirectoryError(message: "varint longer than 64 bits at byte \(i - 1)") }
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
        }
    }

    /// The compressed root directory and leaf directories. The root lists every tile when it fits
    /// `rootLimit`; otherwise the entries are cut into leaves of `leafSize` entries (at least
    /// 4,096, grown by 20 % until the root of leaf pointers fits), as the reference writer does.
    public static func directories(
        _ entries: [Entry], compressor: GzipCompressor, rootLimit: Int = rootLimit,
        minimumLeafSize: Int = 4096
    ) -> (root: [UInt8], leaves: [UInt8]) {
        let whole = compressor.compress(encodeDirectory(entries))
        if whole.count <= rootLimit { return (whole, []) }
        var leafSize = max(minimumLeafSize, entries.count / 3500)
        while true {
            var rootEntries: [Entry] = []
            var leaves: [UInt8] = []
            var start = 0
            while start < entries.count {
                let end = min(start + leafSize, entries.count)
                let leaf = compressor.compress(encodeDirectory(Array(entries[start..<end])))
                rootEntries.append(
                    Entry(
                        tileID: entries[start].tileID, offset: UInt64(leaves.count),
                        length: UInt64(leaf.count), runLength: 0))
                leaves.append(contentsOf: leaf)
                start = end
            }
            let root = compressor.compress(encodeDirectory(rootEntries))
            if root.count <= rootLimit { return (root, leaves) }
            leafSize += max(1, leafSize / 5)
        }
    }
}
