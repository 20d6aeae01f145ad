import AreaWatchCore
import AreaWatchQuery
import Glibc

/// The summary block and the inputs table: what was counted, how, and from what.
enum HTMLSummary {
    static func section(_ c: ReportContent) -> String {
        "<section id=\"summary\">\n<h2>Summary</h2>\n" + cards(c) + facts(c) + "</section>\n"
    }

    /// The headline figures an analyst reads first.
    static func cards(_ c: ReportContent) -> String {
        let t = c.totals
        let yoy = YearOverYear(current: t.current, previous: t.previous)
        let classes = c.grid.classCounts
        func card(_ key: String, _ value: String, _ detail: String, _ cls: String = "") -> String {
            "<div class=\"card\(cls.isEmpty ? "" : " " + cls)\"><div class=\"k\">\(key)</div>"
                + "<div class=\"v\">\(value)</div><div class=\"d\">\(detail)</div></div>\n"
        }
        let d = c.disclosure
        var out = "<div class=\"cards\">\n"
        out += card(
            "Current year", HTMLText.count(t.current, d),
            d.showsComparison(current: t.current, previous: t.previous)
                ? "\(HTMLText.signed(yoy.delta)) (\(HTMLText.percent(yoy.pct))) vs previous" : "change withheld")
        out += card("Previous year", HTMLText.count(t.previous, d), "the year before")
        out += card("Grid cells", HTMLText.grouped(c.grid.cells.count), "reported at precision \(c.grid.precision)")
        for cls in SafetyClass.allCases.reversed() {
            let n = classes[cls] ?? 0
            out += card("\(cls.rawValue) cells", HTMLText.grouped(n), HTMLText.escape(cls.label), cls.rawValue)
        }
        return out + "</div>\n"
    }

    /// Everything needed to reproduce or question the numbers, as a definition list.
    static func facts(_ c: ReportContent) -> String {
        let p = c.parameters
        let w = p.windows
        let t = c.totals
        var rows: [(String, String)] = [
            ("As of", UTCTime.iso8601(p.asOf)),
            ("Current window", "(\(UTCTime.iso8601(w.currentStart)), \(UTCTime.iso8601(w.asOf))]"),
            ("Previous window", "(\(UTCTime.iso8601(w.previousStart)), \(UTCTime.iso8601(w.currentStart))]"),
            ("Radius", NumberFormat.compact(p.radius) + " m (haversine, R = 6,371,008.8 m)"),
            ("Grid precision", "geohash \(c.grid.precision)" + cellSize(c.grid)),
            ("Thresholds", thresholds(p.thresholds)),
            ("Filters", filters(p)),
            ("Disclosure", disclosure(c.disclosure)),
            ("Source", source(c)),
            ("Inputs", inputs(c.inputs)),
            ("Rejects by reason", rejects(c.rejectsByReason)),
            ("Excluded (after as-of)", HTMLText.count(t.excludedFuture, c.disclosure)),
            (
                "Incidents",
                "\(HTMLText.count(t.current + t.previous + t.older, c.disclosure)) up to the as-of: "
                    + "current \(HTMLText.count(t.current, c.disclosure)), previous \(HTMLText.count(t.previous, c.disclosure)), "
                    + "older \(HTMLText.count(t.older, c.disclosure))"
            )
        ]
        let classes = c.grid.classCounts
        let classText = SafetyClass.allCases.map { "\($0.rawValue) \(HTMLText.grouped(classes[$0] ?? 0))" }.joined(
            separator: ", ")
        rows.append(("Grid cells", "\(HTMLText.grouped(c.grid.cells.count)): \(classText)"))
        // The sums check that the cells hold every windowed incident; withheld cells break that
        // (and the difference would bound what was withheld), so they are shown for exact reports only.
        guard !c.disclosure.isActive else {
            return "<dl class=\"facts\">\n" + rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>\n" }.joined() + "</dl>\n"
        }
        let nCurrent = c.grid.cells.reduce(0) { $0 + $1.nCurrent }
        let nPrevious = c.grid.cells.reduce(0) { $0 + $1.nPrevious }
        rows.append(
            (
                "Σ n_current / Σ n_previous",
                "\(HTMLText.grouped(nCurrent)) / \(HTMLText.grouped(nPrevious)) (incidents inside the cells)"
            ))
        return "<dl class=\"facts\">\n" + rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>\n" }.joined() + "</dl>\n"
    }

