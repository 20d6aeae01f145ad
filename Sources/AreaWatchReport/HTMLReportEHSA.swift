import AreaWatchCore
import AreaWatchQuery
import Foundation

/// The report's emerging-hot-spot section (SPEC §13): a map of the labels and a table per label.
/// Drawn from the public analysis (locations below `--min-cell-count` are not on the page).
enum HTMLEHSA {
    /// Rows per label table; the rest are in ehsa.csv.
    static let maxRows = 50
    /// Above this many locations the map has no tooltips (page size), as the heatmap.
    static let maxDetailedLocations = HTMLHeatmap.maxDetailedCells

    /// Hot labels in reds, cold in blues (darkest for the most pressing), no pattern grey.
    static func colour(_ label: HotSpotLabel) -> String {
        switch label {
        case .newHot: return "#ef3b2c"
        case .consecutiveHot: return "#cb181d"
        case .intensifyingHot: return "#67000d"
        case .persistentHot: return "#a50f15"
        case .diminishingHot: return "#fb6a4a"
        case .sporadicHot: return "#fc9272"
        case .oscillatingHot: return "#f768a1"
        case .historicalHot: return "#fcbba1"
        case .newCold: return "#4292c6"
        case .consecutiveCold: return "#2171b5"
        case .intensifyingCold: return "#08306b"
        case .persistentCold: return "#08519c"
        case .diminishingCold: return "#6baed6"
        case .sporadicCold: return "#9ecae1"
        case .oscillatingCold: return "#807dba"
        case .historicalCold: return "#c6dbef"
        case .noPattern: return "#c8ccd0"
        }
    }

    /// CSS-class-safe name of a label (`new-hot-spot`).
    static func slug(_ label: HotSpotLabel) -> String { label.rawValue.replacingOccurrences(of: " ", with: "-") }

    static func section(_ report: EHSAReport, asOf: Int64) -> String {
        let p = report.parameters
        var out = "<section id=\"ehsa\">\n<h2>Emerging hot spots</h2>\n"
        out += "<p class=\"lede\">Where incidents are clustering more over time: \(p.cellsName) cells × "
        out += "\(p.steps) monthly steps ending at the as-of instant, Getis-Ord Gi* per cell and month "
        out += "(significant when the Benjamini–Hochberg q ≤ \(NumberFormat.shortest(p.alpha))), "
        out += "the Mann-Kendall trend of each cell's z scores, and the labels of SPEC §13.</p>\n"
        guard !report.locations.isEmpty else {
            return out + "<p class=\"none\">No cell had an incident in the \(p.steps) months.</p>\n</section>\n"
        }
        let counts = report.labelCounts.filter { $0.1 > 0 }
        out += "<figure>\n" + svg(report, counts: counts, asOf: asOf)
        out += "<figcaption>Every cell with an incident in the \(p.steps) months, coloured by its label. "
        out += "North is up; east–west is scaled by cos(latitude). "
        out += report.locations.count <= maxDetailedLocations ? "Hover a cell for its figures." : ""
        out += "</figcaption>\n</figure>\n"
        for (label, count) in counts {
            out += table(label, count: count, report.locations.filter { $0.label == label }, grid: p.grid)
        }
        return out + "</section>\n"
    }

