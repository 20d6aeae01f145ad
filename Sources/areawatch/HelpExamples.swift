/// Real examples printed at the end of each command's `--help` (ArgumentParser places a
/// command's discussion above the usage; examples read best last, after the options). Every
/// example runs from the repository's root on the bundled datasets; the help tests check that
/// each option an example uses is one its command lists.
enum HelpExamples {
    static let byCommand: [String: [String]] = [
        "areawatch": [
            "areawatch ingest datasets/police-uk/*.csv --db aw.db",
            "areawatch query --db aw.db --as-of latest --lat 53.7236 --lon -1.8617",
            "areawatch report --db aw.db --as-of latest --out reports/mine"
        ],
        "ingest": [
            "areawatch ingest datasets/police-uk/*.csv --db aw.db",
            "areawatch ingest datasets/watchme/watchme-export-2018-07-31.json --db aw.db --rejects rejects.csv",
            "areawatch ingest datasets/police-uk/2018-07-calderdale-street.csv --db aw.db --column category='Crime type'"
        ],
        "stats": [
            "areawatch stats --db aw.db",
            "areawatch stats --db aw.db --json"
        ],
        "query": [
            "areawatch query --db aw.db --as-of latest --lat 53.7236 --lon -1.8617",
            "areawatch query --db aw.db --as-of 2018-07-31T23:59:59Z --lat 53.7236 --lon -1.8617 --json",
            "areawatch query --input datasets/police-uk/*.csv --as-of latest --lat 53.7236 --lon -1.8617 --list"
        ],
        "report": [
            "areawatch report --db aw.db --as-of latest --out reports/mine",
            "areawatch report --input datasets/police-uk/*.csv --as-of latest --rejects rejects.csv --out reports/adhoc",
            "areawatch report --db aw.db --as-of latest --areas datasets/areas/calderdale-areas.geojson "
                + "--area-id name --area-population population --group-by category --ehsa --out reports/areas"
        ],
        "lookup": [
            "areawatch lookup --tiles reports/calderdale/tiles --lat 53.7236 --lon -1.8617",
            "areawatch lookup --tiles reports/calderdale/tiles --lat 53.7236 --lon -1.8617 --json"
        ],
        "serve": [
            "areawatch serve reports/calderdale",
            "areawatch serve reports/calderdale --host 0.0.0.0 --port 8080 --cors-origin https://example.org",
            "curl 'http://127.0.0.1:8080/v1/safety?lat=53.7236&lon=-1.8617'"
        ],
        "run": [
            "areawatch run --config areawatch.toml",
            "areawatch run --config synthetic-city.toml"
        ],
        "check": [
            "areawatch check --db reports/areawatch.db"
        ],
        "benchmark": [
            "areawatch benchmark --db reports/areawatch.db"
        ]
    ]

    /// The command a help request names: the first word after the executable that is not an
    /// option (`areawatch report --help`, `areawatch help report`), else the root.
    static func command(in arguments: [String]) -> String {
        let words = arguments.dropFirst().filter { !$0.hasPrefix("-") }
        let named = words.first == "help" ? words.dropFirst().first : words.first
        guard let named, byCommand[named] != nil else { return "areawatch" }
        return named
    }

    /// `help` with an EXAMPLES section appended when `help` is a usage text with examples for
    /// its command.
    static func appended(to help: String, arguments: [String]) -> String {
        guard help.contains("USAGE:"), let examples = byCommand[command(in: arguments)] else { return help }
        var text = help
        while text.hasSuffix("\n") { text.removeLast() }
        return text + "\n\nEXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    }
}
