/// PMTiles v3 (github.com/protomaps/PMTiles, spec v3): one file of tiles addressed by tile id,
/// with a 127-byte header, a root directory, JSON metadata, leaf directories and the tile data,
/// in that order.
enum PMTiles {
    /// Compression codes of the header.
    static let gzip: UInt8 = 2
    /// Tile type code of Mapbox Vector Tiles.
    static let mvt: UInt8 = 1
    static let headerLength = 127
    /// The header and the root directory must fit in the first 16 KiB (one read by a client).
    static let rootLimit = 16_384 - headerLength

    /// The tile id: the number of tiles of all lower zooms, plus the position of (x, y) on the
    /// zoom's Hilbert curve (starting at (0, 0), then (0, 1) at zoom 1).
    static func tileID(z: Int, x: Int, y: Int) -> UInt64 {
        precondition(z >= 0 && z <= 31 && x >= 0 && y >= 0 && x < 1 << z && y < 1 << z, "tile \(z)/\(x)/\(y) out of range")
        var base: UInt64 = 0
        for level in 0..<z { base += UInt64(1) << UInt64(2 * level) }
        let n = UInt64(1) << UInt64(z)
        var x = UInt64(x), y = UInt64(y), d: UInt64 = 0
        var s = n >> 1
        while s > 0 {
            let rx: UInt64 = x & s != 0 ? 1 : 0
            let ry: UInt64 = y & s != 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so the sub-curve has the orientation of the whole.
            if ry == 0 {
                if rx == 1 {
                    x = n - 1 - x
                    y = n - 1 - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return base + d
    }

    /// One directory entry. `runLength` 0 marks a leaf directory (offset into the leaf section).
    struct Entry: Equatable {
        var tileID: UInt64
        var offset: UInt64
        var length: UInt32
        var runLength: UInt32
    }

    /// A directory before compression: the count, then the columns tile id (delta from the
    /// previous), run length, length and offset (0 when it follows the previous entry's bytes,
    /// else offset + 1), each a varint.
    static func encodeDirectory(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        Protobuf.appendVarint(UInt64(entries.count), to: &out)
        var last: UInt64 = 0
        for e in entries {
            Protobuf.appendVarint(e.tileID - last, to: &out)
            last = e.tileID
        }
        for e in entries { Protobuf.appendVarint(UInt64(e.runLength), to: &out) }
        for e in entries { Protobuf.appendVarint(UInt64(e.length), to: &out) }
        for (k, e) in entries.enumerated() {
            if k > 0 && e.offset == entries[k - 1].offset + UInt64(entries[k - 1].length) {
                Protobuf.appendVarint(0, to: &out)
            } else {
                Protobuf.appendVarint(e.offset + 1, to: &out)
            }
        }
        return out
    }

    /// The compressed root directory and leaf directories. The root lists every tile when it fits
    /// `rootLimit`; otherwise the entries are cut into leaves of `leafSize` entries (at least
    /// 4,096, grown by 20 % until the root of leaf pointers fits), as the reference writer does.
    static func directories(_ entries: [Entry], compressor: GzipCompressor, rootLimit: Int = rootLimit,
                            minimumLeafSize: Int = 4096) -> (root: [UInt8], leaves: [UInt8]) {
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
                rootEntries.append(Entry(tileID: entries[start].tileID, offset: UInt64(leaves.count),
                                         length: UInt32(leaf.count), runLength: 0))
                leaves.append(contentsOf: leaf)
                start = end
            }
            let root = compressor.compress(encodeDirectory(rootEntries))
            if root.count <= rootLimit { return (root, leaves) }
            leafSize += max(1, leafSize / 5)
        }
    }

    /// The header fields (PMTiles v3 §3). Positions are degrees × 10⁷, rounded.
    struct Header: Equatable {
        var rootOffset: UInt64 = 0, rootLength: UInt64 = 0
        var metadataOffset: UInt64 = 0, metadataLength: UInt64 = 0
        var leafOffset: UInt64 = 0, leafLength: UInt64 = 0
        var tileDataOffset: UInt64 = 0, tileDataLength: UInt64 = 0
        var addressedTiles: UInt64 = 0, tileEntries: UInt64 = 0, tileContents: UInt64 = 0
        var clustered = true
        var internalCompression = PMTiles.gzip
        var tileCompression = PMTiles.gzip
        var tileType = PMTiles.mvt
        var minZoom: UInt8 = 0, maxZoom: UInt8 = 0
        var minLonE7: Int32 = 0, minLatE7: Int32 = 0, maxLonE7: Int32 = 0, maxLatE7: Int32 = 0
        var centerZoom: UInt8 = 0
        var centerLonE7: Int32 = 0, centerLatE7: Int32 = 0

        static func e7(_ degrees: Double) -> Int32 { Int32((degrees * 1e7).rounded(.toNearestOrAwayFromZero)) }

        func encoded() -> [UInt8] {
            var out: [UInt8] = Array("PMTiles".utf8) + [3]
            func u64(_ v: UInt64) { for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * k))) } }
            func i32(_ v: Int32) { for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> UInt32(8 * k))) } }
            for v in [rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength,
                      tileDataOffset, tileDataLength, addressedTiles, tileEntries, tileContents] { u64(v) }
            out += [clustered ? 1 : 0, internalCompression, tileCompression, tileType, minZoom, maxZoom]
            for v in [minLonE7, minLatE7, maxLonE7, maxLatE7] { i32(v) }
            out.append(centerZoom)
            i32(centerLonE7)
            i32(centerLatE7)
            assert(out.count == PMTiles.headerLength)
            return out
        }
    }

    /// Collects tiles in ascending tile id and lays out the archive. Identical tile contents are
    /// stored once: a repeat at the next tile id lengthens the previous entry's run, a repeat
    /// elsewhere gets an entry pointing at the stored bytes (the archive stays clustered: tile data
    /// in tile id order, repeats pointing back).
    struct Builder {
        private(set) var entries: [Entry] = []
        private(set) var tileData: [UInt8] = []
        /// Stored contents by hash of their bytes (candidates compared byte for byte), so the
        /// table holds no second copy of the tiles.
        private var stored: [Int: [(offset: UInt64, length: UInt32)]] = [:]
        private(set) var tileContents = 0
        private(set) var addressedTiles: UInt64 = 0

        private func find(_ data: [UInt8], hash: Int) -> (offset: UInt64, length: UInt32)? {
            stored[hash]?.first { place in
                Int(place.length) == data.count && tileData[Int(place.offset)..<Int(place.offset) + data.count].elementsEqual(data)
            }
        }

        /// `data`: the tile as it is stored (compressed). Tile ids must ascend.
        mutating func add(tileID: UInt64, data: [UInt8]) {
            if let last = entries.last { precondition(tileID >= last.tileID + UInt64(last.runLength), "tile ids must ascend") }
            addressedTiles += 1
            var hasher = Hasher()
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
            let hash = hasher.finalize()
            if let known = find(data, hash: hash) {
                if var last = entries.last, last.offset == known.offset, last.length == known.length,
                   last.tileID + UInt64(last.runLength) == tileID {
                    last.runLength += 1
                    entries[entries.count - 1] = last
                } else {
                    entries.append(Entry(tileID: tileID, offset: known.offset, length: known.length, runLength: 1))
                }
                return
            }
            let place = (offset: UInt64(tileData.count), length: UInt32(data.count))
            stored[hash, default: []].append(place)
            tileContents += 1
            tileData.append(contentsOf: data)
            entries.append(Entry(tileID: tileID, offset: place.offset, length: place.length, runLength: 1))
        }

        /// The whole archive: header, root directory, metadata, leaf directories, tile data.
        func archive(metadata: [UInt8], header template: Header, compressor: GzipCompressor) -> [UInt8] {
            let (root, leaves) = PMTiles.directories(entries, compressor: compressor)
            let meta = compressor.compress(metadata)
            var h = template
            h.rootOffset = UInt64(PMTiles.headerLength)
            h.rootLength = UInt64(root.count)
            h.metadataOffset = h.rootOffset + h.rootLength
            h.metadataLength = UInt64(meta.count)
            h.leafOffset = h.metadataOffset + h.metadataLength
            h.leafLength = UInt64(leaves.count)
            h.tileDataOffset = h.leafOffset + h.leafLength
            h.tileDataLength = UInt64(tileData.count)
            h.addressedTiles = addressedTiles
            h.tileEntries = UInt64(entries.count)
            h.tileContents = UInt64(tileContents)
            var out = h.encoded()
            out.reserveCapacity(Int(h.tileDataOffset + h.tileDataLength))
            out += root
            out += meta
            out += leaves
            out += tileData
            return out
        }
    }
}
