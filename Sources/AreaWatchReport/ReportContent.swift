import AreaWatchCore
import AreaWatchQuery

/// One input file as the summary reports it.
public struct InputSummary: Sendable, Equatable {
    public var path: String
    public var sha256: String
    public var format: String
    public var records: Int
    public var accepted: Int
    public var inserted: Int
    public var updated: Int
    public var duplicates: Int
    public var rejected: Int
    public var rejectsByReason: [String: Int]
    /// Already ingested (same SHA-256): not read again.
    public var skipped: Bool

    public init(
        path: String, sha256: String, format: String, records: Int, accepted: Int, inserted: Int,
        updated: Int, duplicates: Int, rejected: Int, rejectsByReason: [String: Int], skipped: Bool
    ) {
        self.path = path
        self.sha256 = sha256
        self.format = format
        self.records = records
        self.accepted = accepted
        self.inserted = inserted
        self.updated = updated
        self.duplicates = duplicates
        self.rejected = rejected
        self.rejectsByReason = rejectsByReason
        self.skipped = skipped
    }
}

/// Where the rejects of a report's inputs are and how many each file had, by SPEC §3 reason
/// (summary.json `rejects`): files without a reject are not listed.
public struct RejectsSummary: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        public var path: String
        public var sha256: String
        public var byReason: [String: Int]

        public init(path: String, sha256: String, byReason: [String: Int]) {
            self.path = path
            self.sha256 = sha256
            self.byReason = byReason
        }

        public var rejected: Int { byReason.values.reduce(0, +) }
    }

    /// The rejects file; nil when none was written (`report --input` without `--rejects`, or a
    /// store whose rejects were never written from its table).
    public var path: String?
    public var files: [File]

    public init(path: String?, files: [File]) {
        self.path = path
        self.files = files
    }
}

/// `--area-population` (SPEC §17): the property read, residents per rate, each area's population.
public struct AreaPopulations: Sendable {
    public var property: String
    public var ratePer: Double
    /// In the order of the areas.
    public var values: [AreaPopulation]

    public init(property: String, ratePer: Double, values: [AreaPopulation]) {
        self.property = property
        self.ratePer = ratePer
        self.values = values
    }
}

/// Named areas with their results and the property that names them.
public struct AreaReport: Sendable {
    public var result: AreaResult
    public var areas: [NamedArea]
    public var idProperty: String
    /// Populations for rates per resident (SPEC §17); nil without `--area-population`.
    public var population: AreaPopulations? = nil

    public init(result: AreaResult, areas: [NamedArea], idProperty: String) {
        self.result = result
        self.areas = areas
        self.idProperty = idProperty
    }

    /// SPEC §17 per area, from the counts `disclosure` shows (the smoothing sees no withheld
    /// count); nil without `--area-population`.
    public func rates(_ disclosure: Disclosure) -> [AreaRate]? {
        guard let population else { return nil }
        let stats = result.areas
        return AreaRates.compute(
            populations: population.values, current: stats.map(\.nCurrent),
            previous: stats.map(\.nPrevious), ratePer: population.ratePer,
            currentShown: stats.map { disclosure.show($0.nCurrent) != nil },
            previousShown: stats.map { disclosure.show($0.nPrevious) != nil })
    }
}

