import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import Foundation
import Testing

@testable import AreaWatchReport

/// The tests' own model of SPEC §14's cut, written from the rule and not from the code: a cell's
/// rectangle on the zoom's global grid (4096 units a tile, y down, rounded half up since the
/// coordinates are never negative), and by brute force every tile of a generous neighbourhood
/// whose extent grown by 256 units overlaps it with a positive area, with the clipped piece.
enum CutModel {
    static let extent: Int64 = 4096, buffer: Int64 = 256
    typealias Box = (x0: Int64, y0: Int64, x1: Int64, y1: Int64)

    static func globalBox(_ b: GeoBox, zoom z: Int) -> Box {
        let size = Double(Int64(1) << z) * 4096
        func x(_ lon: Double) -> Int64 { Int64(((lon + 180) / 360 * size + 0.5).rounded(.down)) }
        func y(_ lat: Double) -> Int64 {
            let phi = min(max(lat, -85.05112877980659), 85.05112877980659) * Double.pi / 180
            return Int64(((1 - log(tan(phi) + 1 / cos(phi)) / Double.pi) / 2 * size + 0.5).rounded(.down))
        }
        func widen(_ lo: Int64, _ hi: Int64) -> (Int64, Int64) {
            hi > lo ? (lo, hi) : (lo < Int64(size) ? (lo, lo + 1) : (Int64(size) - 1, Int64(size)))
        }
        let (x0, x1) = widen(x(b.minLon), x(b.maxLon)), (y0, y1) = widen(y(b.maxLat), y(b.minLat))
        return (x0, y0, x1, y1)
    }

    /// Every (tile, piece in tile coordinates) of `box` at zoom `z`, by trying every tile within
    /// two tiles of it.
    static func pieces(_ box: Box, zoom z: Int) -> [(tile: TileID, piece: Box)] {
        let n = Int64(1) << z
        var out: [(TileID, Box)] = []
        for ty in max(0, box.y0 / extent - 2)...min(n - 1, box.y1 / extent + 2) {
            for tx in max(0, box.x0 / extent - 2)...min(n - 1, box.x1 / extent + 2) {
                let ox = tx * extent, oy = ty * extent
                let c = (
                    x0: max(box.x0, ox - buffer), y0: max(box.y0, oy - buffer),
                    x1: min(box.x1, ox + extent + buffer), y1: min(box.y1, oy + extent + buffer)
                )
                guard c.x0 < c.x1 && c.y0 < c.y1 else { continue }
                out.append((TileID(z: z, x: Int(tx), y: Int(ty)), (c.x0 - ox, c.y0 - oy, c.x1 - ox, c.y1 - oy)))
            }
        }
        return out
    }
}

@Suite("vector tiles: cells cut at tile edges with a buffer")
struct VectorTileCutTests {
    static func box(_ r: MVT.Rectangle) -> CutModel.Box { (Int64(r.x0), Int64(r.y0), Int64(r.x1), Int64(r.y1)) }
    static func box(_ r: VectorTileCut.GlobalRectangle) -> CutModel.Box { (r.x0, r.y0, r.x1, r.y1) }

