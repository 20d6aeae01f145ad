import AreaWatchCore
import AreaWatchFormats

/// The vector-tile pieces of H3 cells (SPEC §18), cut as `VectorTileCut` cuts rectangles: a
/// cell's parts as grid.geojson draws them (split at the antimeridian, a polar cap closed along
/// it) are projected and rounded once on the zoom's global grid; every tile whose buffered extent
/// their bounds overlap gets them clipped to that extent and translated to its origin.
///
/// Invariant: a vertex of a piece is a rounded global vertex, or where a global edge meets a
/// buffered extent's side, rounded; neighbouring tiles therefore draw the same edges, and a
/// piece's rings have the positive area (y down) MVT 2.1 asks of exterior rings.
extension VectorTileCut {
    typealias GlobalPoint = (x: Double, y: Double)

    /// The pieces of one H3 entry by tile; a tile reached by two parts holds both in one piece.
    static func hexagonPieces(_ entry: WidgetTiles.Entry, zoom z: Int) -> [(TileID, Piece)] {
        let size = Double(Int64(1) << z) * Double(extent)
        var byTile: [TileID: [[MVT.Point]]] = [:]
        for part in CellPolygons.parts(of: entry.system.boundary(of: entry.id)) {
            let ring = part.dropLast().map { v in
                GlobalPoint(x: Double(globalX(v.lon, size: size)), y: Double(globalY(v.lat, size: size)))
            }
            let xs = ring.map { Int64($0.x) }, ys = ring.map { Int64($0.y) }
            guard let low = xs.min(), let high = xs.max(), let top = ys.min(), let bottom = ys.max(),
                let columns = tileRange(low, high, zoom: z), let rows = tileRange(top, bottom, zoom: z)
            else { continue }
            for ty in rows {
                for tx in columns {
                    let ox = Double(tx * extent), oy = Double(ty * extent)
                    let b = Double(buffer), e = Double(extent)
                    let clipped = clip(ring, minX: ox - b, minY: oy - b, maxX: ox + e + b, maxY: oy + e + b)
                    guard let piece = tileRing(clipped, originX: ox, originY: oy) else { continue }
                    byTile[TileID(z: z, x: Int(tx), y: Int(ty)), default: []].append(piece)
                }
            }
        }
        return byTile.map { id, rings in
            let points = rings.joined()
            let rectangle = MVT.Rectangle(
                x0: points.map(\.x).min()!, y0: points.map(\.y).min()!,
                x1: points.map(\.x).max()!, y1: points.map(\.y).max()!)
            return (id, Piece(entry: entry, rectangle: rectangle, polygons: rings))
        }
    }

    /// Sutherland–Hodgman: the ring clipped to the box (convex, so one pass per side suffices).
    static func clip(
        _ ring: [GlobalPoint], minX: Double, minY: Double, maxX: Double, maxY: Double
    ) -> [GlobalPoint] {
        var points = ring
        points = clipSide(points, inside: { $0.x >= minX }, cross: { a, b in crossX(a, b, minX) })
        points = clipSide(points, inside: { $0.x <= maxX }, cross: { a, b in crossX(a, b, maxX) })
        points = clipSide(points, inside: { $0.y >= minY }, cross: { a, b in crossY(a, b, minY) })
        points = clipSide(points, inside: { $0.y <= maxY }, cross: { a, b in crossY(a, b, maxY) })
        return points
    }

    private static func clipSide(
        _ ring: [GlobalPoint], inside: (GlobalPoint) -> Bool, cross: (GlobalPoint, GlobalPoint) -> GlobalPoint
    ) -> [GlobalPoint] {
        guard let last = ring.last else { return [] }
        var out: [GlobalPoint] = []
        var previous = last
        for point in ring {
            switch (inside(previous), inside(point)) {
            case (true, true): out.append(point)
            case (true, false): out.append(cross(previous, point))
            case (false, true): out += [cross(previous, point), point]
            case (false, false): break
            }
            previous = point
        }
        return out
    }

    private static func crossX(_ a: GlobalPoint, _ b: GlobalPoint, _ x: Double) -> GlobalPoint {
        (x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    private static func crossY(_ a: GlobalPoint, _ b: GlobalPoint, _ y: Double) -> GlobalPoint {
        (a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y)
    }

    /// The clipped ring in the tile's coordinates, rounded half away from zero, repeated vertices
    /// dropped, turned to a positive area; nil when fewer than three vertices or no area remain.
    static func tileRing(_ ring: [GlobalPoint], originX: Double, originY: Double) -> [MVT.Point]? {
        var out: [MVT.Point] = []
        for p in ring {
            let point = MVT.Point(
                x: Int32((p.x - originX).rounded(.toNearestOrAwayFromZero)),
                y: Int32((p.y - originY).rounded(.toNearestOrAwayFromZero)))
            if out.last != point { out.append(point) }
        }
        while out.count > 1 && out.first == out.last { out.removeLast() }
        guard out.count >= 3 else { return nil }
        var twiceArea: Int64 = 0
        for k in out.indices {
            let a = out[k], b = out[(k + 1) % out.count]
            twiceArea += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        guard twiceArea != 0 else { return nil }
        return twiceArea > 0 ? out : out.reversed()
    }
}
