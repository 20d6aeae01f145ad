import AreaWatchCore
import AreaWatchQuery
import ArgumentParser

/// As-of, radius, thresholds and filters (SPEC §7): `query`, `report` and the nightly `[query]` table.
public struct QuerySettings: ParsableArguments, Sendable {
    /// SPEC §8: a radius beyond this would make every cell's disc cover a city; refused as usage.
    public static let maxRadius = 50_000.0

    @Option(
        help: ArgumentHelp(
            "The as-of instant (ISO 8601), or 'latest': the newest incident's time "
                + "(after the filters); default now, truncated to the second.",
            valueName: "instant|latest"))
    public var asOf: AsOf?

    @Option(parsing: .unconditional, help: "Radius in metres, within (0, 50000].")
    public var radius = Decimal(1000)

    @Option(
        parsing: .unconditional,
        help: "Class bounds: below the first is safe, below the second medium, else dangerous.")
    public var thresholds = Thresholds.standard

    @Option(
        name: [.customLong("category"), .customLong("categories")],
        help: "Only incidents of this category (repeatable).")
    public var categories: [String] = []

    @Option(help: "Only incidents whose handled is true or false (unknown matches neither).")
    public var handled: Bool?

    public init() {}

    public func validate() throws {
        guard radius.value > 0, radius.value <= QuerySettings.maxRadius else {
            throw ValidationError("--radius must be within (0, 50000] metres")
        }
    }

    /// The query parameters; without `--as-of`, as of `now`; with `latest`, as of `latest` (the
    /// newest incident's time, `DataExtent.lastTime`), or `now` when there is no incident.
    public func parameters(now: Int64 = UTCTime.now(), latest: Int64? = nil) -> QueryParameters {
        let t: Int64
        switch asOf {
        case .instant(let seconds): t = seconds
        case .latest: t = latest ?? now
        case nil: t = now
        }
        return QueryParameters(
            asOf: t, radius: radius.value, thresholds: thresholds,
            categories: Set(categories), handled: handled)
    }

    /// The parameters for a run over `columns`: `--as-of latest` resolved from their extent (logged,
    /// since every output states the instant it chose), the extent itself, and on an H3 grid the
    /// rows' cells it found (`DataExtent.measure`).
    public func resolved(
        for columns: IncidentColumns, grid: GridSystem = .standard, minCellCount: Int = 1,
        progress: ProgressReporter
    ) -> (parameters: QueryParameters, extent: DataExtent?, cells: ColumnCells?) {
        let (extent, cells) = DataExtent.measure(
            columns: columns, parameters: parameters(now: 0), grid: grid,
            minCellCount: minCellCount)
        let parameters = parameters(latest: extent?.lastTime)
        if asOf == .latest {
            let t = UTCTime.iso8601(parameters.asOf)
            progress.log(
                extent == nil
                    ? "--as-of latest: no incident passes the filters; as of now, \(t)"
                    : "--as-of latest: \(t), the newest incident's time")
        }
        return (parameters, extent, cells)
    }

}
