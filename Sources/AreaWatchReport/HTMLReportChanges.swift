import Algorithms
import AreaWatchCore
import AreaWatchQuery
import Glibc

/// "What changed" (SPEC §12), the report's first section: which year-over-year changes are
/// significant after Benjamini–Hochberg at `--fdr`, for cells, areas, points of interest and
/// breakdown values. The classes saturate on city data; this says where the change is real.
enum HTMLChanges {
    static let topCount = 20

    static func section(_ c: ReportContent) -> String {
        let changes = c.changes ?? ReportChanges(c)
        let cells = c.grid.cells
        let tested = changes.grid.compactMap { $0 }.count
        let rises = cells.indices.filter { changes.grid[$0]?.change == .rise }
        let falls = cells.indices.filter { changes.grid[$0]?.change == .fall }
        let dangerous = cells.filter { $0.safetyClass == .dangerous }.count
        var out = "<section id=\"changes\">\n<h2>What changed</h2>\n"
        out +=
            "<p class=\"lede\">Of \(HTMLText.grouped(tested)) cells, <strong>\(HTMLText.grouped(rises.count)) rose</strong> and "
        out += "<strong>\(HTMLText.grouped(falls.count)) fell</strong> significantly "
        out += "(E-test of r_current against r_previous, Benjamini–Hochberg false discovery rate "
        out += "\(NumberFormat.compact(c.fdr))); every other change is within what chance gives. "
        if !cells.isEmpty {
            out += "\(HTMLText.share(Double(dangerous) / Double(cells.count))) of the cells are classed dangerous, "
            out += "so the class alone says little about where things are getting worse.</p>\n"
        } else {
            out += "</p>\n"
        }
        out += "<p class=\"note\">docs/STATISTICS.md states what the test assumes: Poisson counts; overlapping "
        out += "discs make neighbouring cells dependent (BH holds under positive dependence).</p>\n"
        out +=
            "<h3>Largest significant rises</h3>\n"
            + cellTable(ranked(rises, cells, changes), cells, changes, c.disclosure)
        out +=
            "<h3>Largest significant falls</h3>\n"
            + cellTable(ranked(falls, cells, changes), cells, changes, c.disclosure)
        if let areas = c.areas { out += rowList("Areas", areas.result.areas.map(\.id), changes.areas) }
        if let poi = c.pointsOfInterest {
            out += rowList("Points of interest", poi.map(\.poi.name), changes.pointsOfInterest)
        }
        if let breakdown = c.breakdown {
            out += rowList("By \(breakdown.field)", breakdown.rows.map(\.value), changes.breakdown)
        }
        return out + "</section>\n"
    }

    /// Smallest q first, then the larger absolute change, then geohash order (deterministic).
    static func ranked(_ rows: [Int], _ cells: [GridCell], _ changes: ReportChanges) -> [Int] {
        rows.min(count: topCount) { a, b in
            let qa = changes.grid[a]!.q, qb = changes.grid[b]!.q
            if qa != qb { return qa < qb }
            let da = abs(cells[a].yearOverYear.delta), db = abs(cells[b].yearOverYear.delta)
            return da != db ? da > db : a < b
        }
    }

    static func cellTable(_ rows: [Int], _ cells: [GridCell], _ changes: ReportChanges, _ disclosure: Disclosure)
        -> String
    {
        guard !rows.isEmpty else { return "<p class=\"none\">None.</p>\n" }
        let columns = [
            HTMLTable.Column("geohash"), HTMLTable.Column("r_current", numeric: true),
            HTMLTable.Column("r_previous", numeric: true), HTMLTable.Column("delta", numeric: true),
            HTMLTable.Column("pct", numeric: true), HTMLTable.Column("p_change", numeric: true),
            HTMLTable.Column("q_change", numeric: true), HTMLTable.Column("class")
        ]
        return HTMLTable.render(
            columns,
            rows: rows.map { k in
                let cell = cells[k], s = changes.grid[k]!
                return ["<td class=\"mono\">\(cell.cell.string)</td>"]
                    + HTMLTable.comparison(current: cell.rCurrent, previous: cell.rPrevious, disclosure: disclosure)
                    + [
                        HTMLTable.numeric(significant(s.p)), HTMLTable.numeric(significant(s.q)),
                        HTMLTable.badge(cell.safetyClass)
                    ]
            })
    }

    /// The names whose change is significant, rises then falls.
    static func rowList(_ title: String, _ names: [String], _ changes: [ChangeSignificance?]) -> String {
        func list(_ direction: ChangeDirection) -> String {
            let picked = names.indices.filter { changes[$0]?.change == direction }.map {
                HTMLText.escape(names[$0].isEmpty ? "(none)" : names[$0])
            }
            return picked.isEmpty ? "none" : picked.joined(separator: ", ")
        }
        return "<p><strong>\(HTMLText.escape(title))</strong>: rose — \(list(.rise)); fell — \(list(.fall)).</p>\n"
    }

    /// Four significant digits for reading (the CSV files carry the full values).
    static func significant(_ v: Double) -> String {
        if v == 0 { return "0" }
        if v >= 0.001 { return NumberFormat.fixed(v, decimals: 4) }
        let exponent = Int((log10(v)).rounded(.down))
        let mantissa = v / pow(10, Double(exponent))
        return NumberFormat.fixed(mantissa, decimals: 2) + "e" + String(exponent)
    }
}
