import AreaWatchCore
import AreaWatchFormats
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchServe

/// The PMTiles v3 reader against archives written by the reference writer (PyPI `pmtiles`): a
/// golden archive in Fixtures (root + two leaf directories, a run-length entry) and, when Python
/// and the package are installed, archives built in the test from seeded random tile sets.
@Suite struct PMTilesTests {
    static let fixtures = Bundle.module.resourcePath! + "/Fixtures"

    @Test func tileIDsMatchTheReferenceValues() {
        // From pmtiles.tile.zxy_to_tileid.
        let reference: [(Int, Int, Int, UInt64)] = [
            (0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (14, 8091, 5375, 129_700_869),
            (20, 123_456, 654_321, 652_812_043_350), (31, 2_147_483_647, 0, 6_148_914_691_236_517_204)
        ]
        for (z, x, y, id) in reference {
            #expect(PMTiles.tileID(z: z, x: x, y: y) == id)
            #expect(PMTiles.zxy(tileID: id).map { [$0.z, $0.x, $0.y] } == [z, x, y])
        }
        #expect(PMTiles.tileID(z: 3, x: 8, y: 0) == nil)
        #expect(PMTiles.tileID(z: 32, x: 0, y: 0) == nil)
    }

    @Test func tileIDsAreOneToOneWithinAZoom() {
        for z in 0...4 {
            var seen = Set<UInt64>()
            for x in 0..<(1 << z) { for y in 0..<(1 << z) { seen.insert(PMTiles.tileID(z: z, x: x, y: y)!) } }
            let first = ((UInt64(1) << UInt64(2 * z)) - 1) / 3
            #expect(seen == Set(first..<first + (UInt64(1) << UInt64(2 * z))))
        }
        var random = SplitMix64(seed: 11)
        for _ in 0..<2000 {
            let z = Int(random.next() % 32), x = Int(random.next() % (UInt64(1) << UInt64(z))),
                y = Int(random.next() % (UInt64(1) << UInt64(z)))
            let back = PMTiles.zxy(tileID: PMTiles.tileID(z: z, x: x, y: y)!)!
            #expect(back.z == z && back.x == x && back.y == y, "\(z)/\(x)/\(y)")
        }
    }

    /// The golden archive's tiles, as build_pmtiles.py's golden_tiles() makes them.
    static func goldenTiles() -> [(UInt64, String)] {
        var tiles = (0..<85).map { (UInt64($0), "low \($0)") }
        tiles += (0..<50).map { (UInt64(1000 + $0), "run") }
        var state: UInt64 = 1, id: UInt64 = 100_000
        for k in 0..<8000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            id += 1 + (state >> 40) % 200_000
            tiles.append((id, "scattered \(k % 7)"))
        }
        return tiles
    }

