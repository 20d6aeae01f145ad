import AreaWatchCore
import AreaWatchQuery

/// `timeseries.csv` (SPEC §8.1): incidents per UTC calendar month for the whole data (`all`) and
/// for each named area, written from the public content.
///
/// Every series covers the same months: from the first to the last month in which the whole
/// data holds an incident (with `--min-cell-count K`, at least K), zeros between. An area's
/// incidents are among the whole data's, so its months lie inside that span. Counts below K,
/// zero included, are written empty, as areas.csv writes them.
enum TimeseriesCSV {
    static let name = "timeseries.csv"
    static let allName = "all"

    static func write(totals: Totals, areas: AreaResult?, disclosure: Disclosure, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(CSVText.line(["area", "month", "count"]))
        let months = totals.months.months
        let labels = months.map(MonthSeries.label)
        func series(_ name: String, _ counts: MonthSeries) throws {
            let area = CSVText.spreadsheetSafe(name)
            for (month, label) in zip(months, labels) {
                let count = disclosure.show(counts[month]).map(String.init) ?? ""
                try file.write(CSVText.line([area, label, count]))
            }
        }
        try series(allName, totals.months)
        for area in areas?.areas ?? [] { try series(area.id, area.months) }
        try file.finish()
    }
}
