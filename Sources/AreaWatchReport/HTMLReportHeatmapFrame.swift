import AreaWatchCore
import AreaWatchQuery
import Glibc

/// Where the heatmap's cell lattice sits in the figure.
///
/// Cells are drawn in lattice units (integer coordinates) inside a nested SVG whose viewBox is
/// stretched to the map box: integers keep 130,000 cells compact, and the stretch applies the
/// cos(latitude) aspect without touching any cell coordinate. A geohash cell is one unit square;
/// an H3 cell's vertices are rounded to a quarter of its resolution's average edge, so that
/// neighbouring hexagons share their rounded vertices and tile without seams.
struct HeatmapFrame {
    let grid: GridSystem
    /// Degrees of longitude and of latitude per lattice unit.
    let lonUnit: Double
    let latUnit: Double
    /// Lattice column of the map's left edge and row just above its top edge.
    let x0: Int64
    let yTop: Int64
    let cols: Int64
    let rows: Int64
    let midLat: Double
    let mapX = 14.0, mapY = 40.0
    let mapW: Double
    let mapH: Double

    static let maxW = 820.0, maxH = 640.0

    init(grid: GridResult, areas: [NamedArea]) {
        self.init(grid: grid.system, cells: grid.cells.map(\.id), areas: areas)
    }

    /// The frame around cells of one grid (the emerging-hot-spot map uses it too).
    init(grid: GridSystem, cells: [GridCellID], areas: [NamedArea]) {
        self.grid = grid
        switch grid {
        case .geohash(let p): (lonUnit, latUnit) = (GeohashCell.lonSpan(p), GeohashCell.latSpan(p))
        case .h3(let r):
            let unit = H3.averageEdgeLength(resolution: r) / 4 / (Haversine.earthRadius * Haversine.radiansPerDegree)
            (lonUnit, latUnit) = (unit, unit)
        }
        var extent = LatticeExtent()
        for cell in cells { extent.add(Self.latticeBox(of: cell, grid: grid, lonUnit: lonUnit, latUnit: latUnit)) }
        // Areas widen the map so their outlines are never cut off.
        for box in areas.map(\.bounds) where box.minLat <= box.maxLat {
            extent.add(
                LatticeExtent(
                    minCol: Int64(((box.minLon + 180) / lonUnit).rounded(.down)),
                    maxCol: Int64(((box.maxLon + 180) / lonUnit).rounded(.down)),
                    minRow: Int64(((box.minLat + 90) / latUnit).rounded(.down)),
                    maxRow: Int64(((box.maxLat + 90) / latUnit).rounded(.down))))
        }
        // A margin of 2% (at least one unit) keeps edge cells off the frame.
        let pad = max(1, max(extent.maxCol - extent.minCol, extent.maxRow - extent.minRow) / 50)
        x0 = extent.minCol - pad
        yTop = extent.maxRow + 1 + pad
        cols = extent.maxCol + 1 + pad - x0
        rows = yTop - (extent.minRow - pad)
        let topLat = -90 + Double(yTop) * latUnit
        midLat = max(-89, min(89, topLat - Double(rows) * latUnit / 2))
        // Ground size in "latitude degrees": a longitude degree is cos(latitude) as long.
        let worldW = Double(cols) * lonUnit * cos(midLat * Haversine.radiansPerDegree)
        let worldH = Double(rows) * latUnit
        let scale = min(HeatmapFrame.maxW / worldW, HeatmapFrame.maxH / worldH)
        mapW = max(120, worldW * scale)
        mapH = max(40, worldH * scale)
    }

    /// The lattice units a cell covers: column `minCol` to `maxCol + 1`, row `minRow` to `maxRow + 1`.
    private static func latticeBox(of cell: GridCellID, grid: GridSystem, lonUnit: Double, latUnit: Double)
        -> LatticeExtent
    {
        switch grid {
        case .geohash(let p):
            let g = GeohashCell(prefix: cell.raw, precision: p)
            let col = Int64(g.lonIndex), row = Int64(g.latIndex)
            return LatticeExtent(minCol: col, maxCol: col, minRow: row, maxRow: row)
        case .h3:
            var box = LatticeExtent()
            for v in unwrappedBoundary(of: cell, grid: grid) {
                let x = ((v.lon + 180) / lonUnit).rounded(), y = ((v.lat + 90) / latUnit).rounded()
                box.add(LatticeExtent(minCol: Int64(x), maxCol: Int64(x) - 1, minRow: Int64(y), maxRow: Int64(y) - 1))
            }
            return box
        }
    }

