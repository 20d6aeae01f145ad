import AreaWatchCore
import AreaWatchQuery

/// Disclosure control, `--min-cell-count K` (SPEC §10, docs/PRIVACY.md): the one place that
/// decides what a public output may show. Every writer of a public output (grid, tiles, areas,
/// POI, breakdown, HTML; vector tiles and significance columns too) asks it.
///
/// The rule, with K ≥ 2 (K = 1 shows everything exactly, as without the option):
/// - a count below K — zero included — is withheld (`null`, an empty CSV field, `<K`), so a
///   withheld value cannot be told from "nothing there";
/// - a figure derived from a withheld count (delta, pct, density, rank, p-value, q-value, the
///   app's sentence) is withheld with it;
/// - a grid cell, breakdown value or calendar year that would show no figure at all is not
///   written: it exists only because of withheld incidents. A cell whose class is above `safe`
///   stays (the class is always kept, so a widget never answers "safe" where the data say
///   otherwise).
///
/// Together these make an isolated incident (farther than 2 × radius from every other, outside
/// every area and POI radius) leave the geographic outputs byte-identical, as long as a cell's
/// half-diagonal is at most the radius and one incident does not reach the medium threshold.
public struct Disclosure: Sendable, Equatable {
    public var minCellCount: Int

    public init(minCellCount: Int = 1) {
        self.minCellCount = max(1, minCellCount)
    }

    /// Whether anything can be withheld (K ≥ 2).
    public var isActive: Bool { minCellCount > 1 }

    /// The count, or nil when it must be withheld.
    @inline(__always)
    public func show(_ count: Int) -> Int? {
        isActive && count < minCellCount ? nil : count
    }

    /// Whether figures comparing two counts (delta, pct, p_change, q_change, change, the app's
    /// sentence) may be shown: only when both counts are.
    @inline(__always)
    public func showsComparison(current: Int, previous: Int) -> Bool {
        show(current) != nil && show(previous) != nil
    }

    /// Whether a grid cell is published: it shows at least one count or a class above `safe`.
    public func publishes(_ c: GridCell, yearCounts: [Int]) -> Bool {
        guard isActive else { return true }
        if c.safetyClass != .safe { return true }
        return [c.nCurrent, c.nPrevious, c.rCurrent, c.rPrevious, c.handled].contains { $0 >= minCellCount }
            || yearCounts.contains { $0 >= minCellCount }
    }

    /// The grid as public outputs show it: published cells only, and only the calendar years in
    /// which some published cell shows a count. Merged tiles, vector tiles, the heatmap and the
    /// cell tables are all built from this grid, never from the full one.
    public func publicGrid(_ grid: GridResult) -> GridResult {
        guard isActive else { return grid }
        return grid.restricted(
            keepingCells: { publishes($0, yearCounts: grid.yearCounts(of: $0)) },
            keepingYears: { _, largest in largest >= minCellCount })
    }

    /// Named areas as public outputs show them: every area (they come from the user's file, not
    /// from the incidents), and only the years in which some area shows a count.
    public func publicAreas(_ result: AreaResult) -> AreaResult {
        guard isActive else { return result }
        var out = result
        (out.years, out.areas) = yearsShown(result.years, rows: result.areas, counts: \.yearCounts)
        for k in out.areas.indices { out.areas[k].months = out.areas[k].months.withholding(below: minCellCount) }
        return out
    }

    /// The breakdown as public outputs show it: values with at least one count shown, and only
    /// the years in which some such value shows a count.
    public func publicBreakdown(_ b: BreakdownResult) -> BreakdownResult {
        guard isActive else { return b }
        let rows = b.rows.filter { r in ([r.current, r.previous] + r.yearCounts).contains { $0 >= minCellCount } }
        var out = b
        (out.years, out.rows) = yearsShown(b.years, rows: rows, counts: \.yearCounts)
        return out
    }

    /// The years in which some row shows a count, and the rows' year counts cut to those years.
    private func yearsShown<Row>(_ years: [Int], rows: [Row], counts: WritableKeyPath<Row, [Int]>) -> ([Int], [Row]) {
        let kept = years.indices.filter { y in rows.contains { $0[keyPath: counts][y] >= minCellCount } }
        let cut = rows.map { row in
            var copy = row
            copy[keyPath: counts] = kept.map { row[keyPath: counts][$0] }
            return copy
        }
        return (kept.map { years[$0] }, cut)
    }

    /// The calendar-year totals as the report's trend shows them: years below K are left out, and
    /// months below K are months without incidents (the series runs between months shown).
    public func publicTotals(_ t: Totals) -> Totals {
        guard isActive else { return t }
        let kept = t.years.indices.filter { t.yearCounts[$0] >= minCellCount }
        var out = t
        out.years = kept.map { t.years[$0] }
        out.yearCounts = kept.map { t.yearCounts[$0] }
        out.months = t.months.withholding(below: minCellCount)
        return out
    }

    /// The content every public output is written from (summary.json, the operators' record,
    /// keeps the exact content).
    public func publicContent(_ content: ReportContent) -> ReportContent {
        guard isActive else { return content }
        var out = content
        out.ehsa = content.ehsa.map(publicEHSA)
        out.grid = publicGrid(content.grid)
        out.totals = publicTotals(content.totals)
        out.breakdown = content.breakdown.map(publicBreakdown)
        out.areas = content.areas.map { report in
            var shown = report
            shown.result = publicAreas(report.result)
            return shown
        }
        return out
    }
}
