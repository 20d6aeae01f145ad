import AreaWatchCore
import AreaWatchFormats
import Testing

@testable import AreaWatchReport

/// PMTiles v3: tile ids, directories, header, archive layout.
@Suite("PMTiles")
struct PMTilesTests {
    /// The Hilbert curve of order `z` by its recursive construction, independent of the writer's
    /// bit arithmetic: quadrant (0,0) holds the order z−1 curve transposed, (0,1) and (1,1) hold it
    /// shifted, (1,0) holds it anti-transposed; the curve starts at (0,0) and goes to (0,1) first.
    static func slowHilbert(_ z: Int, _ x: Int, _ y: Int) -> UInt64 {
        if z == 0 { return 0 }
        let s = 1 << (z - 1), area = UInt64(s * s)
        switch (x < s, y < s) {
        case (true, true): return slowHilbert(z - 1, y, x)
        case (true, false): return area + slowHilbert(z - 1, x, y - s)
        case (false, false): return 2 * area + slowHilbert(z - 1, x - s, y - s)
        case (false, true): return 3 * area + slowHilbert(z - 1, s - 1 - y, s - 1 - (x - s))
        }
    }

    static func slowTileID(_ z: Int, _ x: Int, _ y: Int) -> UInt64 {
        // All tiles of zooms 0…z−1: 1 + 4 + 16 + …
        (0..<z).reduce(UInt64(0)) { $0 + UInt64(1 << (2 * $1)) } + slowHilbert(z, x, y)
    }

    @Test("tile ids: the specification's examples and values of the reference implementation")
    func tileIDGolden() {
        #expect(PMTiles.tileID(z: 0, x: 0, y: 0) == 0)
        #expect([(0, 0), (0, 1), (1, 1), (1, 0)].map { PMTiles.tileID(z: 1, x: $0.0, y: $0.1) } == [1, 2, 3, 4])
        #expect(PMTiles.tileID(z: 2, x: 0, y: 0) == 5)
        #expect(PMTiles.tileID(z: 12, x: 3423, y: 1763) == 19_078_479)
        #expect(PMTiles.tileID(z: 14, x: 8108, y: 5377) == 129_737_806)
        #expect(PMTiles.tileID(z: 20, x: 1_000_000, y: 123_456) == 1_452_839_264_255)
    }

