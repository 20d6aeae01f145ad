import AreaWatchCore
import AreaWatchJobs
import AreaWatchReport
import ArgumentParser

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
                // The tiles folder is read as it is found: what it holds is escaped like data.
                let current = a.current.map(String.init) ?? "withheld"
                let previous = a.previous.map(String.init) ?? "withheld"
                let place = a.coverage == .none ? " (outside the data)" : a.found ? "" : " (no incident nearby)"
                let lines = [
                    "\(a.label)\(a.shownClass.map { " (\($0.rawValue))" } ?? "")",
                    "current \(current), previous \(previous)" + (a.text.map { ": \($0)" } ?? ""),
                    "cell \(a.cell) in tile \(a.tile), as of \(a.asOf)\(place)"
                ]
                for line in lines { print(TerminalText.escaped(line)) }
            }
        }
    }
}
