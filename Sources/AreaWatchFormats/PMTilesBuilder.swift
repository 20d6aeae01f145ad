extension PMTiles {
    /// Collects tiles in ascending tile id and lays out the archive. Identical tile contents are
    /// stored once: a repeat at the next tile id lengthens the previous entry's run, a repeat
    /// elsewhere gets an entry pointing at the stored bytes (the archive stays clustered: tile data
    /// in tile id order, repeats pointing back).
    public struct Builder {
        public private(set) var entries: [Entry] = []
        public private(set) var tileData: [UInt8] = []
        /// Stored contents by hash of their bytes (candidates compared byte for byte), so the
        /// table holds no second copy of the tiles.
        private var stored: [Int: [(offset: UInt64, length: UInt64)]] = [:]
        public private(set) var tileContents = 0
        public private(set) var addressedTiles: UInt64 = 0

        public init() {}

        private func find(_ data: [UInt8], hash: Int) -> (offset: UInt64, length: UInt64)? {
            stored[hash]?.first { place in
                Int(place.length) == data.count
                    && tileData[Int(place.offset)..<Int(place.offset) + data.count].elementsEqual(data)
            }
        }

        /// `data`: the tile as it is stored (compressed). Tile ids must ascend.
        public mutating func add(tileID: UInt64, data: [UInt8]) {
            if let last = entries.last { precondition(tileID >= last.tileID + last.runLength, "tile ids must ascend") }
            addressedTiles += 1
            var hasher = Hasher()
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
            let hash = hasher.finalize()
            if let known = find(data, hash: hash) {
                if var last = entries.last, last.offset == known.offset, last.length == known.length,
                    last.tileID + last.runLength == tileID
                {
                    last.runLength += 1
                    entries[entries.count - 1] = last
                } else {
                    entries.append(Entry(tileID: tileID, offset: known.offset, length: known.length, runLength: 1))
                }
                return
            }
            let place = (offset: UInt64(tileData.count), length: UInt64(data.count))
            stored[hash, default: []].append(place)
            tileContents += 1
            tileData.append(contentsOf: data)
            entries.append(Entry(tileID: tileID, offset: place.offset, length: place.length, runLength: 1))
        }

        /// The whole archive: header, root directory, metadata, leaf directories, tile data.
        public func archive(metadata: [UInt8], header template: Header, compressor: GzipCompressor) -> [UInt8] {
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
