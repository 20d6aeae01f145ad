import Algorithms
import AreaWatchCore
import AreaWatchQuery

/// A plain HTML table; cells arrive as finished `<td>` markup so each section decides escaping
/// and disclosure in one place.
enum HTMLTable {
    struct Column {
        var title: String
        var numeric: Bool

        init(_ title: String, numeric: Bool = false) {
            self.title = title
            self.numeric = numeric
        }
    }

    /// Wide tables scroll inside their own box instead of widening the page.
    static func render(_ columns: [Column], rows: [[String]], footer: [String]? = nil) -> String {
        var out = "<div class=\"scroll\"><table>\n<thead><tr>"
        for c in columns { out += c.numeric ? "<th class=\"num\">\(c.title)</th>" : "<th>\(c.title)</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for row in rows { out += "<tr>" + row.joined() + "</tr>\n" }
        out += "</tbody>\n"
        if let footer { out += "<tfoot><tr>" + footer.joined() + "</tr></tfoot>\n" }
        return out + "</table></div>\n"
    }

    static func number(_ v: Int) -> String { "<td class=\"num\">\(HTMLText.grouped(v))</td>" }
    /// Already-formatted numeric text (signed, percent, withheld).
    static func numeric(_ html: String) -> String { "<td class=\"num\">\(html)</td>" }
    static func text(_ s: String) -> String { "<td>\(HTMLText.escape(s))</td>" }
    static func badge(_ c: SafetyClass) -> String { "<td>\(HTMLText.badge(c))</td>" }
    /// A data value that may be empty (incidents without one).
    static func value(_ s: String) -> String {
        s.isEmpty ? "<td class=\"none\">(none)</td>" : "<td>\(HTMLText.escape(s))</td>"
    }

    /// Count, previous, delta and pct with disclosure: delta and pct are withheld with either count.
    static func comparison(current: Int, previous: Int, disclosure: Disclosure) -> [String] {
        let yoy = YearOverYear(current: current, previous: previous)
        let complete = disclosure.showsComparison(current: current, previous: previous)
        return [
            numeric(HTMLText.count(current, disclosure)), numeric(HTMLText.count(previous, disclosure)),
            numeric(complete ? HTMLText.signed(yoy.delta) : "—"), numeric(complete ? HTMLText.percent(yoy.pct) : "—")
        ]
    }
}

/// The section tables: top cells, breakdown, named areas and points of interest.
enum HTMLTables {
    static let topCount = 20
    /// Rows a table of user-supplied places shows at most; the CSV files hold them all.
    static let tableRowLimit = 500

    static func topCellsSection(_ c: ReportContent) -> String {
        let cells = c.grid.cells
        // Ties broken by geohash (the cells' order) so the page is deterministic.
        // Ranks are figures too: only disclosed counts are ranked.
        // Only the first `topCount` of each order are needed (two full sorts of 127k cells were
        // the page's largest cost at 1M incidents); with the ties broken they are the same cells.
        let current = cells.map(\.rCurrent)
        let byCurrent = cells.indices.filter { c.disclosure.show(current[$0]) != nil }.min(count: topCount) {
            current[$0] != current[$1] ? current[$0] > current[$1] : $0 < $1
        }
        // Ranking only disclosed deltas keeps a withheld count from showing through its rank.
        let delta = cells.map(\.yearOverYear.delta)
        let byDelta = cells.indices.filter { CellFigures(cells[$0], disclosure: c.disclosure).delta != nil }.min(
            count: topCount
        ) {
            delta[$0] != delta[$1] ? delta[$0] > delta[$1] : $0 < $1
        }
        var out = "<section id=\"top-cells\">\n<h2>Top cells</h2>\n"
        out += "<p class=\"note\">Counts within \(NumberFormat.compact(c.parameters.radius)) m of the cell centre; "
        out += "the class follows r_current, as the app does.</p>\n"
        out +=
            "<h3>Top \(topCount) by r_current</h3>\n"
            + cellTable(byCurrent.prefix(topCount).map { cells[$0] }, c.disclosure)
        out +=
            "<h3>Top \(topCount) by delta (largest rise)</h3>\n"
            + cellTable(byDelta.prefix(topCount).map { cells[$0] }, c.disclosure)
        return out + "</section>\n"
    }

