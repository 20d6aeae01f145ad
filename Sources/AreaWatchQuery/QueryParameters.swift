import AreaWatchCore

/// Everything a query depends on besides the incidents (SPEC §7). Written into every output so
/// a run can be reproduced.
public struct QueryParameters: Sendable, Hashable {
    /// The as-of instant T, UTC epoch seconds.
    public var asOf: Int64
    /// Metres.
    public var radius: Double
    public var thresholds: Thresholds
    /// `--category` (repeatable): keep only these categories; empty keeps all.
    public var categories: Set<String>
    /// `--handled true|false`: keep only incidents with this handled value (unknown matches neither).
    public var handled: Bool?

    public init(
        asOf: Int64, radius: Double = 1000, thresholds: Thresholds = .standard,
        categories: Set<String> = [], handled: Bool? = nil
    ) {
        self.asOf = asOf
        self.radius = radius
        self.thresholds = thresholds
        self.categories = categories
        self.handled = handled
    }

    public var windows: TimeWindows { TimeWindows(asOf: asOf) }

    /// Whether incident `i` of the columns passes the filters.
    @inline(__always)
    func passes(_ columns: IncidentColumns, _ i: Int, allowedCategories: [Bool]?) -> Bool {
        if let allowedCategories {
            let c = columns.category[i]
            guard c >= 0, allowedCategories[Int(c)] else { return false }
        }
        if let handled {
            guard columns.handled[i] == (handled ? 1 : 0) else { return false }
        }
        return true
    }

    /// Per category index of the columns: whether it is allowed (nil when all are).
    func allowedCategories(in columns: IncidentColumns) -> [Bool]? {
        guard !categories.isEmpty else { return nil }
        return columns.categories.map { categories.contains($0) }
    }
}
