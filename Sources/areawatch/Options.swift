import ArgumentParser
import AreaWatchCore
import AreaWatchIngest
import AreaWatchJobs
import AreaWatchQuery

/// `--db`: the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite + SpatiaLite store.")
    var db = "areawatch.db"
}

/// How input files are read (SPEC §2–§4); shared by `ingest` and the `--input` path.
struct ReadingOptions: ParsableArguments {
    @Option(help: "Force the input format instead of detecting it (json or csv).")
    var format: InputFormat?

    @Option(name: .customLong("column"), help: ArgumentHelp("Map a field to a column or member name.", valueName: "field=Header"))
    var columns: [String] = []

    @Option(help: "CSV delimiter (',', ';' or 'tab'); detected from the header by default.")
    var delimiter: String?

    @Option(help: "Namespace the keys of these files as SOURCE:key.")
    var source: String?

    @Option(help: "Keys of records without an id: snapshot (a full export, default) or append (a delta feed).")
    var idless: IdlessMode = .snapshot

    @Option(help: "A record larger than this many bytes is rejected as malformed_record.")
    var maxRecordBytes = 1 << 20

    @Option(name: .customLong("max-json-depth"), help: "Nesting deeper than this inside one JSON record makes it malformed_record.")
    var maxJSONDepth = 64

    @Option(name: .customLong("time-format"),
            help: ArgumentHelp("Read times in this strftime-style pattern first (%Y %y %m %d %e %H %I %M %S %p %b %B %j %z %Z %%), e.g. '%m/%d/%Y %I:%M:%S %p'.",
                               valueName: "pattern"))
    var timeFormat: String?

    @Option(name: .customLong("timezone"),
            help: ArgumentHelp("Times without an offset are local time in this IANA zone (default UTC), e.g. America/Chicago.", valueName: "zone"))
    var timeZone: String?

    func ingestOptions() throws -> IngestOptions {
        var overrides = ColumnOverrides()
        for text in columns {
            guard let (field, header) = ColumnOverrides.parse(text) else {
                throw ValidationError("--column expects field=Header with field one of \(IncidentField.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            overrides.names[field] = header
        }
        if let problem = overrides.problem { throw ValidationError(problem) }
        var delimiterByte: UInt8?
        if let delimiter {
            switch delimiter {
            case ",", "comma": delimiterByte = 44
            case ";", "semicolon": delimiterByte = 59
            case "tab", "\\t", "\t": delimiterByte = 9
            default: throw ValidationError("--delimiter must be ',', ';' or 'tab'")
            }
        }
        guard maxRecordBytes > 0, maxJSONDepth > 0 else { throw ValidationError("--max-record-bytes and --max-json-depth must be positive") }
        let reader: ReaderOptions
        do {
            reader = ReaderOptions(format: format, delimiter: delimiterByte, columns: overrides,
                                   maxRecordBytes: maxRecordBytes, maxJSONDepth: maxJSONDepth,
                                   timeFormat: try timeFormat.map(TimeFormat.compile),
                                   timeZone: try timeZone.map { try LocalTimeZone(named: $0) })
        } catch let error as TimeFormatError {
            throw ValidationError(error.message)
        }
        return IngestOptions(reader: reader, source: source, idless: idless)
    }
}

/// The store, or input files read straight into memory.
struct SourceOptions: ParsableArguments {
    @Option(name: .long, help: "The store to read (default areawatch.db unless --input is given).")
    var db: String?

    @Option(name: .long, parsing: .upToNextOption, help: "Read these input files instead of a store (ad-hoc, nothing is stored).")
    var input: [String] = []

    @OptionGroup var reading: ReadingOptions

    func source() throws -> IncidentSource {
        if !input.isEmpty {
            guard db == nil else { throw ValidationError("give either --db or --input, not both") }
            return .files(input, try reading.ingestOptions())
        }
        return .store(db ?? "areawatch.db")
    }
}

/// As-of, radius, thresholds and filters (SPEC §7).
struct QueryOptions: ParsableArguments {
    @Option(help: "The as-of instant (ISO 8601); default now.")
    var asOf: String?

    @Option(help: "Radius in metres.")
    var radius: Double = 1000

    @Option(help: "Class bounds: below the first is safe, below the second medium, else dangerous.")
    var thresholds = "5,10"

    @Option(name: .customLong("category"), help: "Only incidents of this category (repeatable).")
    var categories: [String] = []

    @Option(help: "Only incidents whose handled is true or false (unknown matches neither).")
    var handled: Bool?

    func parameters() throws -> QueryParameters {
        let asOfSeconds: Int64
        if let asOf {
            guard let parsed = TimeParser.parse(asOf) else { throw ValidationError("--as-of must be an ISO 8601 time, e.g. 2018-07-31T23:59:59Z") }
            asOfSeconds = parsed.seconds
        } else {
            asOfSeconds = UTCTime.now()
        }
        guard let t = Thresholds(parsing: thresholds) else { throw ValidationError("--thresholds must be two non-decreasing numbers, e.g. 5,10") }
        guard radius.isFinite, radius >= 0 else { throw ValidationError("--radius must be a non-negative number of metres") }
        return QueryParameters(asOf: asOfSeconds, radius: radius, thresholds: t, categories: Set(categories), handled: handled)
    }
}

struct OutputOptions: ParsableArguments {
    @Flag(help: "Only warnings and errors on stderr.")
    var quiet = false
}

extension InputFormat: ExpressibleByArgument {}
extension IdlessMode: ExpressibleByArgument {}
extension GridStrategy: ExpressibleByArgument {}
