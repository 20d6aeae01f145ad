import ArgumentParser
import AreaWatchCore
import AreaWatchJobs

extension AreaWatch {
    struct Lookup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a location from the widget tiles alone, as the widget service does.")

        @Option(help: "The tiles folder of a report (with tilejson.json).")
        var tiles: String

        @OptionGroup var location: LocationOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let a = try LookupJob.run(tiles: tiles, lat: location.lat.value, lon: location.lon.value)
            if json {
                print(AnswerJSON.lookup(a).serialized(pretty: true), terminator: "")
            } else {
                print("\(a.label)\(a.shownClass.map { " (\($0.rawValue))" } ?? "")")
                print("current \(a.current.map(String.init) ?? "withheld"), previous \(a.previous.map(String.init) ?? "withheld")"
                      + (a.text.map { ": \($0)" } ?? ""))
                print("cell \(a.geohash) in tile \(a.tile), as of \(a.asOf)"
                      + (a.coverage == .none ? " (outside the data)" : a.found ? "" : " (no incident nearby)"))
            }
        }
    }
}
