import AreaWatchCore
import Testing

@testable import AreaWatchQuery

/// SPEC §16's table against a brute force over every pair of incidents, observed and permuted:
/// random data with repeated places, equal times, distances equal to band edges and time
/// differences equal to band ends.
@Suite("Near-repeat Knox table equals brute force (SPEC §16)")
struct KnoxTestTests {
    struct Data {
        var times: [Int64] = []
        var lat: [Double] = []
        var lon: [Double] = []
    }

    /// Incidents on a few places (so many share a location) plus scattered ones, times on a
    /// coarse lattice of half bands (so |Δt| hits w and K·w exactly) with some jitter; sorted into
    /// the canonical order (time, lat, lon).
    static func randomData(seed: UInt64, count: Int, bands: NearRepeatBands) -> Data {
        var rng = SplitMix64(seed: seed)
        let places = (0..<max(1, count / 6)).map { _ in
            (53.70 + rng.uniform(0, 0.02), -1.88 + rng.uniform(0, 0.03))
        }
        var rows: [(Int64, Double, Double)] = []
        for _ in 0..<count {
            let place = rng.bool(0.7) ? rng.pick(places) : (53.70 + rng.uniform(0, 0.02), -1.88 + rng.uniform(0, 0.03))
            let halfBands = Int64(rng.int(0...(bands.timeBands * 2 + 3)))
            let jitter = rng.bool(0.6) ? 0 : Int64(rng.int(-2...2))
            rows.append((1_500_000_000 + halfBands * bands.bandSeconds / 2 + jitter, place.0, place.1))
        }
        rows.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        return Data(times: rows.map(\.0), lat: rows.map(\.1), lon: rows.map(\.2))
    }

    /// Edges chosen among the data's own pairwise distances, so some pairs lie exactly on an edge.
    static func edgesOnPairs(_ d: Data, seed: UInt64, count: Int) -> [Double] {
        var rng = SplitMix64(seed: seed ^ 0xED6E)
        var distances: Set<Double> = []
        for _ in 0..<10_000 where distances.count < count * 4 {
            let i = rng.int(0...(d.times.count - 1)), j = rng.int(0...(d.times.count - 1))
            let (a, b) = (min(i, j), max(i, j))
            let dist = Haversine.distance(lat1: d.lat[a], lon1: d.lon[a], lat2: d.lat[b], lon2: d.lon[b])
            if dist > 0 && dist <= 5000 { distances.insert(dist) }
        }
        let sorted = distances.sorted()
        guard sorted.count >= count else { return (1...count).map { Double($0) * 100 } }
        return (0..<count).map { sorted[(sorted.count - 1) * ($0 + 1) / count] }
    }

    /// The table by definition: every pair i < j of the canonical order, distance with i first.
    static func bruteCounts(_ d: Data, times: [Int64], bands: NearRepeatBands) -> [Int] {
        var counts = [Int](repeating: 0, count: bands.cellCount)
        let last = bands.distanceEdges.last!
        for i in 0..<times.count {
            for j in (i + 1)..<max(i + 1, times.count) {
                let dist = Haversine.distance(lat1: d.lat[i], lon1: d.lon[i], lat2: d.lat[j], lon2: d.lon[j])
                let dt = abs(times[i] - times[j])
                guard dist <= last, dt <= bands.maxSeconds else { continue }
                let s = dist == 0 ? 0 : bands.distanceEdges.firstIndex { dist <= $0 }! + 1
                let k = dt == 0 ? 1 : Int((dt + bands.bandSeconds - 1) / bands.bandSeconds)
                counts[s * bands.timeBands + k - 1] += 1
            }
        }
        return counts
    }

    static func bruteTable(_ d: Data, bands: NearRepeatBands, permutations: Int, seed: UInt64)
        -> (observed: [Int], sums: [Int], atLeast: [Int])
    {
        let observed = bruteCounts(d, times: d.times, bands: bands)
        var sums = [Int](repeating: 0, count: bands.cellCount), atLeast = sums
        var generator = Xoshiro256StarStar(seed: seed)
        for _ in 0..<permutations {
            var shuffled = d.times
            generator.shuffle(&shuffled)
            let counts = bruteCounts(d, times: shuffled, bands: bands)
            for i in counts.indices {
                sums[i] += counts[i]
                if counts[i] >= observed[i] { atLeast[i] += 1 }
            }
        }
        return (observed, sums, atLeast)
    }

