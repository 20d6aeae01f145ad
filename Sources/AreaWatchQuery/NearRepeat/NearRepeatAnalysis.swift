import AreaWatchCore

/// What `--near-repeat` asks for (SPEC §16).
public struct NearRepeatParameters: Sendable, Equatable {
    public var bands: NearRepeatBands
    public var permutations: Int
    public var seed: UInt64
    public var alpha: Double
    public var maxPairs: Int

    public static let defaultEdges: [Double] = [100, 200, 300, 400]

    public init(bands: NearRepeatBands, permutations: Int, seed: UInt64, alpha: Double, maxPairs: Int) {
        self.bands = bands
        self.permutations = permutations
        self.seed = seed
        self.alpha = alpha
        self.maxPairs = maxPairs
    }

    /// The first SPEC §16 range a value is outside of, as the option's message; nil when valid.
    public var problem: String? {
        let edges = bands.distanceEdges
        if edges.isEmpty || edges.count > 20 { return "--nr-distances must list 1 to 20 band edges" }
        if edges.contains(where: { !($0 > 0 && $0 <= 5000) }) {
            return "--nr-distances: each edge must be within (0, 5000] m"
        }
        if zip(edges, edges.dropFirst()).contains(where: { $0 >= $1 }) {
            return "--nr-distances must be strictly increasing"
        }
        if !(1...365).contains(bands.days) { return "--nr-days must be within 1…365" }
        if !(1...52).contains(bands.timeBands) { return "--nr-time-bands must be within 1…52" }
        if bands.days * bands.timeBands > 730 { return "--nr-days × --nr-time-bands must be at most 730 days" }
        if !(9...9999).contains(permutations) { return "--nr-permutations must be within 9…9999" }
        if !(alpha > 0 && alpha < 1) { return "--nr-alpha must be within (0, 1)" }
        if maxPairs < 1 { return "--nr-max-pairs must be at least 1" }
        return nil
    }
}

public enum NearRepeatAnalysis {
    public enum Outcome: Sendable {
        case table(KnoxTable)
        /// More spatial pairs than `maxPairs` (SPEC §8): the count, found before any pair was stored.
        case tooManyPairs(Int)
    }

    /// The test over the index's current-window incidents (those passing the filters, each stored
    /// key once), in the canonical order: ascending (time, lat, lon). `time` is the column the
    /// index was built from (its `sourceIndex` points into it).
    public static func run(
        _ index: IncidentIndex, time: [Int64], parameters: NearRepeatParameters,
        threads: Int
    ) -> Outcome {
        var rows: [(time: Int64, lat: Double, lon: Double)] = []
        let current = WindowMembership.current.rawValue
        for i in 0..<index.count where index.membership[i] == current {
            rows.append((time[Int(index.sourceIndex[i])], index.lat[i], index.lon[i]))
        }
        // Ties (equal time and place) are interchangeable: no number depends on their order.
        rows.sort { ($0.time, $0.lat, $0.lon) < ($1.time, $1.lat, $1.lon) }
        var counted = 0
        guard
            let pairs = NearRepeatPairs.build(
                latitudes: rows.map(\.lat), longitudes: rows.map(\.lon),
                edges: parameters.bands.distanceEdges, maxPairs: parameters.maxPairs,
                threads: threads, counted: { counted = $0 })
        else {
            return .tooManyPairs(counted)
        }
        return .table(
            KnoxTest.run(
                times: rows.map(\.time), pairs: pairs, bands: parameters.bands,
                permutations: parameters.permutations, seed: parameters.seed, threads: threads))
    }
}
