import AreaWatchCore
import AreaWatchQuery

/// The near-repeat analysis of a report (SPEC §16): its parameters and the Knox table.
public struct NearRepeatReport: Sendable {
    public var parameters: NearRepeatParameters
    public var table: KnoxTable

    public init(parameters: NearRepeatParameters, table: KnoxTable) {
        self.parameters = parameters
        self.table = table
    }

    /// (from, to) in metres of distance band `s`: band 0 is the same location, `0,0`.
    func distanceRange(_ s: Int) -> (Double, Double) {
        let edges = parameters.bands.distanceEdges
        return s == 0 ? (0, 0) : (s == 1 ? 0 : edges[s - 2], edges[s - 1])
    }

    /// (from, to) in days of time band `k` (1-based).
    func dayRange(_ k: Int) -> (Int, Int) { ((k - 1) * parameters.bands.days, k * parameters.bands.days) }

    var significantCells: Int { table.cells.filter { table.isSignificant($0, alpha: parameters.alpha) }.count }
}

/// nearrepeat.csv and summary.json's `near_repeat` (SPEC §16). The table holds counts of pairs in
/// distance and time bands over the whole area, never a place: it is written whole whatever
/// `--min-cell-count` is (docs/DECISIONS.md).
enum NearRepeatFiles {
    static let header = "d_from_m,d_to_m,t_from_days,t_to_days,observed,expected,knox_ratio,p_value,significant\n"

    /// One row per (distance band, time band), distance band first; numbers as `NumberFormat.compact`
    /// (integers without a fractional part, others in their shortest round-trip form).
    static func csv(_ r: NearRepeatReport) -> String {
        var out = header
        for c in r.table.cells {
            let (dFrom, dTo) = r.distanceRange(c.distanceBand)
            let (tFrom, tTo) = r.dayRange(c.timeBand)
            let fields = [
                NumberFormat.compact(dFrom), NumberFormat.compact(dTo), String(tFrom), String(tTo), String(c.observed),
                NumberFormat.compact(r.table.expected(c)), r.table.ratio(c).map(NumberFormat.compact) ?? "",
                NumberFormat.compact(r.table.pValue(c)),
                r.table.isSignificant(c, alpha: r.parameters.alpha) ? "true" : "false"
            ]
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    static func write(_ r: NearRepeatReport, to path: String) throws {
        try BufferedFile.write(csv(r), to: path)
    }

    static func summary(_ r: NearRepeatReport) -> JSONValue {
        let p = r.parameters
        return .object([
            ("distances_m", .array(p.bands.distanceEdges.map { .number($0) })),
            ("days", .int(p.bands.days)), ("time_bands", .int(p.bands.timeBands)),
            ("permutations", .int(p.permutations)), ("seed", .string(String(p.seed))),
            ("alpha", .number(p.alpha)), ("incidents", .int(r.table.incidents)), ("pairs", .int(r.table.pairs)),
            ("significant_cells", .int(r.significantCells))
        ])
    }
}
