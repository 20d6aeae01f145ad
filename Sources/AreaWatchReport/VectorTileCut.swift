import AreaWatchCore
import AreaWatchFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the cells of the JSON tiles are cut into vector tiles (SPEC §14), the way tile tools do
/// it (tippecanoe's buffer): a vector tile holds every cell or merged cell of its zoom whose
/// rectangle overlaps the tile's extent grown by `CellLayerEncoder.buffer` units on each side,
/// clipped to that grown extent. Neighbouring tiles so draw the same cell edge to edge, with no
/// seam where the part of a cell spilling over a tile edge would otherwise be missing.
///
/// Invariant: a cell is projected and rounded once, on the zoom's global grid of 2^z × 4096 units
/// (`GlobalRectangle`); every tile's piece is that rectangle translated by the tile's origin and
/// clipped. Neighbouring pieces therefore share their edges exactly, and the pieces trimmed to the
/// unbuffered extents add up to the cell's rectangle, unit for unit.
enum VectorTileCut {
    /// One cell as one vector tile holds it: its values and its rectangle in tile coordinates;
    /// for an H3 cell (SPEC §18) also its clipped rings, and the rectangle is their bounds.
    struct Piece: Sendable {
        var entry: WidgetTiles.Entry
        var rectangle: MVT.Rectangle
        var polygons: [[MVT.Point]] = []
    }

    /// One non-empty vector tile: its pieces in geohash order.
    struct Tile: Sendable {
        var id: TileID
        var pieces: [Piece]
    }

    /// A rectangle on a zoom's global grid: x east from the antimeridian, y south from the top of
    /// the Web Mercator square, both in units of 1/4096 of a tile; x0 < x1, y0 < y1.
    struct GlobalRectangle: Sendable, Equatable {
        var x0: Int64, y0: Int64, x1: Int64, y1: Int64
    }

    static var extent: Int64 { Int64(CellLayerEncoder.extent) }
    static var buffer: Int64 { Int64(CellLayerEncoder.buffer) }

    /// The vector tiles of `tiles` (from `WidgetTiles.build`), sorted by (z, x, y).
    static func cut(_ tiles: [WidgetTiles.Tile]) -> [Tile] {
        var byTile: [TileID: [Piece]] = [:]
        for tile in tiles {
            let z = tile.id.z
            for entry in tile.cells {
                guard case .geohash = entry.system else {
                    for (id, piece) in hexagonPieces(entry, zoom: z) { byTile[id, default: []].append(piece) }
                    continue
                }
                let cell = globalRectangle(entry.cell.bounds, zoom: z)
                for (id, rectangle) in pieces(of: cell, zoom: z) {
                    byTile[id, default: []].append(Piece(entry: entry, rectangle: rectangle))
                }
            }
        }
        return byTile.keys.sorted().map { id in
            Tile(id: id, pieces: byTile[id]!.sorted { $0.entry.key < $1.entry.key })
        }
    }

    /// A cell's rectangle on the global grid of zoom `z`: its corners projected to Web Mercator and
    /// rounded half away from zero. Latitudes beyond Web Mercator's edge project onto it (the
    /// geohash grid reaches ±90°). A cell narrower (or lower) than one unit keeps one unit, so
    /// that its ring has an area.
    static func globalRectangle(_ b: GeoBox, zoom z: Int) -> GlobalRectangle {
        let size = Double(Int64(1) << z) * Double(extent)
        func x(_ lon: Double) -> Int64 { globalX(lon, size: size) }
        func y(_ lat: Double) -> Int64 { globalY(lat, size: size) }
        let world = Int64(size)
        var r = GlobalRectangle(x0: x(b.minLon), y0: y(b.maxLat), x1: x(b.maxLon), y1: y(b.minLat))
        (r.x0, r.x1) = atLeastOneUnit(r.x0, r.x1, world: world)
        (r.y0, r.y1) = atLeastOneUnit(r.y0, r.y1, world: world)
        return r
    }

    /// A longitude on the global grid of `size` units round the world, rounded half away from zero.
    static func globalX(_ lon: Double, size: Double) -> Int64 {
        Int64(((lon + 180) / 360 * size).rounded(.toNearestOrAwayFromZero))
    }

    /// A latitude on the global grid (Web Mercator, y south; beyond its edge, on the edge).
    static func globalY(_ lat: Double, size: Double) -> Int64 {
        let phi = min(max(lat, -WebMercator.maxLatitude), WebMercator.maxLatitude) * Double.pi / 180
        return Int64(((1 - log(tan(phi) + 1 / cos(phi)) / Double.pi) / 2 * size).rounded(.toNearestOrAwayFromZero))
    }

    /// `low..<high` widened to one unit inside `0...world` when it is empty.
    private static func atLeastOneUnit(_ low: Int64, _ high: Int64, world: Int64) -> (Int64, Int64) {
        guard high <= low else { return (low, high) }
        return low < world ? (low, low + 1) : (world - 1, world)
    }

    /// Every tile of zoom `z` whose buffered extent overlaps `r` with a positive area, with `r`
    /// clipped to that buffered extent in the tile's coordinates. A rectangle that only touches
    /// the buffered extent's edge is not in the tile.
    static func pieces(of r: GlobalRectangle, zoom z: Int) -> [(TileID, MVT.Rectangle)] {
        guard let columns = tileRange(r.x0, r.x1, zoom: z), let rows = tileRange(r.y0, r.y1, zoom: z) else { return [] }
        var out: [(TileID, MVT.Rectangle)] = []
        out.reserveCapacity(columns.count * rows.count)
        for ty in rows {
            for tx in columns {
                let ox = tx * extent, oy = ty * extent
                let piece = MVT.Rectangle(
                    x0: clip(r.x0 - ox), y0: clip(r.y0 - oy),
                    x1: clip(r.x1 - ox), y1: clip(r.y1 - oy))
                out.append((TileID(z: z, x: Int(tx), y: Int(ty)), piece))
            }
        }
        return out
    }

    /// The tiles (columns or rows) of zoom `z` whose buffered extent overlaps `low…high` with a
    /// positive length. Tile t's buffered extent is (t·E − B)…((t+1)·E + B): it overlaps when
    /// low < (t+1)·E + B and t·E − B < high.
    static func tileRange(_ low: Int64, _ high: Int64, zoom z: Int) -> ClosedRange<Int64>? {
        let last = (Int64(1) << z) - 1
        let first = max(0, floorDivide(low - buffer, extent))
        let end = min(last, ceilDivide(high + buffer, extent) - 1)
        return first <= end ? first...end : nil
    }

    /// A tile coordinate clipped to the tile plus its buffer.
    private static func clip(_ v: Int64) -> Int32 { Int32(min(max(v, -buffer), extent + buffer)) }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    private static func ceilDivide(_ a: Int64, _ b: Int64) -> Int64 { -floorDivide(-a, b) }
}
