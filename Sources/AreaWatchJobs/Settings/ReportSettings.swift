import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport
import ArgumentParser

/// Everything `report` and the nightly `[report]` table can set (SPEC §7.2–§8, §10, §13): each option
/// is declared once, here, with its default, help and validation. The command line parses it
/// directly and the TOML config is turned into the same arguments (ConfigArguments), so a new
/// option is one property here and one line in docs/CONFIG.md.
public struct ReportSettings: ParsableArguments, Sendable {
    @Option(help: "The report folder: replaced atomically when absent, empty or a report folder areawatch wrote.")
    public var out = "reports/latest"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The grid: geohash:P (P 1…12) or h3:R (R 0…15); geohash:7 "
                + "unless --precision says otherwise (SPEC §18)."),
        transform: GridSystem.option)
    public var grid: GridSystem?

    @Option(parsing: .unconditional, help: "Geohash precision of the grid cells (1…12): short for --grid geohash:P.")
    public var precision: Int?

    @Option(help: "Named areas: a GeoJSON file of Polygon/MultiPolygon features.")
    public var areas: String?

    @Option(help: "The property that names each area.")
    public var areaId = "name"

    @Option(
        help: ArgumentHelp(
            "With --areas: the numeric property holding each area's population; adds its "
                + "population and rates per resident to the areas' outputs (SPEC §17)."))
    public var areaPopulation: String?

    @Option(parsing: .unconditional, help: "Residents per rate with --area-population, in (0, 1000000000].")
    public var ratePer = Decimal(100_000)

    @Option(help: "Points of interest: a CSV (name, lat, lon) or GeoJSON points with a name.")
    public var poi: String?

    @Option(help: "Breakdown by category or by an attribute (input column).")
    public var groupBy: BreakdownField?

    @Option(parsing: .unconditional, help: "Zooms of the widget tiles, e.g. 10-14; 'none' writes no tiles.")
    public var tileZooms = TileZooms.standard

    @Option(
        help: ArgumentHelp(
            "The kinds of file to write, comma-separated (SPEC §19): "
                + OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
                + " (default: all); summary.json is always written."),
        transform: OutputFormats.checked)
    public var formats = OutputFormats.standard

    @Option(
        help: ArgumentHelp(
            "The URL the report folder is published at (SPEC §19): tiles/tilejson.json's tile "
                + "URLs are absolute under it. Default: relative URLs."),
        transform: PublicURL.checked)
    public var publicURL: String?

    @Option(parsing: .unconditional, help: "Withhold counts below this from public outputs (SPEC §10).")
    public var minCellCount = 1

    @Option(
        parsing: .unconditional,
        help: "Refuse a grid estimated to have more cells than this (bounded work, SPEC §8).")
    public var maxCells = 5_000_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "False discovery rate α: a change is a rise or fall when its Benjamini–Hochberg q "
                + "is at most this (SPEC §12)."))
    public var fdr = Decimal(0.05)

    @Option(help: "Attribution written into the TileJSON and the HTML footer.")
    public var attribution = "areawatch"

    @Option(parsing: .unconditional, help: "Worker threads for the grid (default: all cores).")
    public var threads: Int?

    @Option(help: "Grid algorithm: scatter (default) or rtree (an R-tree count per cell centre).")
    public var gridStrategy: GridStrategy = .scatter

    @Flag(help: "Emerging hot spot analysis (SPEC §13): ehsa.csv, ehsa.geojson and a map in report.html.")
    public var ehsa = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The emerging-hot-spot cells: geohash:P (P 1…12) or h3:R (R 0…15); geohash:6 "
                + "unless --ehsa-precision says otherwise (SPEC §13, §18)."),
        transform: GridSystem.option)
    public var ehsaGrid: GridSystem?

    @Option(
        parsing: .unconditional,
        help: "Geohash precision of the emerging-hot-spot cells (1…12): short for --ehsa-grid geohash:P.")
    public var ehsaPrecision: Int?

    @Option(parsing: .unconditional, help: "Monthly steps of the emerging-hot-spot cube (10…1200).")
    public var ehsaSteps = 24

    @Option(
        parsing: .unconditional,
        help: "Benjamini–Hochberg level at which a bin is a hot or cold spot, in (0, 1).")
    public var ehsaAlpha = Decimal(0.05)

    @Option(
        name: .customLong("max-ehsa-bins"),
        help: "Refuse an emerging-hot-spot cube of more bins (locations × steps) than this (SPEC §8).")
    public var maxEHSABins = 20_000_000

    @Flag(
        help:
            "Near-repeat analysis (SPEC §16): nearrepeat.csv, a Knox table in report.html, near_repeat in summary.json."
    )
    public var nearRepeat = false

    @Option(
        name: .customLong("nr-distances"), parsing: .unconditional,
        help:
            "Upper edges of the near-repeat distance bands in metres: strictly increasing, each in (0, 5000], at most 20."
    )
    public var nrDistances = BandEdges(NearRepeatParameters.defaultEdges)

    @Option(
        name: .customLong("nr-days"), parsing: .unconditional, help: "Width of a near-repeat time band in days (1…365)."
    )
    public var nrDays = 14

    @Option(
        name: .customLong("nr-time-bands"), parsing: .unconditional,
        help: "Number of near-repeat time bands (1…52; days × bands at most 730).")
    public var nrTimeBands = 4

    @Option(
        name: .customLong("nr-permutations"), parsing: .unconditional,
        help: "Permutations of the near-repeat test (9…9999).")
    public var nrPermutations = 99

    @Option(
        name: .customLong("nr-seed"), parsing: .unconditional,
        help: "Seed of the near-repeat permutations (0…2^64−1): the same seed gives the same p-values.")
    public var nrSeed: UInt64 = 1

    @Option(
        name: .customLong("nr-alpha"), parsing: .unconditional,
        help: "p-value at or below which a near-repeat cell with a ratio above 1 is significant, in (0, 1).")
    public var nrAlpha = Decimal(0.05)

    @Option(
        name: .customLong("nr-max-pairs"), parsing: .unconditional,
        help: "Refuse a near-repeat run with more spatial pairs than this (bounded work, SPEC §8).")
    public var nrMaxPairs = 300_000_000

    public init() {}

    public func validate() throws {
        if let precision, !(1...Geohash.maxPrecision).contains(precision) {
            throw ValidationError("--precision must be within 1…12")
        }
        if let grid, let precision, grid != .geohash(precision: precision) {
            throw ValidationError("--grid \(grid) and --precision \(precision) name different grids: give one of them")
        }
        if let ehsaGrid, let ehsaPrecision, ehsaGrid != .geohash(precision: ehsaPrecision) {
            throw ValidationError(
                "--ehsa-grid \(ehsaGrid) and --ehsa-precision \(ehsaPrecision) name different grids: give one of them")
        }
        if let zooms = tileZooms.zooms, zooms.lowerBound < 0 || zooms.upperBound > 24 {
            throw ValidationError("--tile-zooms must lie within 0…24")
        }
        guard minCellCount >= 1 else { throw ValidationError("--min-cell-count must be at least 1") }
        guard maxCells >= 1 else { throw ValidationError("--max-cells must be at least 1") }
        guard maxEHSABins >= 1 else { throw ValidationError("--max-ehsa-bins must be at least 1") }
        guard fdr.value > 0, fdr.value < 1 else { throw ValidationError("--fdr must be within (0, 1)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let problem = ehsaParameters.problem { throw ValidationError(problem) }
        if let problem = nearRepeatParameters.problem { throw ValidationError(problem) }
        guard ratePer.value > 0, ratePer.value <= Self.maxRatePer else {
            throw ValidationError("--rate-per must be within (0, 1000000000]: residents per rate, e.g. 100000")
        }
    }

    /// `--ehsa-grid` (or `--ehsa-precision`, default 6), `--ehsa-steps` and `--ehsa-alpha` (checked
    /// even without `--ehsa`, so a bad value in the config fails the day it is written, not the
    /// day the flag is turned on).
    public var ehsaParameters: EmergingHotSpotParameters {
        EmergingHotSpotParameters(
            grid: ehsaGrid ?? .geohash(precision: ehsaPrecision ?? 6), steps: ehsaSteps, alpha: ehsaAlpha.value)
    }

    /// The `--nr-*` options (checked even without `--near-repeat`, as the hot-spot ones are).
    public var nearRepeatParameters: NearRepeatParameters {
        NearRepeatParameters(
            bands: NearRepeatBands(distanceEdges: nrDistances.edges, days: nrDays, timeBands: nrTimeBands),
            permutations: nrPermutations, seed: nrSeed, alpha: nrAlpha.value, maxPairs: nrMaxPairs)
    }

    /// The largest `--rate-per`: a billion residents, beyond any population a rate is given for.
    public static let maxRatePer = 1e9

    /// SPEC §17: populations are of named areas. Checked by the job, not by `validate()`: the
    /// nightly config checks each key alone before the table together.
    public var areaPopulationProblem: String? {
        areaPopulation != nil && areas == nil
            ? "--area-population needs --areas (the areas whose populations it names)"
            : nil
    }

    /// The grid (SPEC §18): `--grid`, or geohash at `--precision` (default 7).
    public var gridSystem: GridSystem { grid ?? .geohash(precision: precision ?? 7) }

    /// Grid worker threads: `--threads`, or every core.
    public var workerThreads: Int { threads ?? Concurrency.processorCount }

    /// The same settings with relative paths resolved by `resolve` (the config's folder).
    public func resolvingPaths(_ resolve: (String) -> String) -> ReportSettings {
        var copy = self
        copy.out = resolve(out)
        copy.areas = areas.map(resolve)
        copy.poi = poi.map(resolve)
        return copy
    }
}

extension BreakdownField: ExpressibleByArgument {
    public init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        self.init(name: argument)
    }
}