    @Test func readsEveryTileOfTheGoldenArchive() throws {
        let path = Self.fixtures + "/golden.pmtiles"
        let archive = try PMTilesArchive(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        #expect(archive.header.leafLength > 0, "the golden archive has leaf directories")
        #expect(archive.header.tileCompression == PMTiles.Compression.gzip.rawValue)
        #expect(archive.header.addressedTiles == 8135)
        let meta = try JSONSerialization.jsonObject(with: Data(archive.metadata)) as? [String: Any]
        #expect(meta?["name"] as? String == "golden")
        let tiles = Self.goldenTiles()
        for (id, text) in tiles {
            let (z, x, y) = PMTiles.zxy(tileID: id)!
            let stored = try #require(archive.tile(z: z, x: x, y: y), "tile \(id)")
            #expect(String(decoding: try Gzip.inflate(stored, limit: 1 << 20), as: UTF8.self) == text)
        }
        // IDs next to the present ones, and past the run, are absent.
        let present = Set(tiles.map(\.0))
        for id in tiles.map({ $0.0 + 1 }) + [1050, 84_999, 99_999] where !present.contains(id) {
            let (z, x, y) = PMTiles.zxy(tileID: id)!
            #expect(archive.tile(z: z, x: x, y: y) == nil, "tile \(id) is not in the archive")
        }
    }

    @Test func randomArchivesFromTheReferenceWriter() throws {
        guard let python = PythonTools.withPMTiles() else {
            print("skipped: python3 with the PyPI package pmtiles is not installed (make test-deps installs it)")
            return
        }
        let scratch = try TempDir("pmtiles")
        var random = SplitMix64(seed: 2024)
        for round in 0..<3 {
            // Sparse tiles over zooms 0-14, a few contents repeated so runs and shared offsets occur.
            var tiles: [UInt64: String] = [:]
            let count = [10, 3000, 12000][round]
            while tiles.count < count {
                let z = Int(random.next() % 15)
                let id = PMTiles.tileID(
                    z: z, x: Int(random.next() % (1 << UInt64(z))), y: Int(random.next() % (1 << UInt64(z))))!
                tiles[id] = random.next() % 3 == 0 ? "same" : "tile \(id)"
                if random.next() % 50 == 0 { for k in 1...20 { tiles[id + UInt64(k)] = "same" } }
            }
            let spec = try JSONSerialization.data(withJSONObject: ["tiles": tiles.map { [$0.key, $0.value] as [Any] }])
            let specPath = try scratch.file("spec\(round).json", bytes: Array(spec))
            let out = scratch.sub("r\(round).pmtiles")
            try python.run([Self.fixtures + "/build_pmtiles.py", out, specPath])
            let archive = try PMTilesArchive(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: out))), path: out)
            for (id, text) in tiles {
                let (z, x, y) = PMTiles.zxy(tileID: id)!
                let stored = try #require(archive.tile(z: z, x: x, y: y))
                #expect(String(decoding: try Gzip.inflate(stored, limit: 1 << 20), as: UTF8.self) == text)
            }
            for _ in 0..<2000 {
                let z = Int(random.next() % 15), x = Int(random.next() % (1 << UInt64(z))),
                    y = Int(random.next() % (1 << UInt64(z)))
                #expect((archive.tile(z: z, x: x, y: y) != nil) == (tiles[PMTiles.tileID(z: z, x: x, y: y)!] != nil))
            }
        }
    }

    @Test func refusesBrokenArchivesWithTheFileAndPosition() throws {
        let path = Self.fixtures + "/golden.pmtiles"
        let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        func failure(_ bytes: [UInt8]) -> String? {
            do {
                _ = try PMTilesArchive(bytes: bytes, path: "x.pmtiles")
                return nil
            } catch { return "\(error)" }
        }
        #expect(failure(Array(good.prefix(100)))?.contains("not a PMTiles archive") == true)
        var v2 = good
        v2[7] = 2
        #expect(failure(v2)?.contains("version 2") == true)
        #expect(failure(Array(good.prefix(20000)))?.contains("beyond the end of the file") == true)
        var badRoot = good
        for i in 127..<162 { badRoot[i] = 0xFF }
        #expect(failure(badRoot)?.contains("root directory at byte 127") == true)
        // A leaf pointer to itself must not loop forever: the root directory pointing at a leaf
        // section whose only entry is a leaf pointer again.
        let loop = Self.archive(root: [(0, 0, 5, 0)], leaves: [(0, 0, 5, 0)])
        #expect(failure(loop)?.contains("nested deeper") == true)
        // A directory that inflates to more than the limit.
        let bomb = GzipCompressor().compress(Array(repeating: 0x80, count: PMTilesArchive.maxDecompressed + 1))
        var header = Self.archive(root: [(0, 0, 1, 1)], leaves: [])
        header[97] = PMTiles.Compression.gzip.rawValue
        header.replaceSubrange(127..., with: bomb)
        Self.setU64(&header, 16, UInt64(bomb.count))
        for at in [24, 40, 56] {
            Self.setU64(&header, at, UInt64(127 + bomb.count))
            Self.setU64(&header, at + 8, 0)
        }
        #expect(failure(header)?.contains("decompresses to more than") == true, "\(failure(header) ?? "accepted")")
    }

    static func setU64(_ b: inout [UInt8], _ at: Int, _ v: UInt64) {
        for k in 0..<8 { b[at + k] = UInt8((v >> (8 * UInt64(k))) & 0xFF) }
    }

    /// An uncompressed archive (internal compression none) with the given directories of
    /// (tile ID delta, offset + 1, length, run length) entries and one byte of tile data.
    static func archive(root: [(UInt64, UInt64, UInt64, UInt64)], leaves: [(UInt64, UInt64, UInt64, UInt64)]) -> [UInt8]
    {
        func varint(_ v: UInt64, _ out: inout [UInt8]) {
            var v = v
            while v >= 0x80 {
                out.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }
        func directory(_ e: [(UInt64, UInt64, UInt64, UInt64)]) -> [UInt8] {
            var out: [UInt8] = []
            varint(UInt64(e.count), &out)
            for x in e { varint(x.0, &out) }
            for x in e { varint(x.3, &out) }
            for x in e { varint(x.2, &out) }
            for x in e { varint(x.1 + 1, &out) }
            return out
        }
        let r = directory(root), l = directory(leaves)
        var b = [UInt8](repeating: 0, count: 127)
        b.replaceSubrange(0..<8, with: Array("PMTiles".utf8) + [3])
        setU64(&b, 8, 127)
        setU64(&b, 16, UInt64(r.count))
        setU64(&b, 24, UInt64(127 + r.count))
        setU64(&b, 32, 0)
        setU64(&b, 40, UInt64(127 + r.count))
        setU64(&b, 48, UInt64(l.count))
        setU64(&b, 56, UInt64(127 + r.count + l.count))
        setU64(&b, 64, 1)
        b[97] = 1
        b[98] = 1
        b[99] = 1
        return b + r + l + [0x42]
    }
}
