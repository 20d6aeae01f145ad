import AreaWatchCore
import AreaWatchQuery

/// The report's near-repeat section (SPEC §16): the Knox table as analysts read it — distance
/// bands down, time bands across, each cell's ratio and p-value, significant cells shaded by how
/// far the ratio exceeds 1.
enum HTMLNearRepeat {
    static func section(_ r: NearRepeatReport) -> String {
        let p = r.parameters, t = r.table
        var out = "<section id=\"near-repeat\">\n<h2>Near-repeat pattern</h2>\n"
        if t.timesAreMonthStarts { return out + monthOnlyNote(t) }
        out +=
            "<p class=\"lede\">After an incident, are more incidents than chance would give close in space and time? "
        out += "Pairs of the current window's \(NumberFormat.compact(Double(t.incidents))) incidents "
        out += "(\(NumberFormat.compact(Double(t.pairs))) within \(HTMLText.metres(p.bands.distanceEdges.last ?? 0))) "
        out += "counted by distance and days apart (Knox test), against \(p.permutations) shuffles of the times "
        out += "(seed \(p.seed)). A cell is significant when its p-value ≤ \(NumberFormat.shortest(p.alpha)) "
        out += "and its Knox ratio (observed ÷ expected) is above 1: "
        out += r.significantCells == 0 ? "none is.</p>\n" : "\(r.significantCells) are (shaded).</p>\n"
        out += "<table class=\"near-repeat\">\n<thead><tr><th>distance</th>"
        for k in 1...p.bands.timeBands {
            let (from, to) = r.dayRange(k)
            out += "<th>\(from)–\(to) days</th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        for s in 0..<p.bands.distanceBandCount {
            let (from, to) = r.distanceRange(s)
            let label = s == 0 ? "same location" : "\(NumberFormat.compact(from))–\(NumberFormat.compact(to)) m"
            out += "<tr><th>\(label)</th>"
            for c in t.cells where c.distanceBand == s {
                out += cell(c, table: t, alpha: p.alpha)
            }
            out += "</tr>\n"
        }
        out += "</tbody>\n</table>\n"
        out +=
            "<p class=\"note\">Each cell: Knox ratio, then observed / expected pairs and the p-value. Every figure is in "
        out += "nearrepeat.csv; the method and what it assumes are in docs/STATISTICS.md.</p>\n</section>\n"
        return out
    }

    /// Month-only times put every pair 0, 28–31, 59–62 … days apart: a table of day bands would
    /// be an artefact of the source's rounding, so the page says why there is none.
    static func monthOnlyNote(_ t: KnoxTable) -> String {
        "<p class=\"lede\">This data gives each incident's month only (every time is the first of a month at "
            + "00:00 UTC), so how many days apart two incidents are is not known: a near-repeat table by days "
            + "would only reflect that rounding, and none is shown. nearrepeat.csv holds the counts as computed "
            + "(\(NumberFormat.compact(Double(t.incidents))) incidents). Run it on data with dates or times of "
            + "day.</p>\n</section>\n"
    }

    static func cell(_ c: KnoxCell, table t: KnoxTable, alpha: Double) -> String {
        let ratio = t.ratio(c)
        let text = ratio.map { NumberFormat.fixed($0, decimals: 2) } ?? "–"
        let detail =
            "\(c.observed) / \(NumberFormat.fixed(t.expected(c), decimals: 1)), p \(NumberFormat.fixed(t.pValue(c), decimals: 3))"
        guard t.isSignificant(c, alpha: alpha), let ratio else {
            return "<td>\(text)<br /><small>\(detail)</small></td>"
        }
        // Shade grows with the ratio up to 3× expected.
        let strength = min(1, (ratio - 1) / 2)
        let alphaText = NumberFormat.fixed(0.25 + 0.6 * strength, decimals: 2)
        return
            "<td class=\"significant\" style=\"background: rgba(203, 24, 29, \(alphaText))\"><strong>\(text)</strong>"
            + "<br /><small>\(detail)</small></td>"
    }
}