    static func svg(_ report: EHSAReport, counts: [(HotSpotLabel, Int)], asOf: Int64) -> String {
        let locations = report.locations
        let grid = report.parameters.grid
        let frame = HeatmapFrame(grid: grid, cells: locations.map(\.id), areas: [])
        let legendX = frame.mapX + frame.mapW + 24
        let legendBottom = frame.mapY + 20 + Double(counts.count) * 20
        let width = legendX + 230
        let height = max(frame.mapY + frame.mapH + 44, legendBottom + 12)
        let detailed = locations.count <= maxDetailedLocations
        var out = "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" style=\"max-width: \(f(width))px\" role=\"img\" "
        out +=
            "aria-label=\"Emerging hot spots as of \(UTCTime.iso8601(asOf))\" class=\"ehsa-map\" data-cells=\"\(locations.count)\">\n"
        out += "<text x=\"\(f(frame.mapX))\" y=\"24\" font-size=\"15\" font-weight=\"600\">"
        out +=
            "Emerging hot spots by \(frame.cellNoun) cell · \(report.parameters.steps) months to "
        out += "\(UTCTime.iso8601(asOf))</text>\n"
        out += frame.mapOpening
        for (label, count) in counts {
            out += "<g class=\"cells \(slug(label))\" fill=\"\(colour(label))\" data-cells=\"\(count)\">\n"
            if detailed {
                for l in locations where l.label == label {
                    let figures =
                        "\(HTMLText.grouped(l.incidents)) incidents · trend Z \(NumberFormat.fixed(l.trend.z, decimals: 2))"
                    out += frame.cellElement(l.id, title: "\(grid.text(of: l.id)) · \(label.rawValue) · \(figures)")
                }
            } else {
                var d = ""
                for l in locations where l.label == label { d += frame.cellPath(l.id) }
                out += "<path d=\"\(d)\" />\n"
            }
            out += "</g>\n"
        }
        out += frame.mapClosing
        out += HeatmapOverlay.scaleBar(frame: frame)
        out +=
            "<g class=\"legend\" font-size=\"12\">\n<text x=\"\(f(legendX))\" y=\"\(f(frame.mapY + 8))\" font-weight=\"600\">Label (cells)</text>\n"
        for (k, (label, count)) in counts.enumerated() {
            let y = frame.mapY + 20 + Double(k) * 20
            out += "<rect x=\"\(f(legendX))\" y=\"\(f(y))\" width=\"14\" height=\"14\" fill=\"\(colour(label))\" />"
            out +=
                "<text x=\"\(f(legendX + 20))\" y=\"\(f(y + 11))\">\(label.rawValue) (\(HTMLText.grouped(count)))</text>\n"
        }
        return out + "</g>\n</svg>\n"
    }

    /// The label's locations with the most incidents first (the cell order breaks ties), at most `maxRows`.
    static func table(_ label: HotSpotLabel, count: Int, _ locations: [HotSpotLocation], grid: GridSystem) -> String {
        let rows = locations.sorted {
            $0.incidents != $1.incidents ? $0.incidents > $1.incidents : $0.id < $1.id
        }
        .prefix(maxRows)
        var out =
            "<h3 id=\"ehsa-\(slug(label))\"><span class=\"swatch\" style=\"display: inline-block; width: 12px; height: 12px; margin-right: 6px; background: \(colour(label))\"></span>"
        out += "\(label.rawValue) <span class=\"note\">(\(HTMLText.grouped(count)) cells)</span></h3>\n"
        out +=
            "<div class=\"scroll\"><table class=\"ehsa\">\n<thead><tr><th>\(grid.cellColumn)</th>"
        out += "<th class=\"num\">lat</th>"
        out += "<th class=\"num\">lon</th>"
        out += "<th class=\"num\">incidents</th><th class=\"num\">hot steps</th><th class=\"num\">cold steps</th>"
        out +=
            "<th class=\"num\">trend Z</th><th class=\"num\">trend p</th><th class=\"num\">z last</th></tr></thead>\n<tbody>\n"
        for l in rows {
            let centre = l.centre
            out +=
                "<tr><td class=\"mono\">\(l.text)</td>"
            out += "<td class=\"num\">\(NumberFormat.fixed(centre.lat, decimals: 5))</td>"
            out +=
                "<td class=\"num\">\(NumberFormat.fixed(centre.lon, decimals: 5))</td><td class=\"num\">\(HTMLText.grouped(l.incidents))</td>"
            out += "<td class=\"num\">\(l.hotSteps)</td><td class=\"num\">\(l.coldSteps)</td>"
            out +=
                "<td class=\"num\">\(NumberFormat.fixed(l.trend.z, decimals: 3))</td><td class=\"num\">\(pValue(l.trend.p))</td>"
            out += "<td class=\"num\">\(NumberFormat.fixed(l.zLast, decimals: 3))</td></tr>\n"
        }
        out += "</tbody></table></div>\n"
        if count > rows.count {
            out +=
                "<p class=\"note\">The \(rows.count) cells of \(HTMLText.grouped(count)) with the most incidents; every cell is in ehsa.csv.</p>\n"
        }
        return out
    }

    /// p with 3 decimals; below 0.001 as `<0.001`.
    static func pValue(_ p: Double) -> String {
        p >= 0.001 ? NumberFormat.fixed(p, decimals: 3) : (p == 0 ? "0" : "&lt;0.001")
    }

    static func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}
