import ArgumentParser
import AreaWatchCore
import AreaWatchQuery

/// As-of, radius, thresholds and filters (SPEC §7): `query`, `report` and the nightly `[query]` table.
public struct QuerySettings: ParsableArguments, Sendable {
    /// SPEC §8: a radius beyond this would make every cell's disc cover a city; refused as usage.
    public static let maxRadius = 50_000.0

    @Option(help: "The as-of instant (ISO 8601); default now, truncated to the second.")
    public var asOf: Instant?

    @Option(parsing: .unconditional, help: "Radius in metres, within (0, 50000].")
    public var radius = Decimal(1000)

    @Option(parsing: .unconditional,
            help: "Class bounds: below the first is safe, below the second medium, else dangerous.")
    public var thresholds = Thresholds.standard

    @Option(name: [.customLong("category"), .customLong("categories")], help: "Only incidents of this category (repeatable).")
    public var categories: [String] = []

    @Option(help: "Only incidents whose handled is true or false (unknown matches neither).")
    public var handled: Bool?

    public init() {}

    public func validate() throws {
        guard radius.value > 0, radius.value <= QuerySettings.maxRadius else {
            throw ValidationError("--radius must be within (0, 50000] metres")
        }
    }

    /// The query parameters; without `--as-of`, as of `now`.
    public func parameters(now: Int64 = UTCTime.now()) -> QueryParameters {
        QueryParameters(asOf: asOf?.seconds ?? now, radius: radius.value, thresholds: thresholds,
                        categories: Set(categories), handled: handled)
    }
}