    @Test("observed, permuted sums and p-value counts, 1 and 3 threads", arguments: [UInt64(1), 2, 3, 4, 5])
    func equalsBruteForce(seed: UInt64) throws {
        let shapeRng = SplitMix64(seed: seed)
        var rng = shapeRng
        let days = rng.int(1...20), timeBands = rng.int(1...9)
        let provisional = NearRepeatBands(distanceEdges: [1], days: days, timeBands: timeBands)
        let data = Self.randomData(seed: seed, count: rng.int(40...160), bands: provisional)
        let edges = Self.edgesOnPairs(data, seed: seed, count: rng.int(1...4))
        let bands = NearRepeatBands(distanceEdges: edges, days: days, timeBands: timeBands)
        let permutations = 19
        let brute = Self.bruteTable(data, bands: bands, permutations: permutations, seed: seed)
        for threads in [1, 3] {
            let pairs = try #require(
                NearRepeatPairs.build(
                    latitudes: data.lat, longitudes: data.lon, edges: edges,
                    maxPairs: .max, threads: threads))
            let table = KnoxTest.run(
                times: data.times, pairs: pairs, bands: bands, permutations: permutations,
                seed: seed, threads: threads)
            #expect(table.cells.map(\.observed) == brute.observed, "seed \(seed), threads \(threads)")
            #expect(table.cells.map(\.permutedSum) == brute.sums, "seed \(seed), threads \(threads)")
            #expect(table.cells.map(\.atLeastObserved) == brute.atLeast, "seed \(seed), threads \(threads)")
        }
    }

    @Test("a pair's band by its chord equals the haversine's: at band edges, same and nearly the same places, ±180°")
    func chordBandsEqualHaversine() throws {
        var rng = SplitMix64(seed: 77)
        var lat: [Double] = [], lon: [Double] = []
        for _ in 0..<300 {
            let (a, o) = (53.7 + rng.uniform(0, 0.01), -1.86 + rng.uniform(0, 0.015))
            lat.append(a)
            lon.append(o)
            // The same place, and places 1e-9° and 1e-13° away.
            if rng.bool(0.2) { (lat, lon) = (lat + [a], lon + [o]) }
            if rng.bool(0.1) { (lat, lon) = (lat + [a + 1e-9], lon + [o]) }
            if rng.bool(0.1) { (lat, lon) = (lat + [a], lon + [o + 1e-13]) }
        }
        // The antimeridian: the same place written as 180 and −180.
        lat += [10, 10, 10.001]
        lon += [180, -180, -179.999]
        let data = Data(times: lat.map { _ in 0 }, lat: lat, lon: lon)
        for edges in [Self.edgesOnPairs(data, seed: 3, count: 4), [0.001, 0.5, 150], [5000]] {
            let finder = PairFinder(latitudes: lat, longitudes: lon, edges: edges)
            var differ = 0, coincident = 0
            for p in 0..<lat.count {
                for q in (p + 1)..<lat.count {
                    let band = finder.band(p, q)
                    if band != finder.haversineBand(p, q) { differ += 1 }
                    if band == 0 { coincident += 1 }
                }
            }
            #expect(differ == 0, "edges \(edges)")
            #expect(coincident > 0)
        }
    }

    @Test("every kernel this CPU runs, eight lanes, 32-bit tallies folded after every few pairs: the brute-force table")
    func foldedTallies() throws {
        let bands = NearRepeatBands(distanceEdges: [150, 300], days: 3, timeBands: 6)
        let data = Self.randomData(seed: 9, count: 150, bands: bands)
        let pairs = try #require(
            NearRepeatPairs.build(
                latitudes: data.lat, longitudes: data.lon, edges: bands.distanceEdges, maxPairs: .max, threads: 2))
        let earliest = try #require(data.times.min())
        // Eight assignments of the times, one per lane: the observed one and seven shuffles.
        var generator = Xoshiro256StarStar(seed: 5)
        let assignments =
            [data.times]
            + (1..<8).map { _ in
                var shuffled = data.times
                generator.shuffle(&shuffled)
                return shuffled
            }
        let brute = assignments.map { Self.bruteCounts(data, times: $0, bands: bands) }
        #expect(pairs.count > 100)
        for kernel in PairCounter.Kernel.available {
            for limit in [1, 5, 64, Int(UInt32.max)] {
                let counter = PairCounter(pairs: pairs, bands: bands, tallyLimit: limit, kernel: kernel)
                let counts = counter.count(counter.gather(assignments.map { $0.map { UInt32($0 - earliest) } }))
                #expect(counts == brute, "\(kernel), tally limit \(limit)")
            }
        }
    }

    @Test(
        "band edges: Δt = w is band 1, Δt = days × bands counts, d = an edge is the lower band, d = 0 only same place")
    func boundaryCases() throws {
        let bands = NearRepeatBands(distanceEdges: [100, 200], days: 1, timeBands: 2)
        #expect(bands.timeBand(seconds: 0) == 1)
        #expect(bands.timeBand(seconds: 86_400) == 1)
        #expect(bands.timeBand(seconds: 86_401) == 2)
        #expect(bands.timeBand(seconds: 172_800) == 2)
        #expect(bands.timeBand(seconds: 172_801) == nil)
        // Three incidents: two at one place a day apart, one 150-ish m away two days later.
        let lat = [53.7, 53.7, 53.7013], lon = [-1.86, -1.86, -1.86]
        let times: [Int64] = [0, 86_400, 172_800]
        let edge = Haversine.distance(lat1: lat[0], lon1: lon[0], lat2: lat[2], lon2: lon[2])
        let exact = NearRepeatBands(distanceEdges: [edge, 200], days: 1, timeBands: 2)
        let pairs = try #require(
            NearRepeatPairs.build(
                latitudes: lat, longitudes: lon, edges: exact.distanceEdges,
                maxPairs: 10, threads: 1))
        let table = KnoxTest.run(times: times, pairs: pairs, bands: exact, permutations: 9, seed: 0, threads: 1)
        let observed = Dictionary(
            uniqueKeysWithValues: table.cells.map { ([$0.distanceBand, $0.timeBand], $0.observed) })
        #expect(observed[[0, 1]] == 1) // same place, Δt = w: band 1
        #expect(observed[[1, 2]] == 1) // d exactly the first edge, Δt = 2w (= days × bands): counted
        #expect(observed[[1, 1]] == 1) // d exactly the first edge, Δt = w
        #expect(table.cells.map(\.observed).reduce(0, +) == 3)
    }

    @Test("fewer than two incidents: all zeros, expected 0, no ratio, p = 1")
    func tooFew() throws {
        let bands = NearRepeatBands(distanceEdges: [100], days: 14, timeBands: 4)
        for n in [0, 1] {
            let lat = Array(repeating: 53.7, count: n), lon = Array(repeating: -1.8, count: n)
            let pairs = try #require(
                NearRepeatPairs.build(
                    latitudes: lat, longitudes: lon, edges: [100], maxPairs: 0,
                    threads: 2))
            let table = KnoxTest.run(
                times: Array(repeating: 0, count: n), pairs: pairs, bands: bands,
                permutations: 99, seed: 1, threads: 2)
            for c in table.cells {
                #expect(c.observed == 0 && table.expected(c) == 0 && table.ratio(c) == nil && table.pValue(c) == 1)
            }
        }
    }

    @Test("month-only times are recognised: every time the first of a month at 00:00 UTC, and nothing else")
    func monthStarts() throws {
        let bands = NearRepeatBands(distanceEdges: [100], days: 14, timeBands: 4)
        let july = Int64(1_530_403_200), august = Int64(1_533_081_600) // 2018-07-01, 2018-08-01 00:00:00Z
        let cases: [([Int64], Bool)] = [
            ([july, august, july], true), ([july, august + 1], false),
            ([july, july + 86_400], false), ([], false)
        ]
        for (times, expected) in cases {
            let n = times.count
            let pairs = try #require(
                NearRepeatPairs.build(
                    latitudes: Array(repeating: 53.7, count: n),
                    longitudes: Array(repeating: -1.8, count: n), edges: [100],
                    maxPairs: 10, threads: 1))
            let table = KnoxTest.run(
                times: times.sorted(), pairs: pairs, bands: bands, permutations: 9, seed: 1, threads: 1)
            #expect(table.timesAreMonthStarts == expected, "\(times)")
        }
    }

    @Test("the pair bound: refused above maxPairs, with the count")
    func pairBound() {
        let lat = Array(repeating: 53.7, count: 50), lon = Array(repeating: -1.8, count: 50)
        var seen = 0
        let pairs = NearRepeatPairs.build(
            latitudes: lat, longitudes: lon, edges: [10], maxPairs: 1_224, threads: 2,
            counted: { seen = $0 })
        #expect(pairs == nil)
        #expect(seen == 1_225)
        #expect(NearRepeatPairs.build(latitudes: lat, longitudes: lon, edges: [10], maxPairs: 1_225, threads: 2) != nil)
    }
}

private extension SplitMix64 {
    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double { low + unit() * (high - low) }
    mutating func bool(_ probability: Double) -> Bool { unit() < probability }
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }
}
