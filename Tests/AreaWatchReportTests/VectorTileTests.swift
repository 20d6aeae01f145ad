import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import Testing

@testable import AreaWatchReport

/// Golden byte sequences of the protobuf and MVT encoding, worked out by hand from the protobuf
/// encoding rules and MVT 2.1 (docs/FORMATS.md "grid.pmtiles").
@Suite("vector tiles: encoding")
struct VectorTileTests {
    /// The pieces of `entries` in `tile` as the cut makes them.
    func pieces(_ entries: [WidgetTiles.Entry], in tile: TileID) -> [VectorTileCut.Piece] {
        entries.map { e in
            let all = VectorTileCut.pieces(of: VectorTileCut.globalRectangle(e.cell.bounds, zoom: tile.z), zoom: tile.z)
            return VectorTileCut.Piece(entry: e, rectangle: all.first { $0.0 == tile }!.1)
        }
    }

    func varint(_ v: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        Protobuf.appendVarint(v, to: &out)
        return out
    }

    @Test("varints: 7 bits per byte, least significant group first, high bit = more")
    func varints() {
        #expect(varint(0) == [0x00])
        #expect(varint(1) == [0x01])
        #expect(varint(127) == [0x7F])
        #expect(varint(128) == [0x80, 0x01])
        #expect(varint(300) == [0xAC, 0x02])
        #expect(varint(16_384) == [0x80, 0x80, 0x01])
        #expect(varint(UInt64.max) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test("zigzag: 0, -1, 1, -2, 2 → 0, 1, 2, 3, 4; the Int32 extremes")
    func zigzag() {
        #expect([0, -1, 1, -2, 2].map { Protobuf.zigzag($0) } == [0, 1, 2, 3, 4])
        #expect(Protobuf.zigzag(Int32.max) == 4_294_967_294)
        #expect(Protobuf.zigzag(Int32.min) == 4_294_967_295)
    }

    @Test("a rectangle: MoveTo NW, LineTo ×3 (NE, SE, SW) as zigzag deltas, ClosePath")
    func rectangleCommands() {
        var out: [UInt8] = []
        MVT.appendRectangle(.init(x0: 1, y0: 2, x1: 5, y1: 6), to: &out)
        // 9 = MoveTo×1, (1,2) → 2,4; 26 = LineTo×3, (+4,0) (0,+4) (−4,0) → 8,0 0,8 7,0; 15 = ClosePath.
        #expect(out == [9, 2, 4, 26, 8, 0, 0, 8, 7, 0, 15])
    }

    @Test("one square in one tile: the whole Tile message, byte for byte")
    func oneSquareTile() throws {
        // Geohash "g" (lon −45…0, lat 45…90) in tile 1/0/0: x 3072…4096; y from the map's top edge
        // (90° projects onto 85.0511°, y 0) to 45° (y 2946.87 → 2947).
        let cell = try #require(GeohashCell("g"))
        let entry = WidgetTiles.Entry(
            cell: cell, key: "g", rCurrent: 7, rPrevious: 3, safetyClass: .medium, change: "none")
        var encoder = CellLayerEncoder()
        let tile = encoder.encode(pieces: pieces([entry], in: TileID(z: 1, x: 0, y: 0)), disclosure: Disclosure())
        let geometry: [UInt8] = [
            9, 0x80, 0x30, 0, // MoveTo (3072, 0)
            26, 0x80, 0x10, 0, // LineTo +1024, 0
            0, 0x86, 0x2E, //        0, +2947
            0xFF, 0x0F, 0, //        −1024, 0
            15
        ] // ClosePath
        let feature: [UInt8] =
            [
                0x12, 10, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, // tags: key i → value i
                0x18, 3, // type POLYGON
                0x22, 15
            ] + geometry
        var layer: [UInt8] = [0x0A, 5] + Array("cells".utf8) + [0x12, 31] + feature
        for key in ["geohash", "r_current", "r_previous", "class", "change"] {
            layer += [0x1A, UInt8(key.utf8.count)] + Array(key.utf8)
        }
        layer += [0x22, 3, 0x0A, 1] + Array("g".utf8) // "g"
        layer += [0x22, 2, 0x28, 7] // uint 7
        layer += [0x22, 2, 0x28, 3] // uint 3
        layer += [0x22, 8, 0x0A, 6] + Array("medium".utf8)
        layer += [0x22, 6, 0x0A, 4] + Array("none".utf8)
        layer += [0x28, 0x80, 0x20] // extent 4096
        layer += [0x78, 2] // version 2
        #expect(layer.count == 123)
        #expect(tile == [0x1A, 123] + layer)
    }

    @Test(
        "values are shared between features; a withheld count (zero included, SPEC §10) is left out; keys are always the five"
    )
    func dedupeAndDisclosure() throws {
        let cells = ["gcw2", "gcw3", "gcw6"].map { try! #require(GeohashCell($0)) }
        let entries = [
            WidgetTiles.Entry(
                cell: cells[0], key: "gcw2", rCurrent: 12, rPrevious: 2, safetyClass: .dangerous, change: "none"),
            WidgetTiles.Entry(
                cell: cells[1], key: "gcw3", rCurrent: 12, rPrevious: 0, safetyClass: .dangerous, change: "none"),
            WidgetTiles.Entry(
                cell: cells[2], key: "gcw6", rCurrent: 1, rPrevious: 12, safetyClass: .safe, change: "none")
        ]
        let tileID = TileID(lat: cells[0].centre.lat, lon: cells[0].centre.lon, zoom: 6)
        var encoder = CellLayerEncoder()
        let layers = try decodeTile(
            encoder.encode(pieces: pieces(entries, in: tileID), disclosure: Disclosure(minCellCount: 3)))
        let layer = try #require(layers.first)
        #expect(layers.count == 1 && layer.name == "cells" && layer.version == 2 && layer.extent == 4096)
        #expect(layer.keys == ["geohash", "r_current", "r_previous", "class", "change"])
        // 12 and "dangerous" and "none" once each; 2, 1 and 0 are below K, so never stored.
        #expect(
            layer.values == [
                .string("gcw2"), .uint(12), .string("dangerous"), .string("none"), .string("gcw3"),
                .string("gcw6"), .string("safe")
            ])
        #expect(layer.features.map { $0.properties["r_current"] } == [.uint(12), .uint(12), nil])
        #expect(layer.features.map { $0.properties["r_previous"] } == [nil, nil, .uint(12)])
        #expect(
            layer.features.allSatisfy { $0.properties["class"] != nil && $0.properties["change"] == .string("none") })
        // Reusing the encoder for another tile starts from empty tables.
        let again = try decodeTile(encoder.encode(pieces: pieces([entries[2]], in: tileID), disclosure: Disclosure()))
        #expect(again.first?.values == [.string("gcw6"), .uint(1), .uint(12), .string("safe"), .string("none")])
    }

