import ArgumentParser
import AreaWatchCore
import AreaWatchJobs
import AreaWatchQuery

extension AreaWatch {
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How safe is a location? Year-over-year counts within the radius (SPEC §7.1).")

        // .unconditional: "-33.86" is the value, not an option (the usual form west of Greenwich).
        @Option(parsing: .unconditional, help: "Latitude (WGS84 degrees).")
        var lat: Double

        @Option(parsing: .unconditional, help: "Longitude (WGS84 degrees).")
        var lon: Double

        @OptionGroup var source: SourceOptions
        @OptionGroup var query: QueryOptions

        @Flag(help: "Print JSON.")
        var json = false

        @Flag(help: "Also list the counted incidents (key, time, distance, category, handled).")
        var list = false

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw ValidationError("--lat must be within -90…90 and --lon within -180…180")
            }
        }

        func run() throws {
            let progress = ProgressReporter(quiet: output.quiet || json)
            let (answer, listed, excludedFuture) = try QueryJob.run(
                source: try source.source(), parameters: try query.parameters(), lat: lat, lon: lon, list: list, progress: progress)
            if json {
                print(QueryOutput.json(answer, excludedFuture: excludedFuture, listed: list ? listed : nil).serialized(pretty: true), terminator: "")
            } else {
                print(QueryOutput.text(answer, excludedFuture: excludedFuture))
                if list { print(QueryOutput.listText(listed)) }
            }
        }
    }
}

enum QueryOutput {
    static func json(_ a: PointAnswer, excludedFuture: Int, listed: [ListedIncident]?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("lat", .number(a.lat)), ("lon", .number(a.lon)), ("radius_m", .number(a.radius)),
            ("as_of", .string(UTCTime.iso8601(a.asOf))), ("current", .int(a.current)), ("previous", .int(a.previous)),
            ("delta", .int(a.delta)), ("pct", a.pct.map { .fixed($0, decimals: 4) } ?? .null), ("handled", .int(a.handled)),
            ("class", .string(a.safetyClass.rawValue)), ("label", .string(a.label)), ("text", .string(a.text)),
            ("excluded_future", .int(excludedFuture)),
        ]
        if let listed {
            members.append(("incidents", .array(listed.map { i in
                .object([("key", .string(i.key)), ("time", .string(UTCTime.iso8601(i.time))),
                         ("distance_m", .fixed(i.distance, decimals: 1)), ("category", .optional(i.category)),
                         ("handled", i.handled.map { .bool($0) } ?? .null), ("window", .string(i.window == .current ? "current" : "previous"))])
            })))
        }
        return .object(members)
    }

    static func text(_ a: PointAnswer, excludedFuture: Int) -> String {
        """
        \(a.label) (\(a.safetyClass.rawValue))
        \(a.current) event(s) during last year within \(NumberFormat.compact(a.radius)) m
        \(a.text)
        previous year: \(a.previous), delta: \(a.delta), pct: \(a.pct.map { NumberFormat.fixed($0, decimals: 4) } ?? "n/a"), handled: \(a.handled)
        as of \(UTCTime.iso8601(a.asOf)) at \(a.lat), \(a.lon); \(excludedFuture) future incident(s) not counted
        """
    }

    static func listText(_ listed: [ListedIncident]) -> String {
        var rows = [["key", "time", "distance_m", "window", "category", "handled"]]
        for i in listed {
            rows.append([i.key, UTCTime.iso8601(i.time), NumberFormat.fixed(i.distance, decimals: 1),
                         i.window == .current ? "current" : "previous", i.category ?? "", i.handled.map { $0 ? "true" : "false" } ?? ""])
        }
        return Table.render(rows)
    }
}
