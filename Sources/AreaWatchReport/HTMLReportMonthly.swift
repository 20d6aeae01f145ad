import AreaWatchCore
import AreaWatchQuery

/// The monthly side of the trend (SPEC §8): which months the data covers, in words; incidents per
/// month as bars; which calendar years are partial; a small monthly series per named area. Drawn
/// from the public totals and areas, whose months below K are months without incidents.
enum HTMLMonthly {
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December"
    ]

    /// `July 2016`.
    static func name(_ month: Int) -> String {
        monthNames[MonthSeries.monthOfYear(month) - 1] + " " + String(MonthSeries.year(ofMonth: month))
    }

    /// The months holding incidents as runs of consecutive months.
    static func runs(_ series: MonthSeries) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for month in series.months where series[month] > 0 {
            if let last = out.last, last.upperBound == month - 1 {
                out[out.count - 1] = last.lowerBound...month
            } else {
                out.append(month...month)
            }
        }
        return out
    }

    /// "The data holds July 2016, July 2017 and July 2018." — runs named, up to eight of them.
    static func coverage(_ series: MonthSeries) -> String {
        let runs = runs(series)
        guard let first = runs.first, let last = runs.last else { return "The data holds no month." }
        guard runs.count <= 8 else {
            let held = runs.reduce(0) { $0 + $1.count }
            return "The data holds \(held) months between \(name(first.lowerBound)) and \(name(last.upperBound)); "
                + "\(series.counts.count - held) months between them hold no incident."
        }
        let parts = runs.map { r in
            r.count == 1 ? name(r.lowerBound) : name(r.lowerBound) + " to " + name(r.upperBound)
        }
        let joined =
            parts.count == 1
            ? parts[0]
            : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        return "The data holds \(joined)."
    }

    /// Calendar years whose data does not cover all twelve months → the months it holds (1…12).
    static func partialYears(_ series: MonthSeries) -> [Int: [Int]] {
        var held: [Int: [Int]] = [:]
        for month in series.months where series[month] > 0 {
            held[MonthSeries.year(ofMonth: month), default: []].append(MonthSeries.monthOfYear(month))
        }
        return held.filter { $0.value.count < 12 }
    }

    /// "partial: July" or "partial: January to March, July".
    static func partialText(_ months: [Int]) -> String {
        var runs: [ClosedRange<Int>] = []
        for m in months {
            if let last = runs.last, last.upperBound == m - 1 {
                runs[runs.count - 1] = last.lowerBound...m
            } else {
                runs.append(m...m)
            }
        }
        return "partial: "
            + runs.map { r in
                r.count == 1
                    ? monthNames[r.lowerBound - 1]
                    : monthNames[r.lowerBound - 1] + " to " + monthNames[r.upperBound - 1]
            }.joined(separator: ", ")
    }

    /// Incidents per month, one bar per month from the first to the last (zeros included).
    static func chart(_ series: MonthSeries) -> String {
        let (width, height) = (HTMLTrend.width, 240.0)
        let (left, right, top, bottom) = (HTMLTrend.left, HTMLTrend.right, 30.0, 40.0)
        let plotW = width - left - right, plotH = height - top - bottom
        let maxCount = max(1, series.counts.max() ?? 1)
        let step = HTMLTrend.niceStep(Double(maxCount) / 4)
        let yMax = (Double(maxCount) / step).rounded(.up) * step
        func y(_ v: Double) -> Double { top + plotH - v / yMax * plotH }
        func f(_ v: Double) -> String { HTMLTrend.f(v) }
        var out =
            "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" "
            + "aria-label=\"Incidents per month\" class=\"monthly\">\n"
        out +=
            "<text x=\"\(f(left))\" y=\"18\" font-size=\"13\" font-weight=\"600\">"
            + "Incidents per UTC calendar month</text>\n"
        var tick = 0.0
        while tick <= yMax + step / 2 {
            out +=
                "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(tick)))\" "
                + "y2=\"\(f(y(tick)))\" stroke=\"#e3e7eb\" />"
            out +=
                "<text x=\"\(f(left - 8))\" y=\"\(f(y(tick) + 4))\" font-size=\"11\" text-anchor=\"end\" "
                + "fill=\"\(HTMLStyle.muted)\">\(HTMLText.grouped(Int(tick)))</text>\n"
            tick += step
        }
        let slot = plotW / Double(series.counts.count)
        let barW = max(1, min(40, slot * 0.8))
        // A label every `every` months (1, 3, 6 or a multiple of 12: month numbers divisible by it
        // fall on the same months of every year), never closer than 44 px.
        let every =
            slot >= 44
            ? 1
            : slot * 3 >= 44
                ? 3
                : slot * 6 >= 44
                    ? 6
                    : 12 * max(1, Int((44 / (slot * 12)).rounded(.up)))
        for (k, count) in series.counts.enumerated() {
            let month = series.first + k
            let x = left + slot * Double(k) + (slot - barW) / 2
            out += "<g class=\"month-bar\" data-month=\"\(MonthSeries.label(month))\" data-count=\"\(count)\">"
            out += "<rect x=\"\(f(x))\" y=\"\(f(y(Double(count))))\" width=\"\(f(barW))\" "
            out += "height=\"\(f(y(0) - y(Double(count))))\" "
            out += "fill=\"\(HTMLStyle.bar)\"><title>\(name(month)): \(HTMLText.grouped(count))</title></rect>"
            if month % every == 0 {
                out +=
                    "<text x=\"\(f(x + barW / 2))\" y=\"\(f(height - bottom + 16))\" font-size=\"11\" "
                    + "text-anchor=\"middle\">\(MonthSeries.label(month))</text>"
            }
            out += "</g>\n"
        }
        out +=
            "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(0)))\" y2=\"\(f(y(0)))\" "
            + "stroke=\"\(HTMLStyle.ink)\" />\n"
        return out + "</svg>\n"
    }

    /// One row per named area: a sparkline over the whole data's months, and the busiest month.
    static func areasTable(_ report: AreaReport, months: Range<Int>) -> String {
        guard !report.result.areas.isEmpty, !months.isEmpty else { return "" }
        let columns = [
            HTMLTable.Column(HTMLText.escape(report.idProperty)), HTMLTable.Column("per month"),
            HTMLTable.Column("busiest month")
        ]
        let rows = report.result.areas.map { a -> [String] in
            let busiest = months.max { a.months[$0] < a.months[$1] || (a.months[$0] == a.months[$1] && $0 > $1) }
            let peak =
                busiest.flatMap { a.months[$0] > 0 ? "\(name($0)): \(HTMLText.grouped(a.months[$0]))" : nil }
                ?? "—"
            return [HTMLTable.value(a.id), "<td>\(sparkline(a.months, months: months))</td>", "<td>\(peak)</td>"]
        }
        return "<h3>Per month, by named area</h3>\n" + HTMLTable.render(columns, rows: rows)
    }

    /// A small bar series, 8 px per month (at most 480 px), scaled to its own largest month.
    static func sparkline(_ series: MonthSeries, months: Range<Int>) -> String {
        let slot = min(8.0, 480 / Double(months.count)), height = 24.0
        let largest = Double(max(1, months.map { series[$0] }.max() ?? 1))
        func f(_ v: Double) -> String { HTMLTrend.f(v) }
        var out =
            "<svg width=\"\(f(slot * Double(months.count)))\" height=\"\(f(height))\" "
            + "class=\"spark\" role=\"img\" "
            + "aria-label=\"incidents per month\">"
        for (k, month) in months.enumerated() where series[month] > 0 {
            let h = max(1, Double(series[month]) / largest * height)
            out +=
                "<rect x=\"\(f(slot * Double(k)))\" y=\"\(f(height - h))\" width=\"\(f(max(1, slot - 1)))\" "
                + "height=\"\(f(h))\" "
                + "fill=\"\(HTMLStyle.bar)\"><title>\(name(month)): \(HTMLText.grouped(series[month]))</title></rect>"
        }
        return out + "</svg>"
    }
}
