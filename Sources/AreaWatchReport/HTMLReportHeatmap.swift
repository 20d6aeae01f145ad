import AreaWatchCore
import AreaWatchQuery
import Glibc

/// Where the heatmap's cell lattice sits in the figure.
///
/// Cells are drawn in lattice units (one cell = 1 × 1, integer coordinates) inside a nested SVG
/// whose viewBox is stretched to the map box: integers keep 130,000 cells compact, and the
/// stretch applies the cos(latitude) aspect without touching any cell coordinate.
struct HeatmapFrame {
    let precision: Int
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
        self.init(precision: grid.precision, cells: grid.cells.map(\.cell), areas: areas)
    }

    /// The frame around cells of one precision (the emerging-hot-spot map uses it too).
    init(precision: Int, cells: [GeohashCell], areas: [NamedArea]) {
        self.precision = precision
        let lonSpan = GeohashCell.lonSpan(precision), latSpan = GeohashCell.latSpan(precision)
        var minCol = Int64.max, maxCol = Int64.min, minRow = Int64.max, maxRow = Int64.min
        for cell in cells {
            let col = Int64(cell.lonIndex), row = Int64(cell.latIndex)
            minCol = min(minCol, col)
            maxCol = max(maxCol, col)
            minRow = min(minRow, row)
            maxRow = max(maxRow, row)
        }
        // Areas widen the map so their outlines are never cut off.
        for box in areas.map(\.bounds) where box.minLat <= box.maxLat {
            minCol = min(minCol, Int64(((box.minLon + 180) / lonSpan).rounded(.down)))
            maxCol = max(maxCol, Int64(((box.maxLon + 180) / lonSpan).rounded(.down)))
            minRow = min(minRow, Int64(((box.minLat + 90) / latSpan).rounded(.down)))
            maxRow = max(maxRow, Int64(((box.maxLat + 90) / latSpan).rounded(.down)))
        }
        // A margin of 2% (at least one cell) keeps edge cells off the frame.
        let pad = max(1, max(maxCol - minCol, maxRow - minRow) / 50)
        x0 = minCol - pad
        yTop = maxRow + 1 + pad
        cols = maxCol + 1 + pad - x0
        rows = yTop - (minRow - pad)
        let topLat = -90 + Double(yTop) * latSpan
        midLat = max(-89, min(89, topLat - Double(rows) * latSpan / 2))
        // Ground size in "latitude degrees": a longitude degree is cos(latitude) as long.
        let worldW = Double(cols) * lonSpan * cos(midLat * Haversine.radiansPerDegree)
        let worldH = Double(rows) * latSpan
        let scale = min(HeatmapFrame.maxW / worldW, HeatmapFrame.maxH / worldH)
        mapW = max(120, worldW * scale)
        mapH = max(40, worldH * scale)
    }

    var unitW: Double { mapW / Double(cols) }
    var unitH: Double { mapH / Double(rows) }

    /// Figure x of a longitude.
    func px(_ lon: Double) -> Double { mapX + ((lon + 180) / GeohashCell.lonSpan(precision) - Double(x0)) * unitW }
    /// Figure y of a latitude (north up).
    func py(_ lat: Double) -> Double { mapY + (Double(yTop) - (lat + 90) / GeohashCell.latSpan(precision)) * unitH }

    /// Ground metres per figure unit along the middle latitude.
    var metresPerUnit: Double {
        GeohashCell.latSpan(precision) * Haversine.earthRadius * Haversine.radiansPerDegree / unitH
    }

    /// Opens the map's inner SVG (one unit per cell) on the empty-map background; the cells follow.
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
}

/// The grid heatmap: every reported cell at its geohash bounds, coloured by class.
enum HTMLHeatmap {
    /// Above this many cells, cells become merged row runs without tooltips (page size).
    static let maxDetailedCells = 60_000

    static func section(_ c: ReportContent) -> String {
        var out = "<section id=\"heatmap\">\n<h2>Grid heatmap</h2>\n"
        guard !c.grid.cells.isEmpty else { return out + "<p class=\"none\">No cells reported.</p>\n</section>\n" }
        let detailed = c.grid.cells.count <= maxDetailedCells
        out += "<figure>\n" + svg(c, detailed: detailed)
        out += "<figcaption>Every reported geohash-\(c.grid.precision) cell, coloured by the class of r_current "
        out += "(incidents within \(NumberFormat.compact(c.parameters.radius)) m of its centre in the current year). "
        out += "North is up; east–west is scaled by cos(latitude) so distances read true. "
        out +=
            detailed ? "Hover a cell for its figures." : "Adjacent cells of one class are drawn merged along each row."
        out += "</figcaption>\n</figure>\n"
        return out + "</section>\n"
    }

