import AreaWatchCore

/// The rates per resident of the areas table (SPEC §17), only with `--area-population`.
enum AreaRateColumns {
    static let columns = [
        HTMLTable.Column("population", numeric: true),
        HTMLTable.Column("rate_current", numeric: true), HTMLTable.Column("rate_previous", numeric: true),
        HTMLTable.Column("eb_rate_current", numeric: true), HTMLTable.Column("population_note")
    ]

    static func cells(_ r: AreaRate) -> [String] {
        let rates = [r.rateCurrent, r.ratePrevious, r.ebRateCurrent].map { v in
            HTMLTable.numeric(v.map { NumberFormat.fixed($0, decimals: 1) } ?? "—")
        }
        let note = r.note.map { "<td class=\"none\">\(text($0))</td>" } ?? "<td></td>"
        return [HTMLTable.numeric(r.population.map(NumberFormat.compact) ?? "—")] + rates + [note]
    }

    static func text(_ note: PopulationNote) -> String {
        switch note {
        case .missing: return "no population: no rate"
        case .notNumeric: return "population not a number: no rate"
        case .notPositive: return "population not above 0: no rate"
        }
    }

    /// Row order: by `eb_rate_current`, highest first (ties and areas without one in the file's order).
    static func ranking(_ rates: [AreaRate]) -> [Int] {
        let ranked = rates.indices.filter { rates[$0].ebRateCurrent != nil }
        let sorted = ranked.enumerated().sorted { a, b in
            let (x, y) = (rates[a.element].ebRateCurrent!, rates[b.element].ebRateCurrent!)
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
        return sorted + rates.indices.filter { rates[$0].ebRateCurrent == nil }
    }

    /// Why the rows are in this order, in one sentence, and where the populations come from.
    static func note(_ population: AreaPopulations, rates: [AreaRate]) -> String {
        // --rate-per is at most 1e9: a whole one fits an Int.
        let per = population.ratePer
        let perText = per == per.rounded() ? NumberFormat.grouped(Int(per)) : NumberFormat.compact(per)
        var out = "<p class=\"note\" id=\"area-rates\">Ranked by eb_rate_current, the current rate per \(perText) "
        out += "residents smoothed by empirical Bayes: a rate over few residents swings with a handful of incidents, "
        out += "so each is pulled toward the rate of all the areas, the harder the fewer its residents.</p>\n"
        out +=
            "<p class=\"note\">Populations: the property <code>\(HTMLText.escape(population.property))</code> of the "
        out += "areas file; "
        let without = rates.filter { $0.note != nil }.count
        out +=
            without == 0
            ? "every area has one.</p>\n"
            : "\(without) of \(rates.count) areas have none that is a number above 0, and no rate.</p>\n"
        return out
    }
}