    @Test("tile ids: every tile of zooms 0…7 against the recursive curve; the curve visits each once in unit steps")
    func tileIDExhaustive() {
        for z in 0...7 {
            let n = 1 << z
            var byIndex = [(Int, Int)?](repeating: nil, count: n * n)
            let base = PMTiles.tileID(z: z, x: 0, y: 0)! - Self.slowHilbert(z, 0, 0)
            for x in 0..<n {
                for y in 0..<n {
                    let id = PMTiles.tileID(z: z, x: x, y: y)!
                    #expect(id == Self.slowTileID(z, x, y), "\(z)/\(x)/\(y)")
                    let d = Int(id - base)
                    #expect(byIndex[d] == nil, "index \(d) twice at zoom \(z)")
                    byIndex[d] = (x, y)
                }
            }
            let points = byIndex.compactMap { $0 }
            #expect(points.count == n * n)
            for k in points.indices.dropFirst() {
                #expect(
                    abs(points[k].0 - points[k - 1].0) + abs(points[k].1 - points[k - 1].1) == 1, "zoom \(z) step \(k)")
            }
        }
    }

    @Test("tile ids: 20,000 seeded random tiles of zooms 8…26 against the recursive curve; ids ascend with zoom")
    func tileIDRandom() {
        var rng = SplitMix64(seed: 0x7111E)
        for _ in 0..<20_000 {
            let z = 8 + Int(rng.next() % 19), n = UInt64(1) << UInt64(z)
            let x = Int(rng.next() % n), y = Int(rng.next() % n)
            let id = PMTiles.tileID(z: z, x: x, y: y)!
            #expect(id == Self.slowTileID(z, x, y), "\(z)/\(x)/\(y)")
            #expect(id >= PMTiles.tileID(z: z, x: 0, y: 0)! && id < PMTiles.tileID(z: z + 1, x: 0, y: 0)!)
        }
    }

    @Test("a directory with a run: counts, delta ids, runs, lengths, offsets (0 = right after the previous)")
    func directoryGolden() {
        let entries = [
            PMTiles.Entry(tileID: 5, offset: 0, length: 10, runLength: 1),
            PMTiles.Entry(tileID: 6, offset: 10, length: 20, runLength: 3), // tiles 6, 7, 8 share one content
            PMTiles.Entry(tileID: 9, offset: 0, length: 10, runLength: 1), // the content of tile 5 again
            PMTiles.Entry(tileID: 300, offset: 30, length: 200, runLength: 1)
        ]
        #expect(
            PMTiles.encodeDirectory(entries) == [
                4,
                5, 1, 3, 0xA3, 0x02, // ids 5, +1, +3, +291
                1, 3, 1, 1, // runs
                10, 20, 10, 0xC8, 0x01, // lengths
                1, 0, 1, 31
            ]) // 0+1, follows, 0+1, 30+1
        #expect(PMTiles.encodeDirectory([]) == [0])
    }

    @Test("the builder: repeats at the next id lengthen a run, repeats elsewhere point back, contents stored once")
    func builderRuns() throws {
        let a: [UInt8] = [1, 2, 3], b: [UInt8] = [9, 9, 9, 9], c: [UInt8] = [1, 2, 4]
        var builder = PMTiles.Builder()
        for (id, data) in [(5, a), (6, b), (7, b), (8, b), (9, a), (11, b), (12, c), (13, a)] {
            builder.add(tileID: UInt64(id), data: data)
        }
        #expect(
            builder.entries == [
                .init(tileID: 5, offset: 0, length: 3, runLength: 1),
                .init(tileID: 6, offset: 3, length: 4, runLength: 3),
                .init(tileID: 9, offset: 0, length: 3, runLength: 1),
                .init(tileID: 11, offset: 3, length: 4, runLength: 1), // not consecutive with 8: own entry
                .init(tileID: 12, offset: 7, length: 3, runLength: 1),
                .init(tileID: 13, offset: 0, length: 3, runLength: 1)
            ])
        #expect(builder.tileData == a + b + c)
        #expect(builder.addressedTiles == 8 && builder.tileContents == 3)
    }

    @Test("the header: 127 bytes, little-endian, field by field")
    func headerGolden() {
        var h = PMTiles.Header()
        h.rootOffset = 127
        h.rootLength = 25
        h.metadataOffset = 152
        h.metadataLength = 300
        h.leafOffset = 452
        h.leafLength = 0
        h.tileDataOffset = 452
        h.tileDataLength = 1000
        h.addressedTiles = 5
        h.tileEntries = 3
        h.tileContents = 2
        h.minZoom = 10
        h.maxZoom = 14
        h.minLonE7 = PMTiles.Header.e7(-1.9)
        h.minLatE7 = PMTiles.Header.e7(53.7)
        h.maxLonE7 = PMTiles.Header.e7(-1.7)
        h.maxLatE7 = PMTiles.Header.e7(53.8)
        h.centerZoom = 10
        h.centerLonE7 = PMTiles.Header.e7(-1.8)
        h.centerLatE7 = PMTiles.Header.e7(53.75)
        let hex =
            "504d54696c657303" + "7f00000000000000" + "1900000000000000" + "9800000000000000" + "2c01000000000000"
            + "c401000000000000" + "0000000000000000" + "c401000000000000" + "e803000000000000" + "0500000000000000"
            + "0300000000000000" + "0200000000000000" + "01020201" + "0a0e" + "4015defe" + "40f80120" + "c099fcfe"
            + "803a1120"
            + "0a" + "8057edfe" + "60990920"
        let encoded = h.encoded()
        #expect(encoded.count == 127)
        #expect(encoded.map { String(format2: $0) }.joined() == hex)
    }

    @Test("directories: 300 seeded random directories round-trip through encode, gzip and an independent decoder")
    func directoryProperty() throws {
        var rng = SplitMix64(seed: 0xD1EC7)
        let gzip = GzipCompressor()
        for _ in 0..<300 {
            var entries: [PMTiles.Entry] = []
            var id = rng.next() % 1000, offset: UInt64 = 0
            for _ in 0..<Int(rng.next() % 200) {
                let length = 1 + rng.next() % 5000, run = rng.next() % 8 == 0 ? 2 + rng.next() % 100 : 1
                // Mostly contiguous offsets, sometimes pointing back at earlier content.
                let place = rng.next() % 4 == 0 && offset > 0 ? rng.next() % offset : offset
                entries.append(.init(tileID: id, offset: place, length: length, runLength: run))
                if place == offset { offset += length }
                id += run + (rng.next() % 3 == 0 ? rng.next() % 100_000 : 0)
            }
            let decoded = try DecodedArchive.decodeDirectory(
                try gunzip(gzip.compress(PMTiles.encodeDirectory(entries))))
            #expect(
                decoded
                    == entries.map {
                        .init(tileID: $0.tileID, offset: $0.offset, length: $0.length, runLength: $0.runLength)
                    })
        }
    }

    @Test("leaf directories when the root would pass its limit: every entry reachable, root within the limit")
    func leaves() throws {
        var rng = SplitMix64(seed: 0x1EAF)
        var entries: [PMTiles.Entry] = []
        var offset: UInt64 = 0
        for k in 0..<50_000 {
            let length = 20 + rng.next() % 3000
            entries.append(.init(tileID: UInt64(k) * 3 + rng.next() % 3, offset: offset, length: length, runLength: 1))
            offset += length
        }
        let gzip = GzipCompressor()
        for (limit, leafSize) in [(PMTiles.rootLimit, 4096), (300, 100)] {
            let (root, leaves) = PMTiles.directories(
                entries, compressor: gzip, rootLimit: limit, minimumLeafSize: leafSize)
            #expect(root.count <= limit && !leaves.isEmpty)
            let rootEntries = try DecodedArchive.decodeDirectory(try gunzip(root))
            #expect(rootEntries.allSatisfy { $0.runLength == 0 })
            var all: [DecodedArchive.Entry] = []
            for r in rootEntries {
                let leaf = try DecodedArchive.decodeDirectory(
                    try gunzip(Array(leaves[Int(r.offset)..<Int(r.offset + r.length)])))
                #expect(leaf.first?.tileID == r.tileID)
                all += leaf
            }
            #expect(all.count == entries.count)
            #expect(all == entries.map { .init(tileID: $0.tileID, offset: $0.offset, length: $0.length, runLength: 1) })
        }
        // Few entries: the root holds them all.
        let small = PMTiles.directories(Array(entries.prefix(100)), compressor: gzip)
        #expect(small.leaves.isEmpty)
    }

    @Test("gzip: fixed 10-byte header (mtime 0, OS 255), zlib reads it back, same bytes every time")
    func gzipFixed() throws {
        let gzip = GzipCompressor()
        var rng = SplitMix64(seed: 3)
        for size in [0, 1, 100, 70_000] {
            let input = (0..<size).map { _ in UInt8(rng.next() % 7) }
            let packed = gzip.compress(input)
            #expect(Array(packed.prefix(10)) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
            #expect(try gunzip(packed) == input)
            #expect(GzipCompressor().compress(input) == packed)
        }
    }
}

extension String {
    /// Two lowercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