    /// The whole figure; `detailed` draws one rect with a tooltip per cell.
    static func svg(_ c: ReportContent, detailed: Bool) -> String {
        let areas = c.areas?.areas ?? []
        let frame = HeatmapFrame(grid: c.grid, areas: areas)
        let legend = HeatmapLegend(frame: frame, content: c)
        let width = legend.x + HeatmapLegend.width
        let height = max(frame.mapY + frame.mapH + 44, legend.bottom + 12)
        let asOf = UTCTime.iso8601(c.parameters.asOf)
        var out = "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" style=\"max-width: \(f(width))px\" role=\"img\" "
        out += "aria-label=\"Grid heatmap as of \(asOf)\" class=\"heatmap\" data-cells=\"\(c.grid.cells.count)\">\n"
        out += "<text x=\"\(f(frame.mapX))\" y=\"24\" font-size=\"15\" font-weight=\"600\">"
        out +=
            "Area danger by geohash-\(c.grid.precision) cell · radius \(NumberFormat.compact(c.parameters.radius)) m · as of \(asOf)</text>\n"
        out += frame.mapOpening
        out += detailed ? cellRects(c.grid, frame: frame, disclosure: c.disclosure) : cellRuns(c.grid, frame: frame)
        out += frame.mapClosing
        out += HeatmapOverlay.areaOutlines(areas, frame: frame)
        out += HeatmapOverlay.scaleBar(frame: frame)
        out += legend.render()
        return out + "</svg>\n"
    }

    /// One `<rect>` per cell with a tooltip, grouped by class so the fill is stated once.
    static func cellRects(_ grid: GridResult, frame: HeatmapFrame, disclosure: Disclosure) -> String {
        var out = ""
        for cls in SafetyClass.allCases {
            let cells = grid.cells.filter { $0.safetyClass == cls }
            guard !cells.isEmpty else { continue }
            out +=
                "<g class=\"cells \(cls.rawValue)\" fill=\"\(HTMLStyle.colour(cls))\" data-cells=\"\(cells.count)\">\n"
            for cell in cells {
                let x = Int64(cell.cell.lonIndex) - frame.x0, y = frame.yTop - 1 - Int64(cell.cell.latIndex)
                out += "<rect x=\"\(x)\" y=\"\(y)\" width=\"1\" height=\"1\"><title>\(cell.cell.string) · r_current "
                out +=
                    "\(HTMLText.count(cell.rCurrent, disclosure)) · r_previous \(HTMLText.count(cell.rPrevious, disclosure)) · "
                out += "\(cls.rawValue)</title></rect>\n"
            }
            out += "</g>\n"
        }
        return out
    }

    /// One path per class made of row runs: `M x y h w v 1 h -w z` for each run of adjacent
    /// same-class cells in a row (about 20 bytes a run instead of ~100 a cell).
    static func cellRuns(_ grid: GridResult, frame: HeatmapFrame) -> String {
        // Row by row (north first), west to east; lattice indices decoded once, not per comparison.
        let rowOf = grid.cells.map { $0.cell.latIndex }, columnOf = grid.cells.map { $0.cell.lonIndex }
        let order = grid.cells.indices.sorted { a, b in
            rowOf[a] != rowOf[b] ? rowOf[a] > rowOf[b] : columnOf[a] < columnOf[b]
        }
        var paths = [String](repeating: "", count: SafetyClass.allCases.count)
        var counts = [Int](repeating: 0, count: SafetyClass.allCases.count)
        var k = 0
        while k < order.count {
            let first = order[k]
            var end = k + 1
            while end < order.count {
                let next = order[end]
                guard grid.cells[next].safetyClass == grid.cells[first].safetyClass, rowOf[next] == rowOf[first],
                    columnOf[next] == columnOf[first] + UInt64(end - k)
                else { break }
                end += 1
            }
            let slot = SafetyClass.allCases.firstIndex(of: grid.cells[first].safetyClass)!
            let x = Int64(columnOf[first]) - frame.x0, y = frame.yTop - 1 - Int64(rowOf[first])
            paths[slot] += "M\(x) \(y)h\(end - k)v1h-\(end - k)z"
            counts[slot] += end - k
            k = end
        }
        var out = ""
        for (slot, cls) in SafetyClass.allCases.enumerated() where counts[slot] > 0 {
            out +=
                "<path class=\"cells \(cls.rawValue)\" fill=\"\(HTMLStyle.colour(cls))\" data-cells=\"\(counts[slot])\" "
            out += "d=\"\(paths[slot])\" />\n"
        }
        return out
    }

    static func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}