    static func cellTable(_ cells: [GridCell], _ disclosure: Disclosure) -> String {
        guard !cells.isEmpty else { return "<p class=\"none\">No cells.</p>\n" }
        let columns = [
            HTMLTable.Column("#", numeric: true), HTMLTable.Column("geohash"), HTMLTable.Column("lat", numeric: true),
            HTMLTable.Column("lon", numeric: true), HTMLTable.Column("r_current", numeric: true),
            HTMLTable.Column("r_previous", numeric: true), HTMLTable.Column("delta", numeric: true),
            HTMLTable.Column("pct", numeric: true), HTMLTable.Column("class")
        ]
        let rows = cells.enumerated().map { k, cell in
            let centre = cell.cell.centre
            return [
                HTMLTable.number(k + 1), "<td class=\"mono\">\(cell.cell.string)</td>",
                HTMLTable.numeric(NumberFormat.fixed(centre.lat, decimals: 6)),
                HTMLTable.numeric(NumberFormat.fixed(centre.lon, decimals: 6))
            ]
                + HTMLTable.comparison(current: cell.rCurrent, previous: cell.rPrevious, disclosure: disclosure)
                + [HTMLTable.badge(cell.safetyClass)]
        }
        return HTMLTable.render(columns, rows: rows)
    }

    /// Counts per value, like breakdown.csv. With disclosure control the total row is left out:
    /// a total minus the values shown would give away what was withheld.
    static func breakdownSection(_ b: BreakdownResult, disclosure: Disclosure = Disclosure()) -> String {
        let columns =
            [
                HTMLTable.Column(HTMLText.escape(b.field)), HTMLTable.Column("current", numeric: true),
                HTMLTable.Column("previous", numeric: true), HTMLTable.Column("delta", numeric: true),
                HTMLTable.Column("pct", numeric: true)
            ] + b.years.map { HTMLTable.Column(String($0), numeric: true) }
        let rows = b.rows.map { row in
            [HTMLTable.value(row.value)]
                + HTMLTable.comparison(current: row.current, previous: row.previous, disclosure: disclosure)
                + row.yearCounts.map { HTMLTable.numeric(HTMLText.count($0, disclosure)) }
        }
        let footer =
            disclosure.isActive
            ? nil
            : ["<td>total</td>"]
                + HTMLTable.comparison(
                    current: b.rows.reduce(0) { $0 + $1.current },
                    previous: b.rows.reduce(0) { $0 + $1.previous }, disclosure: disclosure)
                + b.years.indices.map { y in HTMLTable.number(b.rows.reduce(0) { $0 + $1.yearCounts[y] }) }
        var out = "<section id=\"breakdown\">\n<h2>Breakdown by \(HTMLText.escape(b.field))</h2>\n"
        out += "<p class=\"note\">All incidents up to the as-of; the year columns are calendar years (UTC).</p>\n"
        out +=
            b.rows.isEmpty
            ? "<p class=\"none\">No incidents.</p>\n" : HTMLTable.render(columns, rows: rows, footer: footer)
        return out + "</section>\n"
    }