    @Test("counts on both sides of the encoder's slot table are shared within a tile and forgotten between tiles")
    func largeCounts() throws {
        let cells = ["gcw2", "gcw3", "gcw6", "gcw7"].map { try! #require(GeohashCell($0)) }
        let counts = [(16_383, 16_384), (16_384, 1_000_000), (1_000_000, 16_383), (0, 16_384)]
        let entries = zip(cells, counts).map { cell, c in
            WidgetTiles.Entry(
                cell: cell, key: cell.string, rCurrent: c.0, rPrevious: c.1, safetyClass: .dangerous, change: "rise"
            )
        }
        let tileID = TileID(lat: cells[0].centre.lat, lon: cells[0].centre.lon, zoom: 6)
        var encoder = CellLayerEncoder()
        for _ in 0..<2 {
            let layer = try #require(
                try decodeTile(encoder.encode(pieces: pieces(entries, in: tileID), disclosure: Disclosure())).first)
            #expect(
                layer.values.filter { if case .uint = $0 { return true } else { return false } }
                    == [.uint(16_383), .uint(16_384), .uint(1_000_000), .uint(0)])
            #expect(layer.features.map { $0.properties["r_current"] } == counts.map { .uint(UInt64($0.0)) })
            #expect(layer.features.map { $0.properties["r_previous"] } == counts.map { .uint(UInt64($0.1)) })
            #expect(layer.values.filter { $0 == .string("rise") }.count == 1)
        }
    }

    @Test("rings are exterior (positive area, y down), clipped to the tile plus 256, at least one unit wide")
    func geometryRules() throws {
        // A precision-1 cell at zoom 6 is far larger than the tile: clipped to −256…4352.
        let tile = TileID(lat: 67.5, lon: -22.5, zoom: 6)
        let big = pieces(
            [
                .init(
                    cell: try #require(GeohashCell("g")), key: "g", rCurrent: 1, rPrevious: 0,
                    safetyClass: .safe, change: "none")
            ], in: tile)
        #expect(big.first?.rectangle == .init(x0: -256, y0: -256, x1: 4352, y1: 4352))
        // A precision-9 cell (4.8 m) at zoom 2 rounds to nothing: kept one unit wide and high.
        let tinyCell = GeohashCell(lat: 53.8, lon: -1.55, precision: 9)
        let tinyTile = TileID(lat: 53.8, lon: -1.55, zoom: 2)
        let tiny = pieces(
            [
                .init(
                    cell: tinyCell, key: tinyCell.string, rCurrent: 1, rPrevious: 0, safetyClass: .safe,
                    change: "none")
            ], in: tinyTile)[0].rectangle
        #expect(tiny.x1 - tiny.x0 == 1 && tiny.y1 - tiny.y0 == 1)
        var geometry: [UInt8] = []
        MVT.appendRectangle(tiny, to: &geometry)
        let rings = try decodeRings(try WireReader(geometry).packed(0..<geometry.count))
        #expect(rings.count == 1 && doubledArea(rings[0]) == 2)
    }
}
