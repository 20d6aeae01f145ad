import AreaWatchCore

/// The bands of a near-repeat table (SPEC §16): distance band 0 is the same location (d = 0),
/// band k is (e[k−1], e[k]] with e[0] = 0; time band 1 is [0, w], band k is ((k−1)·w, k·w] with
/// w = days × 86,400 s.
public struct NearRepeatBands: Sendable, Equatable {
    /// Upper edges in metres, strictly increasing, each in (0, 5000].
    public let distanceEdges: [Double]
    public let days: Int
    public let timeBands: Int

    public init(distanceEdges: [Double], days: Int, timeBands: Int) {
        self.distanceEdges = distanceEdges
        self.days = days
        self.timeBands = timeBands
    }

    public var distanceBandCount: Int { distanceEdges.count + 1 }
    public var bandSeconds: Int64 { Int64(days) * 86_400 }
    /// The largest |Δt| a pair may have to be counted.
    public var maxSeconds: Int64 { bandSeconds * Int64(timeBands) }
    public var cellCount: Int { distanceBandCount * timeBands }

    /// The time band (1…timeBands) of |Δt| in seconds, or nil when it is beyond the last band.
    public func timeBand(seconds dt: Int64) -> Int? {
        guard dt <= maxSeconds else { return nil }
        return dt == 0 ? 1 : Int((dt + bandSeconds - 1) / bandSeconds)
    }
}

/// One cell of the table: pairs in distance band `distanceBand` and time band `timeBand`.
public struct KnoxCell: Sendable, Equatable {
    public var distanceBand: Int
    public var timeBand: Int
    public var observed: Int
    /// Sum of the cell's counts over the permutations.
    public var permutedSum: Int
    /// Permutations whose count is at least `observed`.
    public var atLeastObserved: Int
}

/// The Knox table and its permutation test (SPEC §16).
public struct KnoxTable: Sendable {
    public let bands: NearRepeatBands
    public let permutations: Int
    public let incidents: Int
    public let pairs: Int
    /// Distance band first, then time band.
    public let cells: [KnoxCell]
    /// Every incident's time is midnight UTC on the first of a month, as month-only sources (such
    /// as data.police.uk's `Month`) give it: days apart are then months apart, and the table says
    /// nothing about days. False without incidents.
    public let timesAreMonthStarts: Bool

    public func expected(_ c: KnoxCell) -> Double {
        permutations == 0 ? 0 : Double(c.permutedSum) / Double(permutations)
    }

    /// Observed / expected; nil when expected is 0.
    public func ratio(_ c: KnoxCell) -> Double? {
        let e = expected(c)
        return e == 0 ? nil : Double(c.observed) / e
    }

    public func pValue(_ c: KnoxCell) -> Double {
        Double(1 + c.atLeastObserved) / Double(permutations + 1)
    }

    public func isSignificant(_ c: KnoxCell, alpha: Double) -> Bool {
        guard let r = ratio(c) else { return false }
        return pValue(c) <= alpha && r > 1
    }
}

public enum KnoxTest {
    /// Runs the test over `times` (epoch seconds, canonical order) and `pairs` (built from the same
    /// incidents): the observed table, then `permutations` shuffles of the times drawn from
    /// xoshiro256** seeded with `seed`, counted on up to `threads` cores. The result does not
    /// depend on `threads`.
    public static func run(
        times: [Int64], pairs: NearRepeatPairs, bands: NearRepeatBands, permutations: Int,
        seed: UInt64, threads: Int
    ) -> KnoxTable {
        precondition(times.count == pairs.incidentCount)
        let earliest = times.min() ?? 0
        let span = (times.max() ?? 0) - earliest
        precondition(span < 1 << 31, "near-repeat times must lie within 68 years of each other")
        let canonical = times.map { UInt32($0 - earliest) }
        let counter = PairCounter(pairs: pairs, bands: bands)
        let observed = counter.count(counter.gather([canonical]))[0]
        let workers = max(1, min(threads, permutations))
        let perWorker = Concurrency.map(workers) { w in
            let range = (permutations * w / workers)..<(permutations * (w + 1) / workers)
            return counter.permuted(canonical, seed: seed, permutations: range, observed: observed)
        }
        var sums = [Int](repeating: 0, count: bands.cellCount)
        var atLeast = [Int](repeating: 0, count: bands.cellCount)
        for part in perWorker {
            for i in 0..<bands.cellCount {
                sums[i] += part.sums[i]
                atLeast[i] += part.atLeast[i]
            }
        }
        var cells: [KnoxCell] = []
        for s in 0..<bands.distanceBandCount {
            for k in 1...bands.timeBands {
                let i = s * bands.timeBands + (k - 1)
                cells.append(
                    KnoxCell(
                        distanceBand: s, timeBand: k, observed: observed[i], permutedSum: sums[i],
                        atLeastObserved: atLeast[i]))
            }
        }
        return KnoxTable(
            bands: bands, permutations: permutations, incidents: times.count, pairs: pairs.count,
            cells: cells, timesAreMonthStarts: Self.areMonthStarts(times))
    }
}

extension KnoxTest {
    /// True when every time is 00:00:00 UTC on the first day of a month (and there is one).
    static func areMonthStarts(_ times: [Int64]) -> Bool {
        !times.isEmpty
            && times.allSatisfy { t in
                let c = UTCTime.civil(t)
                return c.day == 1 && c.hour == 0 && c.minute == 0 && c.second == 0
            }
    }
}
