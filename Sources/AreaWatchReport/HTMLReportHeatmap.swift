import AreaWatchCore
import AreaWatchQuery
import Glibc

/// The grid heatmap: every reported cell at its bounds (a geohash cell's box, an H3 cell's
/// hexagon), coloured by class.
enum HTMLHeatmap {
    /// Above this many cells, cells become merged row runs without tooltips (page size).
    static let maxDetailedCells = 60_000

    static func section(_ c: ReportContent) -> String {
        var out = "<section id=\"heatmap\">\n<h2>Grid heatmap</h2>\n"
        guard !c.grid.cells.isEmpty else { return out + "<p class=\"none\">No cells reported.</p>\n</section>\n" }
        let detailed = c.grid.cells.count <= maxDetailedCells
        out += "<figure>\n" + svg(c, detailed: detailed)
        let noun = c.grid.geohashPrecision.map { "geohash-\($0)" } ?? c.grid.system.label
        out += "<figcaption>Every reported \(noun) cell, coloured by the class of r_current "
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
            "Area danger by \(frame.cellNoun) cell · radius \(NumberFormat.compact(c.parameters.radius)) m · as of \(asOf)</text>\n"
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
                let current = HTMLText.count(cell.rCurrent, disclosure)
                let figures = "r_current \(current) · r_previous \(HTMLText.count(cell.rPrevious, disclosure))"
                let id = grid.system.text(of: cell.id)
                out += frame.cellElement(cell.id, title: "\(id) · \(figures) · \(cls.rawValue)")
            }
            out += "</g>\n"
        }
        return out
    }

    /// One path per class made of row runs: `M x y h w v 1 h -w z` for each run of adjacent
    /// same-class cells in a row (about 20 bytes a run instead of ~100 a cell).
    static func cellRuns(_ grid: GridResult, frame: HeatmapFrame) -> String {
        guard grid.geohashPrecision != nil else { return cellOutlines(grid, frame: frame) }
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

    /// One path per class of every cell's outline, for grids that do not form rows (H3).
    static func cellOutlines(_ grid: GridResult, frame: HeatmapFrame) -> String {
        var out = ""
        for cls in SafetyClass.allCases {
            let cells = grid.cells.filter { $0.safetyClass == cls }
            guard !cells.isEmpty else { continue }
            out +=
                "<path class=\"cells \(cls.rawValue)\" fill=\"\(HTMLStyle.colour(cls))\" data-cells=\"\(cells.count)\" "
            out += "d=\"" + cells.map { frame.cellPath($0.id) }.joined() + "\" />\n"
        }
        return out
    }

    static func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}
