import AreaWatchCore
import AreaWatchJobs
import ArgumentParser

/// `--db`: the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite + SpatiaLite store.")
    var db = "areawatch.db"
}

/// The store, or input files read straight into memory.
struct SourceOptions: ParsableArguments {
    @Option(name: .long, help: "The store to read (default areawatch.db unless --input is given).")
    var db: String?

    @Option(
        name: .long, parsing: .upToNextOption,
        help: "Read these input files instead of a store (ad-hoc, nothing is stored).")
    var input: [String] = []

    @OptionGroup var reading: ReadingSettings

    func validate() throws {
        if !input.isEmpty && db != nil { throw ValidationError("give either --db or --input, not both") }
    }

    var source: IncidentSource {
        input.isEmpty ? .store(db ?? "areawatch.db") : .files(input, reading.ingestOptions)
    }
}

/// `--lat` and `--lon` of a location, read as ingest reads coordinates (no hex, no `inf`).
struct LocationOptions: ParsableArguments {
    // .unconditional: "-33.86" is the value, not an option (the usual form west of Greenwich).
    @Option(parsing: .unconditional, help: "Latitude (WGS84 degrees).")
    var lat: Decimal

    @Option(parsing: .unconditional, help: "Longitude (WGS84 degrees).")
    var lon: Decimal

    func validate() throws {
        guard (-90...90).contains(lat.value), (-180...180).contains(lon.value) else {
            throw ValidationError("--lat must be within -90…90 and --lon within -180…180")
        }
    }
}

struct OutputOptions: ParsableArguments {
    @Flag(help: "Only warnings and errors on stderr.")
    var quiet = false
}
