extension PMTiles {
    /// The header fields (PMTiles v3 §3), written by `encoded()` and read by `init(decoding:)`.
    /// Positions are degrees × 10⁷, rounded.
    public struct Header: Sendable, Equatable {
        public var rootOffset: UInt64 = 0, rootLength: UInt64 = 0
        public var metadataOffset: UInt64 = 0, metadataLength: UInt64 = 0
        public var leafOffset: UInt64 = 0, leafLength: UInt64 = 0
        public var tileDataOffset: UInt64 = 0, tileDataLength: UInt64 = 0
        public var addressedTiles: UInt64 = 0, tileEntries: UInt64 = 0, tileContents: UInt64 = 0
        public var clustered = true
        public var internalCompression = PMTiles.gzip
        public var tileCompression = PMTiles.gzip
        public var tileType = PMTiles.mvt
        public var minZoom: UInt8 = 0, maxZoom: UInt8 = 0
        public var minLonE7: Int32 = 0, minLatE7: Int32 = 0, maxLonE7: Int32 = 0, maxLatE7: Int32 = 0
        public var centerZoom: UInt8 = 0
        public var centerLonE7: Int32 = 0, centerLatE7: Int32 = 0

        public init() {}

        /// Why the first bytes of a file are not a header this codec reads.
        public struct Refusal: Error, Sendable, Equatable {
            public let message: String
        }

        /// The header at the start of `bytes` (at least `headerLength` of them).
        public init(decoding bytes: some RandomAccessCollection<UInt8>) throws(Refusal) {
            let b = Array(bytes.prefix(PMTiles.headerLength))
            guard b.count == PMTiles.headerLength, b[0..<7].elementsEqual("PMTiles".utf8) else {
                throw Refusal(message: "not a PMTiles archive (no PMTiles magic)")
            }
            guard b[7] == 3 else { throw Refusal(message: "PMTiles version \(b[7]), only version 3 is read") }
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
            func i32(_ at: Int) -> Int32 {
                Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) })
            }
            (rootOffset, rootLength, metadataOffset, metadataLength) = (u64(8), u64(16), u64(24), u64(32))
            (leafOffset, leafLength, tileDataOffset, tileDataLength) = (u64(40), u64(48), u64(56), u64(64))
            (addressedTiles, tileEntries, tileContents) = (u64(72), u64(80), u64(88))
            clustered = b[96] == 1
            (internalCompression, tileCompression, tileType) = (b[97], b[98], b[99])
            (minZoom, maxZoom) = (b[100], b[101])
            (minLonE7, minLatE7, maxLonE7, maxLatE7) = (i32(102), i32(106), i32(110), i32(114))
            centerZoom = b[118]
            (centerLonE7, centerLatE7) = (i32(119), i32(123))
        }

        public static func e7(_ degrees: Double) -> Int32 { Int32((degrees * 1e7).rounded(.toNearestOrAwayFromZero)) }

        /// The header's 127 bytes.
        public func encoded() -> [UInt8] {
            var out: [UInt8] = Array("PMTiles".utf8) + [3]
            func u64(_ v: UInt64) { for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * k))) } }
            func i32(_ v: Int32) {
                for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> UInt32(8 * k))) }
            }
            for v in [
                rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength,
                tileDataOffset, tileDataLength, addressedTiles, tileEntries, tileContents
            ] { u64(v) }
            out += [clustered ? 1 : 0, internalCompression, tileCompression, tileType, minZoom, maxZoom]
            for v in [minLonE7, minLatE7, maxLonE7, maxLatE7] { i32(v) }
            out.append(centerZoom)
            i32(centerLonE7)
            i32(centerLatE7)
            assert(out.count == PMTiles.headerLength)
            return out
        }
    }
}