    /// An H3 cell's ring with its longitudes taken within 180° of its centre's, so that a cell
    /// across the antimeridian is drawn whole just past ±180° rather than across the world.
    private static func unwrappedBoundary(of cell: GridCellID, grid: GridSystem) -> [(lat: Double, lon: Double)] {
        let centreLon = grid.centre(of: cell).lon
        return grid.boundary(of: cell).map { v in
            var lon = v.lon
            if lon - centreLon > 180 { lon -= 360 } else if lon - centreLon < -180 { lon += 360 }
            return (v.lat, lon)
        }
    }

    /// A cell's outline as SVG path data in lattice units: `M x y h1 v1 h-1 z` for a geohash
    /// cell, the rounded ring for an H3 cell.
    func cellPath(_ cell: GridCellID) -> String {
        switch grid {
        case .geohash(let p):
            let g = GeohashCell(prefix: cell.raw, precision: p)
            return "M\(Int64(g.lonIndex) - x0) \(yTop - 1 - Int64(g.latIndex))h1v1h-1z"
        case .h3:
            var d = "", last: (x: Int64, y: Int64)?
            for v in Self.unwrappedBoundary(of: cell, grid: grid) {
                let x = Int64(((v.lon + 180) / lonUnit).rounded()) - x0
                let y = yTop - Int64(((v.lat + 90) / latUnit).rounded())
                if let last { d += " \(x - last.x) \(y - last.y)" } else { d += "M\(x) \(y)l" }
                last = (x, y)
            }
            return d + "z"
        }
    }

    /// A cell with its tooltip: a unit `<rect>` for a geohash cell, its ring's `<path>` for an H3
    /// cell (the heatmap and the hot-spot map draw their detailed cells with it).
    func cellElement(_ cell: GridCellID, title: String) -> String {
        switch grid {
        case .geohash(let p):
            let g = GeohashCell(prefix: cell.raw, precision: p)
            let x = Int64(g.lonIndex) - x0, y = yTop - 1 - Int64(g.latIndex)
            return "<rect x=\"\(x)\" y=\"\(y)\" width=\"1\" height=\"1\"><title>\(title)</title></rect>\n"
        case .h3:
            return "<path d=\"\(cellPath(cell))\"><title>\(title)</title></path>\n"
        }
    }

    var unitW: Double { mapW / Double(cols) }
    var unitH: Double { mapH / Double(rows) }

    /// Figure x of a longitude.
    func px(_ lon: Double) -> Double { mapX + ((lon + 180) / lonUnit - Double(x0)) * unitW }
    /// Figure y of a latitude (north up).
    func py(_ lat: Double) -> Double { mapY + (Double(yTop) - (lat + 90) / latUnit) * unitH }

    /// Ground metres per figure unit along the middle latitude.
    var metresPerUnit: Double {
        latUnit * Haversine.earthRadius * Haversine.radiansPerDegree / unitH
    }

    /// Opens the map's inner SVG (lattice units) on the empty-map background; the cells follow.
    var mapOpening: String {
        "<svg x=\"\(HTMLHeatmap.f(mapX))\" y=\"\(HTMLHeatmap.f(mapY))\" width=\"\(HTMLHeatmap.f(mapW))\" height=\"\(HTMLHeatmap.f(mapH))\" "
            + "viewBox=\"0 0 \(cols) \(rows)\" preserveAspectRatio=\"none\" shape-rendering=\"crispEdges\">\n"
            + "<rect x=\"0\" y=\"0\" width=\"\(cols)\" height=\"\(rows)\" fill=\"\(HTMLStyle.emptyMap)\" />\n"
    }

    /// Closes the inner SVG and draws the map's border.
    var mapClosing: String {
        "</svg>\n<rect x=\"\(HTMLHeatmap.f(mapX))\" y=\"\(HTMLHeatmap.f(mapY))\" width=\"\(HTMLHeatmap.f(mapW))\" "
            + "height=\"\(HTMLHeatmap.f(mapH))\" fill=\"none\" stroke=\"#9aa5b1\" stroke-width=\"1\" />\n"
    }

    /// How the map's titles name a cell: `geohash-7`, `H3 resolution 9`.
    var cellNoun: String {
        switch grid {
        case .geohash(let p): "geohash-\(p)"
        case .h3(let r): "H3 resolution \(r)"
        }
    }
}

/// Lattice columns and rows a set of cells covers (inclusive; empty when min > max).
struct LatticeExtent {
    var minCol = Int64.max, maxCol = Int64.min, minRow = Int64.max, maxRow = Int64.min

    mutating func add(_ other: LatticeExtent) {
        minCol = min(minCol, other.minCol)
        maxCol = max(maxCol, other.maxCol)
        minRow = min(minRow, other.minRow)
        maxRow = max(maxRow, other.maxRow)
    }
}