/// Everything a report folder is made of: the query results plus what produced them.
public struct ReportContent: Sendable {
    public var parameters: QueryParameters
    public var grid: GridResult
    public var totals: Totals
    /// Tiles for these zooms; nil writes none.
    public var tileZooms: ClosedRange<Int>?
    /// The kinds of file written (`--formats`, SPEC §19); summary.json is always written.
    public var formats = OutputFormats.standard
    /// The report folder's public URL (`--public-url`, SPEC §19): tilejson.json's tile URLs are
    /// absolute under it; nil keeps them relative.
    public var publicURL: String?
    public var disclosure: Disclosure
    public var areas: AreaReport?
    public var pointsOfInterest: [(poi: PointOfInterest, answer: PointAnswer)]?
    public var breakdown: BreakdownResult?
    /// Where the incidents came from: `store` with the store path, or `files`.
    public var sourceKind: String
    public var sourcePath: String?
    public var inputs: [InputSummary]
    /// Stage name → seconds, in order.
    public var timings: [(String, Double)]
    public var attribution: String
    public var engineVersion: String
    /// SPEC §12's α (`--fdr`): a change is a `rise` or `fall` when its q-value is at most this.
    public var fdr = 0.05
    /// SPEC §12 per output row; the report writer fills it from the public content.
    public var changes: ReportChanges?
    /// Emerging hot spots (`--ehsa`, SPEC §13); nil when not asked for.
    public var ehsa: EHSAReport? = nil
    /// The near-repeat analysis (`--near-repeat`, SPEC §16); nil when not asked for.
    public var nearRepeat: NearRepeatReport? = nil
    /// Where the inputs' rejects are (summary.json `rejects`).
    public var rejects = RejectsSummary(path: nil, files: [])
    /// The data at any time, after the filters (SPEC §7.1, §8): the tiles' `data_bounds` and the
    /// empty-windows banner come from it. `.unknown` for content made without it.
    public var extent: Recorded<DataExtent> = .unknown

    /// The box the tiles carry for `coverage`.
    public var dataBounds: TileSetMeta.DataBounds {
        guard case .known(let extent) = extent else { return .unknown }
        return .known(extent?.publishedBox)
    }

    /// SPEC §8: the classes saturate when at least this share of the written cells is `dangerous`.
    public static let saturatedShare = 0.8

    /// SPEC §8's warning when the classes saturate, from the grid as written (the public one).
    public static func saturationWarning(_ grid: GridResult) -> String? {
        let cells = grid.cells.count
        let dangerous = grid.classCounts[.dangerous] ?? 0
        guard cells > 0, Double(dangerous) >= saturatedShare * Double(cells) else { return nil }
        return "classes saturate here: \(HTMLText.grouped(dangerous)) of the \(HTMLText.grouped(cells)) cells "
            + "(\(NumberFormat.fixed(Double(dangerous) / Double(cells) * 100, decimals: 1))%) are classed dangerous; "
            + "use the change and hot-spot sections, or `--thresholds`"
    }

    /// SPEC §7's warning when both windows are empty while the data holds incidents.
    public var emptyWindowsWarning: String? {
        guard case .known(let data) = extent else { return nil }
        return data?.emptyWindowsWarning(current: totals.current, previous: totals.previous, asOf: parameters.asOf)
    }

    public init(
        parameters: QueryParameters, grid: GridResult, totals: Totals, tileZooms: ClosedRange<Int>?,
        disclosure: Disclosure, areas: AreaReport?, pointsOfInterest: [(poi: PointOfInterest, answer: PointAnswer)]?,
        breakdown: BreakdownResult?, sourceKind: String, sourcePath: String?, inputs: [InputSummary],
        timings: [(String, Double)], attribution: String, engineVersion: String
    ) {
        self.parameters = parameters
        self.grid = grid
        self.totals = totals
        self.tileZooms = tileZooms
        self.disclosure = disclosure
        self.areas = areas
        self.pointsOfInterest = pointsOfInterest
        self.breakdown = breakdown
        self.sourceKind = sourceKind
        self.sourcePath = sourcePath
        self.inputs = inputs
        self.timings = timings
        self.attribution = attribution
        self.engineVersion = engineVersion
    }

    /// Rejects of all inputs by SPEC reason, every reason listed.
    public var rejectsByReason: [(String, Int)] {
        let reasons = [
            "malformed_record", "missing_coordinates", "invalid_coordinates", "null_island", "missing_time",
            "invalid_time"
        ]
        return reasons.map { reason in (reason, inputs.reduce(0) { $0 + ($1.rejectsByReason[reason] ?? 0) }) }
    }
}