    /// For every cell of `tiles`: its pieces over all vector tiles of its zoom, translated back to
    /// global coordinates and trimmed to the unbuffered extents, cover exactly the cell's
    /// rectangle (same bounds, areas adding up to its area, no two overlapping), and the pieces
    /// are the model's. Returns the number of cells cut into more than one piece.
    static func checkUnion(_ tiles: [WidgetTiles.Tile]) -> Int {
        var piecesOf: [String: [(TileID, CutModel.Box)]] = [:]
        for t in VectorTileCut.cut(tiles) {
            #expect(t.pieces.map(\.entry.key) == t.pieces.map(\.entry.key).sorted(), "\(t.id): geohash order")
            for p in t.pieces { piecesOf["\(t.id.z)/" + p.entry.key, default: []].append((t.id, box(p.rectangle))) }
        }
        var split = 0
        for t in tiles {
            for e in t.cells {
                let z = t.id.z
                let cell = CutModel.globalBox(e.cell.bounds, zoom: z)
                #expect(box(VectorTileCut.globalRectangle(e.cell.bounds, zoom: z)) == cell, "\(z)/\(e.key)")
                let got = (piecesOf["\(z)/" + e.key] ?? []).sorted { $0.0 < $1.0 }
                let model = CutModel.pieces(cell, zoom: z).sorted { $0.tile < $1.tile }
                #expect(
                    got.map(\.0) == model.map(\.tile) && zip(got, model).allSatisfy { $0.1 == $1.piece },
                    "\(z)/\(e.key): \(got) vs \(model)")
                var trimmed: [CutModel.Box] = []
                for (tile, p) in got {
                    let ox = Int64(tile.x) * 4096, oy = Int64(tile.y) * 4096
                    let g = (
                        x0: max(p.x0, 0) + ox, y0: max(p.y0, 0) + oy,
                        x1: min(p.x1, 4096) + ox, y1: min(p.y1, 4096) + oy
                    )
                    if g.x0 < g.x1 && g.y0 < g.y1 { trimmed.append(g) }
                }
                let area = trimmed.reduce(Int64(0)) { $0 + ($1.x1 - $1.x0) * ($1.y1 - $1.y0) }
                #expect(area == (cell.x1 - cell.x0) * (cell.y1 - cell.y0), "\(z)/\(e.key): area")
                #expect(
                    trimmed.map(\.x0).min() == cell.x0 && trimmed.map(\.y0).min() == cell.y0
                        && trimmed.map(\.x1).max() == cell.x1 && trimmed.map(\.y1).max() == cell.y1,
                    "\(z)/\(e.key): bounds")
                for (i, a) in trimmed.enumerated() {
                    for b in trimmed[(i + 1)...] {
                        #expect(
                            max(a.x0, b.x0) >= min(a.x1, b.x1) || max(a.y0, b.y0) >= min(a.y1, b.y1),
                            "\(e.key): overlap")
                    }
                }
                if trimmed.count > 1 { split += 1 }
            }
        }
        return split
    }

    @Test("the union of a cell's clipped pieces over all tiles is the cell (30,000 incidents, zooms 8–14)")
    func unionIsTheCell() throws {
        let content = GridArchiveTests.city()
        let tiles = WidgetTiles.build(content.grid, changes: ReportChanges(content).grid, zooms: 8...14)
        let split = Self.checkUnion(tiles)
        #expect(split > 100, "a realistic grid has many cells across tile edges: \(split)")
    }

    @Test("random grids at random places and zooms 0–16, merged cells included")
    func randomGrids() throws {
        var rng = SplitMix64(seed: 0x5EA3)
        for round in 0..<40 {
            let lat = (rng.unit() - 0.5) * 170, lon = (rng.unit() - 0.5) * 358
            let spread = [0.001, 0.05, 2, 40][round % 4]
            // Cells at most four tiles wide at the zoom (a geohash of precision p has (5p + 1) / 2
            // longitude bits), as the report's precision for each zoom makes them.
            let zoom = Int(rng.next() % 17)
            let coarsest = (1...12).first { (5 * $0 + 1) / 2 >= zoom - 2 }!
            var cells: [GeohashCell] = []
            for _ in 0..<200 {
                let la = min(89.9, max(-89.9, lat + (rng.unit() - 0.5) * spread))
                let lo = min(179.9, max(-179.9, lon + (rng.unit() - 0.5) * spread))
                cells.append(GeohashCell(lat: la, lon: lo, precision: coarsest + Int(rng.next() % 4)))
            }
            var byTile: [TileID: [WidgetTiles.Entry]] = [:]
            for c in Set(cells.map(\.string)).sorted() {
                let cell = GeohashCell(c)!
                let tile = TileID(lat: cell.centre.lat, lon: cell.centre.lon, zoom: zoom)
                byTile[tile, default: []].append(
                    .init(
                        cell: cell, key: c, rCurrent: 1, rPrevious: 0,
                        safetyClass: .safe, change: "none"))
            }
            let tiles = byTile.keys.sorted().map {
                WidgetTiles.Tile(id: $0, system: .geohash(precision: 0), cells: byTile[$0]!)
            }
            _ = Self.checkUnion(tiles)
        }
    }

    @Test("boundary cases: a cell on a tile edge, one touching the buffer's edge, one wider than a tile, a tiny one")
    func boundaryCases() throws {
        // Geohash "g" (lon −45…0, lat 45…90) at zoom 1: x 3072…4096 on the global grid, its east
        // edge exactly on the edge of tiles 1/0/0 and 1/1/0. Whole in 1/0/0, and in 1/1/0 the
        // 256 units of it that lie in that tile's buffer (x −256…0): a renderer draws 1/1/0's
        // west edge over the cell's colour, not over the background.
        let g = try #require(GeohashCell("g"))
        let atEdge = VectorTileCut.pieces(of: VectorTileCut.globalRectangle(g.bounds, zoom: 1), zoom: 1)
        #expect(atEdge.map(\.0) == [TileID(z: 1, x: 0, y: 0), TileID(z: 1, x: 1, y: 0)])
        #expect(
            atEdge.map(\.1) == [
                .init(x0: 3072, y0: 0, x1: 4096, y1: 2947),
                .init(x0: -256, y0: 0, x1: 0, y1: 2947)
            ])
        // A cell reaching one unit past a tile's west edge is in both tiles: one unit in the west
        // tile's buffer, the rest in its own tile; one ending exactly at the buffer's edge is not.
        let inBuffer = VectorTileCut.pieces(of: .init(x0: 4095, y0: 10, x1: 4200, y1: 20), zoom: 2)
        #expect(inBuffer.map(\.0) == [TileID(z: 2, x: 0, y: 0), TileID(z: 2, x: 1, y: 0)])
        #expect(
            inBuffer.map(\.1) == [
                .init(x0: 4095, y0: 10, x1: 4200, y1: 20),
                .init(x0: -1, y0: 10, x1: 104, y1: 20)
            ])
        let touching = VectorTileCut.pieces(of: .init(x0: 4096 + 256, y0: 10, x1: 5000, y1: 20), zoom: 2)
        #expect(touching.map(\.0) == [TileID(z: 2, x: 1, y: 0)], "ends at the buffer's edge of tile 0: not in it")
        // A precision-1 cell at zoom 6 is 8 tiles wide (columns 24–31, edges on tile edges): in
        // every tile it overlaps, buffers included (columns 23 and 32), clipped to each.
        let wide = VectorTileCut.pieces(of: VectorTileCut.globalRectangle(g.bounds, zoom: 6), zoom: 6)
        let rows = Set(wide.map(\.0.y))
        #expect(Set(wide.map(\.0.x)) == Set(23...32) && rows == Set(0...23) && wide.count == 10 * 24)
        // Whole tiles: columns 25–30 and rows 1–21; the others' buffers reach past one of its edges.
        #expect(wide.filter { $0.1 == .init(x0: -256, y0: -256, x1: 4352, y1: 4352) }.count == 6 * 21)
        #expect(wide.filter { $0.0.x == 23 }.allSatisfy { $0.1.x0 == 4096 && $0.1.x1 == 4352 })
        #expect(wide.filter { $0.0.x == 32 }.allSatisfy { $0.1.x0 == -256 && $0.1.x1 == 0 })
        // A precision-9 cell (4.8 m) at zoom 2 rounds to nothing: kept one unit wide and high.
        let tiny = VectorTileCut.globalRectangle(GeohashCell(lat: 53.8, lon: -1.55, precision: 9).bounds, zoom: 2)
        #expect(tiny.x1 - tiny.x0 == 1 && tiny.y1 - tiny.y0 == 1)
        // The east edge of the world: a one-unit cell stays inside it.
        let sliver = GeoBox(minLat: 0, minLon: 179.99999, maxLat: 0.00001, maxLon: 180)
        let east = VectorTileCut.globalRectangle(sliver, zoom: 0)
        #expect(east == .init(x0: 4095, y0: 2048, x1: 4096, y1: 2049))
    }
}
