import AreaWatchCore
import AreaWatchIngest
import ArgumentParser

/// How input files are read (SPEC §2–§4): `ingest`, `--input` and the nightly `[ingest]` table.
public struct ReadingSettings: ParsableArguments, Sendable {
    @Option(help: "Force the input format instead of detecting it (json or csv).")
    public var format: InputFormat?

    @Option(
        name: [.customLong("column"), .customLong("columns")],
        help: ArgumentHelp("Map a field to a column or member name (repeatable).", valueName: "field=Header"),
        transform: ColumnMapping.parse)
    public var columns: [ColumnMapping] = []

    @Option(help: "CSV delimiter (',', ';' or 'tab'); detected from the header by default.")
    public var delimiter: Delimiter?

    @Option(help: "Namespace the keys of these files as SOURCE:key.")
    public var source: String?

    @Option(help: "Keys of records without an id: snapshot (a full export, default) or append (a delta feed).")
    public var idless: IdlessMode = .snapshot

    @Option(parsing: .unconditional, help: "A record larger than this many bytes is rejected as malformed_record.")
    public var maxRecordBytes = 1 << 20

    @Option(parsing: .unconditional, help: "Nesting deeper than this inside one JSON record makes it malformed_record.")
    public var maxJSONDepth = 64

    @Option(
        help: ArgumentHelp(
            "Read times in this strftime-style pattern first (%Y %y %m %d %e %H %I %M %S %p %b %B %j %z %Z %%), e.g. '%m/%d/%Y %I:%M:%S %p' (SPEC §2.5).",
            valueName: "pattern"))
    public var timeFormat: String?

    @Option(
        name: .customLong("timezone"),
        help: ArgumentHelp(
            "Times without an offset are local time in this IANA zone (default UTC), e.g. America/Chicago.",
            valueName: "zone"))
    public var timezone: String?

    public init() {}

    public func validate() throws {
        guard maxRecordBytes > 0, maxJSONDepth > 0 else {
            throw ValidationError("--max-record-bytes and --max-json-depth must be positive")
        }
        if let problem = columnOverrides.problem { throw ValidationError(problem) }
        do {
            if let timeFormat { _ = try TimeFormat.compile(timeFormat) }
            if let timezone { _ = try LocalTimeZone(named: timezone) }
        } catch {
            throw ValidationError(error.message) // both throw TimeFormatError (typed throws)
        }
    }

    private var columnOverrides: ColumnOverrides {
        var overrides = ColumnOverrides()
        for mapping in columns { overrides.names[mapping.field] = mapping.header }
        return overrides
    }

    /// The readers' options (the pattern and the zone were checked by `validate`).
    public var ingestOptions: IngestOptions {
        let reader = ReaderOptions(
            format: format, delimiter: delimiter?.byte, columns: columnOverrides,
            maxRecordBytes: maxRecordBytes, maxJSONDepth: maxJSONDepth,
            timeFormat: timeFormat.flatMap { try? TimeFormat.compile($0) },
            timeZone: timezone.flatMap { try? LocalTimeZone(named: $0) })
        return IngestOptions(reader: reader, source: source, idless: idless)
    }
}

/// What an ingest does beyond reading: SPEC §3's reject-rate alarm, the rejects file, `--force`.
public struct IngestPolicy: ParsableArguments, Sendable {
    @Flag(help: "Re-read files whose SHA-256 was already ingested.")
    public var force = false

    @Option(parsing: .unconditional, help: "Exit 3 when the share of rejected records exceeds this (0…1).")
    public var maxRejectRate = Decimal(1)

    @Option(help: "Where to write the rejects (default: beside the store, NAME-rejects.csv).")
    public var rejects: String?

    public init() {}

    public func validate() throws {
        guard (0...1).contains(maxRejectRate.value) else {
            throw ValidationError("--max-reject-rate must be within 0…1")
        }
    }

    /// The rejects file for a store: `--rejects`, or `NAME-rejects.csv` beside the store.
    public func rejectsPath(storePath: String) -> String {
        rejects ?? ((storePath.hasSuffix(".db") ? String(storePath.dropLast(3)) : storePath) + "-rejects.csv")
    }
}
