import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import Foundation
import Testing

@testable import AreaWatchReport

/// grid.pmtiles' hexagons (SPEC §18): the vector tiles of an H3 grid decoded and held against
/// H3's own boundaries, projected by the test on the zoom's global grid.
@Suite("vector tiles of an H3 grid")
struct H3VectorTileTests {
    /// The Leeds city of the archive tests on H3 resolution 9, tiles at zooms 10–14.
    static func cityTiles() -> (ReportContent, [WidgetTiles.Tile]) {
        var content = GridArchiveTests.city()
        let index = IncidentIndex(columns: Self.columns(content), parameters: content.parameters)
        content.grid = index.grid(.h3(resolution: 9))
        let tiles = WidgetTiles.build(
            content.grid, changes: content.grid.changeSignificance().map { $0 }, zooms: 10...14)
        return (content, tiles)
    }

    /// The incidents of the city again (the content keeps only its grid).
    static func columns(_ content: ReportContent) -> IncidentColumns {
        var rng = SplitMix64(seed: 0x4E3)
        var columns = IncidentColumns()
        for _ in 0..<20_000 {
            let lat = 53.80 + (rng.unit() - 0.5) * 0.2, lon = -1.55 + (rng.unit() - 0.5) * 0.34
            columns.append(
                lat: lat, lon: lon, time: content.parameters.asOf - Int64(rng.unit() * 2 * 365 * 86_400),
                handled: nil, category: nil)
        }
        return columns
    }

    /// Twice the area of a ring (y down: positive for the exterior rings MVT asks for).
    static func twiceArea(_ ring: [(x: Double, y: Double)]) -> Double {
        ring.indices.reduce(0) { sum, k in
            let a = ring[k], b = ring[(k + 1) % ring.count]
            return sum + a.x * b.y - b.x * a.y
        }
    }

    @Test("every piece is positive; a cell's pieces trimmed to the tiles' own extents add up to its hexagon")
    func piecesAddUpToTheHexagon() throws {
        let (_, tiles) = Self.cityTiles()
        let vector = VectorTileCut.cut(tiles)
        #expect(tiles.count > 20 && vector.count >= tiles.count)
        var area: [String: Double] = [:]
        var keysSeen = Set<String>()
        for tile in vector {
            var encoder = CellLayerEncoder()
            encoder.cellKey = "h3"
            let layer = try #require(
                try decodeTile(encoder.encode(pieces: tile.pieces, disclosure: Disclosure())).first)
            #expect(layer.keys.first == "h3" && layer.features.count == tile.pieces.count)
            for feature in layer.features {
                guard case .string(let key) = feature.properties["h3"] else {
                    Issue.record("\(tile.id): a feature without h3")
                    continue
                }
                keysSeen.insert("\(tile.id.z)/" + key)
                for ring in feature.rings {
                    #expect(doubledArea(ring) > 0, "\(tile.id) \(key): an exterior ring of positive area")
                    let own = VectorTileCut.clip(
                        ring.map { (x: Double($0.x), y: Double($0.y)) }, minX: 0, minY: 0, maxX: 4096, maxY: 4096)
                    area["\(tile.id.z)/" + key, default: 0] += Self.twiceArea(own) / 2
                }
            }
        }
        var checked = 0
        for tile in tiles {
            let size = Double(Int64(1) << tile.id.z) * 4096
            for e in tile.cells {
                let id = "\(tile.id.z)/" + e.key
                #expect(keysSeen.contains(id), "\(id) is in no vector tile")
                let ring = e.system.boundary(of: e.id).map {
                    (
                        x: Double(VectorTileCut.globalX($0.lon, size: size)),
                        y: Double(VectorTileCut.globalY($0.lat, size: size))
                    )
                }
                let whole = abs(Self.twiceArea(ring)) / 2
                let got = area[id] ?? 0
                // Crossing points are rounded where an edge leaves a buffered extent, so a piece's
                // edge may lean by half a unit over the buffer's width: well under 0.2 %.
                #expect(abs(got - whole) <= 2e-3 * whole, "\(id): pieces \(got), hexagon \(whole)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("at the highest zoom a hexagon inside its tile is one feature of its H3 boundary's vertices")
    func wholeHexagons() throws {
        let (_, tiles) = Self.cityTiles()
        let top = VectorTileCut.cut(tiles.filter { $0.id.z == 14 })
        var whole = 0
        for tile in top {
            for piece in tile.pieces {
                let size = Double(Int64(1) << 14) * 4096
                let ring = piece.entry.system.boundary(of: piece.entry.id).map {
                    MVT.Point(
                        x: Int32(VectorTileCut.globalX($0.lon, size: size) - Int64(tile.id.x) * 4096),
                        y: Int32(VectorTileCut.globalY($0.lat, size: size) - Int64(tile.id.y) * 4096))
                }
                guard ring.allSatisfy({ (-256...4352).contains($0.x) && (-256...4352).contains($0.y) }) else {
                    continue
                }
                #expect(piece.polygons.count == 1 && piece.polygons[0].count == ring.count, "\(piece.entry.key)")
                #expect(Set(piece.polygons[0].map { "\($0.x),\($0.y)" }) == Set(ring.map { "\($0.x),\($0.y)" }))
                whole += 1
            }
        }
        #expect(whole > 100)
    }

    @Test("a cell across the antimeridian is cut into both edge tiles; the north pole's cell reaches the top row")
    func antimeridianAndPole() throws {
        // SPEC §18's cells: on the equator at 180° (resolution 2), and the one holding the north
        // pole at resolution 0 (at 2 every vertex lies beyond Web Mercator's edge: no area).
        for (text, crosses) in [("827eb7fffffffff", true), ("8001fffffffffff", false)] {
            let system = GridSystem.h3(resolution: try #require(H3Cell(text)).resolution)
            let id = try #require(system.cell(text: text))
            let entry = WidgetTiles.Entry(
                id: id, system: system, key: system.text(of: id), rCurrent: 1, rPrevious: 0, safetyClass: .safe,
                change: "none")
            let pieces = VectorTileCut.hexagonPieces(entry, zoom: 3)
            #expect(!pieces.isEmpty)
            for (tile, piece) in pieces {
                for ring in piece.polygons {
                    let points = ring.map { (x: Double($0.x), y: Double($0.y)) }
                    #expect(Self.twiceArea(points) > 0, "\(tile)")
                }
            }
            if crosses {
                let columns = Set(pieces.map(\.0.x))
                #expect(columns.contains(0) && columns.contains(7), "both sides of 180°: \(columns)")
            } else {
                #expect(pieces.contains { $0.0.y == 0 }, "the top row")
            }
        }
    }
}
