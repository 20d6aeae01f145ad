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
    public static func run(times: [Int64], pairs: NearRepeatPairs, bands: NearRepeatBands, permutations: Int,
                           seed: UInt64, threads: Int) -> KnoxTable {
        precondition(times.count == pairs.incidentCount)
        let counter = PairCounter(pairs: pairs, bands: bands)
        let base = times.first ?? 0
        let canonical = times.map { $0 - base }
        let observed = counter.count(spatialTimes: counter.gather(canonical))
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
                cells.append(KnoxCell(distanceBand: s, timeBand: k, observed: observed[i], permutedSum: sums[i],
                                      atLeastObserved: atLeast[i]))
            }
        }
        return KnoxTable(bands: bands, permutations: permutations, incidents: times.count, pairs: pairs.count,
                         cells: cells)
    }
}

/// Counts the pairs of each (distance band, time band) cell for one assignment of times.
struct PairCounter: Sendable {
    let pairs: NearRepeatPairs
    let bands: NearRepeatBands
    /// ⌈2⁶⁴ / w⌉: the high word of n · magic is ⌊n / w⌋ exactly for every n < 2³² (w < 2³²).
    let magic: UInt64
    /// Columns per distance band: time bands 1…K at 1…K, below them nothing, K + 1 for "too far".
    let columns: Int

    init(pairs: NearRepeatPairs, bands: NearRepeatBands) {
        self.pairs = pairs
        self.bands = bands
        let w = UInt64(bands.bandSeconds)
        magic = UInt64.max / w + 1
        columns = bands.timeBands + 2
    }

    /// Times in leaf order from times in canonical order.
    func gather(_ canonical: [Int64]) -> [Int64] {
        pairs.canonicalIndex.map { canonical[Int($0)] }
    }

    /// The table's counts, distance band first, for times given in leaf order.
    func count(spatialTimes t: [Int64]) -> [Int] {
        var raw = [Int](repeating: 0, count: bands.distanceBandCount * columns)
        let w = UInt64(bands.bandSeconds)
        // Clamped to one past the last band, so the division below stays under 2³².
        let clamp = UInt64(bands.maxSeconds) + 1
        t.withUnsafeBufferPointer { times in
            pairs.partner.withUnsafeBufferPointer { partner in
                pairs.band.withUnsafeBufferPointer { band in
                    raw.withUnsafeMutableBufferPointer { histogram in
                        for p in 0..<times.count {
                            let tp = times[p]
                            for e in pairs.offsets[p]..<pairs.offsets[p + 1] {
                                let dt = min((times[Int(partner[e])] - tp).magnitude, clamp)
                                let k = max(1, Int(truncatingIfNeeded: (dt + w - 1).multipliedFullWidth(by: magic).high))
                                histogram[Int(band[e]) * columns + k] += 1
                            }
                        }
                    }
                }
            }
        }
        var counts = [Int](repeating: 0, count: bands.cellCount)
        for s in 0..<bands.distanceBandCount {
            for k in 1...bands.timeBands { counts[s * bands.timeBands + k - 1] = raw[s * columns + k] }
        }
        return counts
    }

    /// The sums and the at-least-observed counts of the permutations in `range`: the generator is
    /// run from the seed through every earlier permutation's draws, so each worker shuffles
    /// exactly what one sequential run would.
    func permuted(_ canonical: [Int64], seed: UInt64, permutations range: Range<Int>,
                  observed: [Int]) -> (sums: [Int], atLeast: [Int]) {
        var generator = Xoshiro256StarStar(seed: seed)
        let n = canonical.count
        if n > 1 {
            for _ in 0..<(range.lowerBound * (n - 1)) { _ = generator.next() }
        }
        var sums = [Int](repeating: 0, count: bands.cellCount)
        var atLeast = [Int](repeating: 0, count: bands.cellCount)
        for _ in range {
            var shuffled = canonical
            generator.shuffle(&shuffled)
            let counts = count(spatialTimes: gather(shuffled))
            for i in 0..<counts.count {
                sums[i] += counts[i]
                if counts[i] >= observed[i] { atLeast[i] += 1 }
            }
        }
        return (sums, atLeast)
    }
}
