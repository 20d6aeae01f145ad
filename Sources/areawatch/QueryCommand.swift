import AreaWatchCore
import AreaWatchJobs
import AreaWatchQuery
import AreaWatchReport
import ArgumentParser

extension AreaWatch {
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How safe is a location? Year-over-year counts within the radius (SPEC §7.1).")

        @OptionGroup var location: LocationOptions
        @OptionGroup var source: SourceOptions
        @OptionGroup var query: QuerySettings

        @Flag(help: "Print JSON.")
        var json = false

        @Flag(help: "Also list the counted incidents (key, time, distance, category, handled).")
        var list = false

        @OptionGroup var output: OutputOptions

        func run() throws {
            let progress = ProgressReporter(quiet: output.quiet || json)
            let (answer, listed, excludedFuture) = try QueryJob.run(
                source: source.source, query: query, lat: location.lat.value, lon: location.lon.value,
                list: list, progress: progress)
            if json {
                print(
                    AnswerJSON.query(answer, excludedFuture: excludedFuture, listed: list ? listed : nil).serialized(
                        pretty: true),
                    terminator: "")
            } else {
                print(QueryOutput.text(answer, excludedFuture: excludedFuture))
                if list { print(QueryOutput.listText(listed)) }
            }
        }
    }
}

enum QueryOutput {
    static func text(_ a: PointAnswer, excludedFuture: Int) -> String {
        """
        \(a.label)\(a.shownClass.map { " (\($0.rawValue))" } ?? "")
        \(a.current) event(s) during last year within \(NumberFormat.compact(a.radius)) m
        \(a.coverage == .none ? noData(a) : a.text)
        previous year: \(a.previous), delta: \(a.delta), pct: \(a.pct.map { NumberFormat.fixed($0, decimals: 4) } ?? "n/a"), handled: \(a.handled)
        as of \(UTCTime.iso8601(a.asOf)) at \(a.lat), \(a.lon); \(excludedFuture) future incident(s) not counted
        """
    }

    /// The line that replaces the year-over-year text outside the data (SPEC §7.1).
    static func noData(_ a: PointAnswer) -> String {
        "no incident of the data lies within \(NumberFormat.compact(a.radius)) m of its box"
    }

    static func listText(_ listed: [ListedIncident]) -> String {
        var rows = [["key", "time", "distance_m", "window", "category", "handled"]]
        for i in listed {
            rows.append([
                i.key, UTCTime.iso8601(i.time), NumberFormat.fixed(i.distance, decimals: 1),
                i.window == .current ? "current" : "previous", i.category ?? "",
                i.handled.map { $0 ? "true" : "false" } ?? ""
            ])
        }
        return Table.render(rows)
    }
}