    static func areasSection(_ report: AreaReport, disclosure: Disclosure) -> String {
        let result = report.result
        let rates = report.rates(disclosure)
        let columns =
            [
                HTMLTable.Column(HTMLText.escape(report.idProperty)), HTMLTable.Column("n_current", numeric: true),
                HTMLTable.Column("n_previous", numeric: true), HTMLTable.Column("delta", numeric: true),
                HTMLTable.Column("pct", numeric: true), HTMLTable.Column("handled", numeric: true),
                HTMLTable.Column("area_km2", numeric: true), HTMLTable.Column("density_equivalent", numeric: true),
                HTMLTable.Column("class")
            ] + (rates == nil ? [] : AreaRateColumns.columns)
        let rows = result.areas.enumerated().map { k, a in
            [HTMLTable.value(a.id)]
                + HTMLTable.comparison(current: a.nCurrent, previous: a.nPrevious, disclosure: disclosure)
                + [
                    HTMLTable.numeric(HTMLText.count(a.handled, disclosure)),
                    HTMLTable.numeric(NumberFormat.fixed(a.areaKm2, decimals: 3)),
                    HTMLTable.numeric(
                        disclosure.show(a.nCurrent) == nil ? "—" : NumberFormat.fixed(a.densityEquivalent, decimals: 2)),
                    HTMLTable.badge(a.safetyClass)
                ] + (rates.map { AreaRateColumns.cells($0[k]) } ?? [])
        }
        var out = "<section id=\"areas\">\n<h2>Named areas</h2>\n"
        out += "<p class=\"note\">Incidents inside each area; the class follows the density equivalent "
        out += "n_current × π·radius² / area, the count a radius circle would see at that density.</p>\n"
        if let rates, let population = report.population { out += AreaRateColumns.note(population, rates: rates) }
        let order = rates.map(AreaRateColumns.ranking) ?? Array(rows.indices)
        out +=
            result.areas.isEmpty
            ? "<p class=\"none\">No areas.</p>\n"
            : HTMLTable.render(columns, rows: order.map { rows[$0] })
        // Unassigned counts move with every incident outside the areas: exact reports only.
        if !disclosure.isActive {
            out += "<p>Inside no area (unassigned): current \(HTMLText.grouped(result.unassignedCurrent)), "
            out += "previous \(HTMLText.grouped(result.unassignedPrevious)), "
            out += "all years \(HTMLText.grouped(result.unassignedAll)).</p>\n"
        }
        return out + "</section>\n"
    }

    static func poiSection(_ answers: [(poi: PointOfInterest, answer: PointAnswer)], disclosure: Disclosure) -> String {
        let columns = [
            HTMLTable.Column("name"), HTMLTable.Column("current", numeric: true),
            HTMLTable.Column("previous", numeric: true), HTMLTable.Column("delta", numeric: true),
            HTMLTable.Column("pct", numeric: true), HTMLTable.Column("class"), HTMLTable.Column("text")
        ]
        // A POI file can hold a million points: the page lists the first `tableRowLimit` in input
        // order and points to poi.csv for the rest (a 226 MB report.html before).
        let rows = answers.prefix(tableRowLimit).map { poi, a in
            let complete = disclosure.showsComparison(current: a.current, previous: a.previous)
            // The app's sentence states the delta, so it is withheld with the counts.
            return [HTMLTable.value(poi.name)]
                + HTMLTable.comparison(current: a.current, previous: a.previous, disclosure: disclosure)
                + [
                    HTMLTable.badge(a.safetyClass),
                    complete ? HTMLTable.text(a.text) : "<td class=\"none\">withheld</td>"
                ]
        }
        var out = "<section id=\"poi\">\n<h2>Points of interest</h2>\n"
        out +=
            "<p class=\"note\">The widget answer at each place: incidents within the radius, current and previous year.</p>\n"
        out +=
            answers.isEmpty
            ? "<p class=\"none\">No points of interest.</p>\n" : HTMLTable.render(columns, rows: Array(rows))
        if answers.count > tableRowLimit {
            out +=
                "<p class=\"note\">The first \(tableRowLimit) of \(HTMLText.grouped(answers.count)) points of interest; "
            out += "every one is in poi.csv.</p>\n"
        }
        return out + "</section>\n"
    }
}