    /// A cell's size in metres at the middle latitude of the grid, where analysts read it.
    static func cellSize(_ grid: GridResult) -> String {
        guard let first = grid.cells.first, let last = grid.cells.last else { return "" }
        let midLat = (first.cell.centre.lat + last.cell.centre.lat) / 2
        let metresPerDegree = Haversine.earthRadius * Haversine.radiansPerDegree
        let w = GeohashCell.lonSpan(grid.precision) * metresPerDegree * cos(midLat * Haversine.radiansPerDegree)
        let h = GeohashCell.latSpan(grid.precision) * metresPerDegree
        return " (cells ≈ \(HTMLText.metres(w)) × \(HTMLText.metres(h)) here)"
    }

    static func thresholds(_ t: Thresholds) -> String {
        let a = NumberFormat.compact(t.medium), b = NumberFormat.compact(t.dangerous)
        return "safe: r_current &lt; \(a) · medium: \(a) ≤ r_current &lt; \(b) · dangerous: r_current ≥ \(b)"
    }

    static func filters(_ p: QueryParameters) -> String {
        let categories =
            p.categories.isEmpty
            ? "all categories"
            : "categories " + p.categories.sorted().map { "“" + HTMLText.escape($0) + "”" }.joined(separator: ", ")
        let handled = p.handled.map { "handled = \($0)" } ?? "handled: any"
        return categories + "; " + handled
    }

    static func disclosure(_ d: Disclosure) -> String {
        d.minCellCount <= 1
            ? "exact counts"
            : "counts below \(d.minCellCount) (zero included) are shown as &lt;\(d.minCellCount), with every figure derived from them; "
                + "cells, values and years with nothing to show are left out"
    }

    static func source(_ c: ReportContent) -> String {
        HTMLText.escape(c.sourceKind) + (c.sourcePath.map { " <code>" + HTMLText.escape($0) + "</code>" } ?? "")
    }

    static func inputs(_ inputs: [InputSummary]) -> String {
        func sum(_ f: (InputSummary) -> Int) -> String { HTMLText.grouped(inputs.reduce(0) { $0 + f($1) }) }
        return "\(inputs.count) file\(inputs.count == 1 ? "" : "s"): \(sum(\.records)) records, "
            + "\(sum(\.accepted)) accepted, \(sum(\.rejected)) rejected"
    }

    static func rejects(_ byReason: [(String, Int)]) -> String {
        let nonzero = byReason.filter { $0.1 > 0 }
        guard !nonzero.isEmpty else { return "none" }
        return nonzero.map { "\($0.0) \(HTMLText.grouped($0.1))" }.joined(separator: " · ")
    }

    /// One row per input file, in ingest order, with a total row.
    static func inputsSection(_ inputs: [InputSummary]) -> String {
        let columns = [
            HTMLTable.Column("path"), HTMLTable.Column("format"), HTMLTable.Column("records", numeric: true),
            HTMLTable.Column("accepted", numeric: true), HTMLTable.Column("inserted", numeric: true),
            HTMLTable.Column("updated", numeric: true), HTMLTable.Column("duplicates", numeric: true),
            HTMLTable.Column("rejected", numeric: true)
        ]
        let rows = inputs.map { i in
            [
                "<td class=\"path mono\">\(HTMLText.escape(i.path))</td>",
                "<td>\(HTMLText.escape(i.format))\(i.skipped ? " <span class=\"none\">(skipped: already ingested)</span>" : "")</td>"
            ]
                + [i.records, i.accepted, i.inserted, i.updated, i.duplicates, i.rejected].map(HTMLTable.number)
        }
        func total(_ f: (InputSummary) -> Int) -> String { HTMLTable.number(inputs.reduce(0) { $0 + f($1) }) }
        let footer =
            inputs.count > 1
            ? ["<td>total</td><td></td>"] + [
                total(\.records), total(\.accepted), total(\.inserted), total(\.updated),
                total(\.duplicates), total(\.rejected)
            ]
            : nil
        var out = "<section id=\"inputs\">\n<h2>Inputs</h2>\n"
        out +=
            inputs.isEmpty
            ? "<p class=\"none\">No input files listed.</p>\n"
            : HTMLTable.render(columns, rows: rows, footer: footer)
        return out + "</section>\n"
    }
}
