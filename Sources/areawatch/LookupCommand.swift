import ArgumentParser
import AreaWatchCore
import AreaWatchJobs
import AreaWatchReport

extension AreaWatch {
    struct Lookup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a location from the widget tiles alone, as the widget service does.")

        @Option(help: "The tiles folder of a report (with tilejson.json).")
        var tiles: String

        // .unconditional: "-33.86" is the value, not an option (the usual form west of Greenwich).
        @Option(parsing: .unconditional, help: "Latitude (WGS84 degrees).")
        var lat: Double

        @Option(parsing: .unconditional, help: "Longitude (WGS84 degrees).")
        var lon: Double

        @Flag(help: "Print JSON.")
        var json = false

        func validate() throws {
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw ValidationError("--lat must be within -90…90 and --lon within -180…180")
            }
        }

        func run() throws {
            let a = try TileLookup.answer(tiles: tiles, lat: lat, lon: lon)
            if json {
                let value: JSONValue = .object([
                    ("lat", .number(a.lat)), ("lon", .number(a.lon)), ("radius_m", .number(a.radius)), ("as_of", .string(a.asOf)),
                    ("geohash", .string(a.geohash)), ("tile", .string(a.tile)), ("current", .optional(a.current)),
                    ("previous", .optional(a.previous)), ("delta", .optional(a.delta)), ("class", .string(a.safetyClass.rawValue)),
                    ("label", .string(a.label)), ("text", .optional(a.text)), ("found", .bool(a.found)),
                ])
                print(value.serialized(pretty: true), terminator: "")
            } else {
                print("\(a.label) (\(a.safetyClass.rawValue))")
                print("current \(a.current.map(String.init) ?? "withheld"), previous \(a.previous.map(String.init) ?? "withheld")"
                      + (a.text.map { ": \($0)" } ?? ""))
                print("cell \(a.geohash) in tile \(a.tile), as of \(a.asOf)\(a.found ? "" : " (no incident nearby)")")
            }
        }
    }
}
