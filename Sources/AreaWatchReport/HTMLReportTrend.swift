import AreaWatchCore
import AreaWatchQuery

/// The trend: the months the data covers, incidents per month and per UTC calendar year (inline
/// SVG bar charts), partial years marked, and a monthly series per named area.
enum HTMLTrend {
    static let width = 1100.0
    static let height = 300.0
    static let left = 64.0, right = 16.0, top = 34.0, bottom = 42.0

    /// `totals` and `areas` are already the public ones: years and months below K are not in them.
    static func section(
        _ totals: Totals, asOf: Int64, disclosure: Disclosure = Disclosure(),
        areas: AreaReport? = nil
    ) -> String {
        var out = "<section id=\"trend\">\n<h2>Trend</h2>\n"
        guard !totals.years.isEmpty else { return out + "<p class=\"none\">No incidents.</p>\n</section>\n" }
        let months = totals.months
        if !months.isEmpty { out += "<p id=\"months-covered\"><strong>\(HTMLMonthly.coverage(months))</strong></p>\n" }
        if months.counts.count > 1 {
            out += "<figure>\n" + HTMLMonthly.chart(months)
            out += "<figcaption>Incidents per UTC calendar month from the first month holding one to the last, "
            out += "months without incidents drawn as empty slots"
            out +=
                disclosure.isActive
                ? " (months with fewer than \(disclosure.minCellCount) counted as empty).</figcaption>\n"
                : ".</figcaption>\n"
            out += "</figure>\n"
        }
        let asOfYear = UTCTime.year(of: asOf)
        // The as-of year is partial unless the as-of is its last second; any year whose data does
        // not cover all twelve months is partial too.
        let toAsOf = UTCTime.civil(asOf + 1).year == asOfYear && totals.years.contains(asOfYear)
        let partial = HTMLMonthly.partialYears(months)
        out += "<figure>\n" + chart(totals, partial: partial, toAsOf: toAsOf ? asOfYear : nil, asOf: asOf)
        out +=
            "<figcaption>Incidents per UTC calendar year up to the as-of instant (all incidents that pass the filters)."
        if disclosure.isActive { out += " Years with fewer than \(disclosure.minCellCount) incidents are not shown." }
        let partialYears = totals.years.filter { partial[$0] != nil }
        if !partialYears.isEmpty {
            out +=
                " Partial years (marked *): "
                + partialYears.map { "\($0) (\(HTMLMonthly.partialText(partial[$0]!)))" }.joined(separator: ", ") + "."
        }
        if toAsOf { out += " \(asOfYear) runs to \(UTCTime.iso8601(asOf))." }
        out += "</figcaption>\n</figure>\n"
        if let areas { out += HTMLMonthly.areasTable(areas, months: months.months) }
        return out + "</section>\n"
    }

    static func chart(_ totals: Totals, partial: [Int: [Int]], toAsOf: Int?, asOf: Int64) -> String {
        let plotW = width - left - right, plotH = height - top - bottom
        let maxCount = max(1, totals.yearCounts.max() ?? 1)
        let step = niceStep(Double(maxCount) / 5)
        let yMax = (Double(maxCount) / step).rounded(.up) * step
        func y(_ v: Double) -> Double { top + plotH - v / yMax * plotH }
        var out = "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" "
        out += "role=\"img\" aria-label=\"Incidents per calendar year\" class=\"trend\">\n"
        out +=
            "<text x=\"\(f(left))\" y=\"18\" font-size=\"13\" font-weight=\"600\">Incidents per calendar year · as of \(UTCTime.iso8601(asOf))</text>\n"
        var tick = 0.0
        while tick <= yMax + step / 2 {
            out +=
                "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" stroke=\"#e3e7eb\" />"
            out +=
                "<text x=\"\(f(left - 8))\" y=\"\(f(y(tick) + 4))\" font-size=\"11\" text-anchor=\"end\" fill=\"\(HTMLStyle.muted)\">\(HTMLText.grouped(Int(tick)))</text>\n"
            tick += step
        }
        let slot = plotW / Double(totals.years.count)
        let barW = min(90, slot * 0.62)
        for (k, (year, count)) in zip(totals.years, totals.yearCounts).enumerated() {
            let x = left + slot * Double(k) + (slot - barW) / 2
            let isPartial = year == toAsOf || partial[year] != nil
            let note =
                partial[year].map { " (\(HTMLMonthly.partialText($0)))" }
                ?? (year == toAsOf ? " (to the as-of)" : "")
            out += "<g class=\"bar\" data-year=\"\(year)\" data-count=\"\(count)\">"
            out +=
                "<rect x=\"\(f(x))\" y=\"\(f(y(Double(count))))\" width=\"\(f(barW))\" height=\"\(f(y(0) - y(Double(count))))\" "
            out +=
                "fill=\"\(HTMLStyle.bar)\"\(isPartial ? " fill-opacity=\"0.5\" stroke=\"\(HTMLStyle.bar)\" stroke-dasharray=\"4 3\"" : "")>"
            out += "<title>\(year): \(HTMLText.grouped(count))\(note)</title></rect>"
            // Labels thin out when years are many, so they never overlap.
            let every = max(1, Int((44 / slot).rounded(.up)))
            if k % every == 0 || k == totals.years.count - 1 {
                out +=
                    "<text x=\"\(f(x + barW / 2))\" y=\"\(f(y(Double(count)) - 5))\" font-size=\"11\" text-anchor=\"middle\">\(HTMLText.grouped(count))</text>"
                out +=
                    "<text x=\"\(f(x + barW / 2))\" y=\"\(f(height - bottom + 17))\" font-size=\"12\" text-anchor=\"middle\">\(year)\(isPartial ? "*" : "")</text>"
            }
            out += "</g>\n"
        }
        out +=
            "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(0)))\" y2=\"\(f(y(0)))\" stroke=\"\(HTMLStyle.ink)\" />\n"
        return out + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `raw` (and at least 1: counts are integers).
    static func niceStep(_ raw: Double) -> Double {
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    static func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}
