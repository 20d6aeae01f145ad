import AreaWatchCore
import Testing

@testable import AreaWatchFormats

/// The one PMTiles codec reads back what it writes: header, directories, tile ids; and refuses
/// what is not an archive with a message naming the problem.
struct PMTilesCodecTests {
    @Test func headerRoundTripsEveryField() throws {
        var random = SplitMix64(seed: 0x4EAD)
        for _ in 0..<200 {
            var h = PMTiles.Header()
            h.rootOffset = random.next()
            h.rootLength = random.next()
            h.metadataOffset = random.next()
            h.metadataLength = random.next()
            h.leafOffset = random.next()
            h.leafLength = random.next()
            h.tileDataOffset = random.next()
            h.tileDataLength = random.next()
            h.addressedTiles = random.next()
            h.tileEntries = random.next()
            h.tileContents = random.next()
            h.clustered = random.next() % 2 == 0
            h.internalCompression = UInt8(truncatingIfNeeded: random.next())
            h.tileCompression = UInt8(truncatingIfNeeded: random.next())
            h.tileType = UInt8(truncatingIfNeeded: random.next())
            h.minZoom = UInt8(truncatingIfNeeded: random.next())
            h.maxZoom = UInt8(truncatingIfNeeded: random.next())
            h.minLonE7 = Int32(truncatingIfNeeded: random.next())
            h.minLatE7 = Int32(truncatingIfNeeded: random.next())
            h.maxLonE7 = Int32(truncatingIfNeeded: random.next())
            h.maxLatE7 = Int32(truncatingIfNeeded: random.next())
            h.centerZoom = UInt8(truncatingIfNeeded: random.next())
            h.centerLonE7 = Int32(truncatingIfNeeded: random.next())
            h.centerLatE7 = Int32(truncatingIfNeeded: random.next())
            let bytes = h.encoded()
            #expect(bytes.count == PMTiles.headerLength)
            #expect(try PMTiles.Header(decoding: bytes + [1, 2, 3]) == h)
        }
    }

    @Test func headerRefusesWhatIsNotVersion3() {
        let good = PMTiles.Header().encoded()
        #expect(throws: PMTiles.Header.Refusal(message: "not a PMTiles archive (no PMTiles magic)")) {
            try PMTiles.Header(decoding: Array(good.prefix(126)))
        }
        var v2 = good
        v2[7] = 2
        #expect(throws: PMTiles.Header.Refusal(message: "PMTiles version 2, only version 3 is read")) {
            try PMTiles.Header(decoding: v2)
        }
    }

    @Test func directoriesRoundTripThroughGzip() throws {
        var random = SplitMix64(seed: 0xD1EC)
        let gzip = GzipCompressor()
        for _ in 0..<300 {
            var entries: [PMTiles.Entry] = []
            var id = random.next() % 1000, offset: UInt64 = 0
            for _ in 0..<Int(random.next() % 200) {
                let length = 1 + random.next() % 5000
                let run = random.next() % 8 == 0 ? 2 + random.next() % 100 : 1
                let place = random.next() % 4 == 0 && offset > 0 ? random.next() % offset : offset
                entries.append(PMTiles.Entry(tileID: id, offset: place, length: length, runLength: run))
                if place == offset { offset += length }
                id += run + (random.next() % 3 == 0 ? random.next() % 100_000 : 0)
            }
            let packed = gzip.compress(PMTiles.encodeDirectory(entries))
            #expect(try PMTiles.decodeDirectory(try Gzip.inflate(packed, limit: 1 << 24)) == entries)
        }
    }

    @Test func directoryDecodingRefusesCutAndLyingDirectories() {
        let entries = [
            PMTiles.Entry(tileID: 5, offset: 0, length: 10, runLength: 1),
            PMTiles.Entry(tileID: 6, offset: 10, length: 20, runLength: 3)
        ]
        let encoded = PMTiles.encodeDirectory(entries)
        #expect(throws: PMTiles.DirectoryError.self) { try PMTiles.decodeDirectory(Array(encoded.dropLast())) }
        #expect(throws: PMTiles.DirectoryError(message: "directory claims 1000 entries in 2 bytes")) {
            try PMTiles.decodeDirectory([0xE8, 0x07])
        }
    }

    @Test func tileIDsInvertOnEveryTileOfLowZoomsAndRefuseOutsiders() {
        var seen = Set<UInt64>()
        for z in 0...6 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let id = PMTiles.tileID(z: z, x: x, y: y)!
                    #expect(seen.insert(id).inserted)
                    #expect(PMTiles.zxy(tileID: id).map { [$0.z, $0.x, $0.y] } == [z, x, y])
                }
            }
        }
        #expect(seen == Set(0..<UInt64(seen.count)))
        #expect(PMTiles.tileID(z: 3, x: 8, y: 0) == nil && PMTiles.tileID(z: 32, x: 0, y: 0) == nil)
        #expect(PMTiles.tileID(z: 2, x: -1, y: 0) == nil)
    }

    @Test func builderArchiveIsReadBackByTheHeaderAndDirectoryCodec() throws {
        var builder = PMTiles.Builder()
        let gzip = GzipCompressor()
        let tiles: [(UInt64, [UInt8])] = [(1, [1, 2]), (2, [1, 2]), (3, [3]), (7, [1, 2]), (9, [4, 5, 6])]
        for (id, data) in tiles { builder.add(tileID: id, data: data) }
        let archive = builder.archive(metadata: Array("{}".utf8), header: PMTiles.Header(), compressor: gzip)
        let h = try PMTiles.Header(decoding: archive)
        #expect(h.addressedTiles == 5 && h.tileContents == 3 && h.tileEntries == 4)
        let root = Array(archive[Int(h.rootOffset)..<Int(h.rootOffset + h.rootLength)])
        let entries = try PMTiles.decodeDirectory(try Gzip.inflate(root, limit: 1 << 20))
        #expect(entries == builder.entries)
        let meta = Array(archive[Int(h.metadataOffset)..<Int(h.metadataOffset + h.metadataLength)])
        #expect(try Gzip.inflate(meta, limit: 100) == Array("{}".utf8))
        for (id, data) in tiles {
            let e = try #require(entries.last { $0.tileID <= id })
            #expect(id - e.tileID < e.runLength)
            let start = Int(h.tileDataOffset + e.offset)
            #expect(Array(archive[start..<start + Int(e.length)]) == data)
        }
    }
}

/// The one gzip wrapper: a deterministic writer and a bounded reader.
struct GzipTests {
    @Test func writerIsDeterministicAndReadBack() throws {
        var random = SplitMix64(seed: 3)
        let gzip = GzipCompressor()
        for size in [0, 1, 100, 70_000, 300_000] {
            let input = (0..<size).map { _ in UInt8(random.next() % 7) }
            let packed = gzip.compress(input)
            #expect(Array(packed.prefix(10)) == GzipCompressor.header)
            #expect(GzipCompressor(level: 6).compress(input) == packed)
            #expect(try Gzip.inflate(packed, limit: size) == input)
        }
    }

    @Test func readerRefusesBombsCutsAndNoise() throws {
        let zeros = GzipCompressor().compress([UInt8](repeating: 0, count: 1 << 20))
        #expect(throws: Gzip.Failure(message: "decompresses to more than 1000 bytes")) {
            try Gzip.inflate(zeros, limit: 1000)
        }
        // Cut in half: refused (zlib reports no progress, or the input ends first), never a short output.
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(zeros.prefix(zeros.count / 2), limit: 1 << 21) }
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(Array("not gzip at all".utf8), limit: 100) }
    }
}
