import Testing

@testable import AreaWatchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func instant(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Int64 {
    UTCTime.epochSeconds(CivilTime(year: y, month: m, day: d, hour: h, minute: mi, second: s))
}

/// Gi* straight from SPEC §13, independently of the engine's bookkeeping: neighbours found by
/// comparing every pair of locations' lattice rows and columns (longitude wrapping), sums and W
/// by looping over the neighbour bins, BH from its definition.
private func referenceGiStar(_ cube: HotSpotCube, alpha: Double)
    -> (z: [[Double]], q: [[Double]], hot: [[Bool]], cold: [[Bool]])
{
    let precision = cube.grid.geohashPrecision!
    let cells = cube.cells.map { GeohashCell(prefix: $0, precision: precision) }
    let columns = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
    func adjacent(_ a: GeohashCell, _ b: GeohashCell) -> Bool {
        let dr = abs(Int64(a.latIndex) - Int64(b.latIndex))
        var dc = abs(Int64(a.lonIndex) - Int64(b.lonIndex))
        dc = min(dc, columns - dc)
        return dr <= 1 && dc <= 1
    }
    return referenceGiStar(cube, alpha: alpha) { adjacent(cells[$0], cells[$1]) }
}

/// Gi* of SPEC §13 for any grid: `adjacent(l, k)` says whether location k is in l's spatial
/// neighbourhood (l itself included); everything else straight from the definitions.
func referenceGiStar(_ cube: HotSpotCube, alpha: Double, adjacent: (Int, Int) -> Bool)
    -> (z: [[Double]], q: [[Double]], hot: [[Bool]], cold: [[Bool]])
{
    let N = cube.steps, L = cube.cells.count, n = Double(N * L)
    let x = { (l: Int, s: Int) in Double(cube.counts[l * N + s]) }
    var sum = 0.0, squares = 0.0
    for l in 0..<L {
        for s in 0..<N {
            sum += x(l, s)
            squares += x(l, s) * x(l, s)
        }
    }
    let mean = sum / n, sd = (squares / n - mean * mean).squareRoot()
    var z = [[Double]](repeating: [Double](repeating: 0, count: N), count: L)
    for l in 0..<L {
        let near = (0..<L).filter { adjacent(l, $0) }
        for s in 0..<N {
            var total = 0.0, w = 0.0
            for k in near {
                for t in [s - 1, s] where t >= 0 {
                    total += x(k, t)
                    w += 1
                }
            }
            z[l][s] = sd == 0 ? 0 : (total - mean * w) / (sd * ((n * w - w * w) / (n - 1)).squareRoot())
        }
    }
    let p = z.flatMap { $0 }.map { erfc(abs($0) / 2.0.squareRoot()) }
    let order = p.indices.sorted { p[$0] < p[$1] }
    var qFlat = [Double](repeating: 0, count: p.count)
    for (rank, i) in order.enumerated() {
        var best = 1.0
        for j in rank..<order.count { best = min(best, p[order[j]] * n / Double(j + 1)) }
        qFlat[i] = best
    }
    let q = (0..<L).map { Array(qFlat[($0 * N)..<($0 * N + N)]) }
    let hot = (0..<L).map { l in (0..<N).map { q[l][$0] <= alpha && z[l][$0] > 0 } }
    let cold = (0..<L).map { l in (0..<N).map { q[l][$0] <= alpha && z[l][$0] < 0 } }
    return (z, q, hot, cold)
}

/// A G×G block of cells at a precision around a location, ascending by prefix, with a map from
/// (row, column) in the block to the location index.
private func block(_ size: Int, lat: Double, lon: Double, precision: Int) -> (cells: [UInt64], index: [[Int]]) {
    let origin = GeohashCell(lat: lat, lon: lon, precision: precision)
    var grid = [[UInt64]](repeating: [], count: size)
    for r in 0..<size { for c in 0..<size { grid[r].append(origin.offset(rows: r, columns: c)!.prefix) } }
    let sorted = grid.flatMap { $0 }.sorted()
    let index = grid.map { row in row.map { sorted.firstIndex(of: $0)! } }
    return (sorted, index)
}

@Suite struct EmergingHotSpotsTests {
    @Test func monthSubtractionClampsTheDay() {
        #expect(UTCTime.subtractingMonths(1, from: instant(2024, 3, 31, 13, 5, 9)) == instant(2024, 2, 29, 13, 5, 9))
        #expect(UTCTime.subtractingMonths(1, from: instant(2023, 3, 31)) == instant(2023, 2, 28))
        #expect(UTCTime.subtractingMonths(13, from: instant(2025, 3, 31)) == instant(2024, 2, 29))
        #expect(UTCTime.subtractingMonths(1, from: instant(2024, 7, 31)) == instant(2024, 6, 30))
        #expect(
            UTCTime.subtractingMonths(1, from: instant(2024, 1, 15, 23, 59, 59)) == instant(2023, 12, 15, 23, 59, 59))
        #expect(UTCTime.subtractingMonths(24, from: instant(2024, 2, 29)) == instant(2022, 2, 28))
        #expect(UTCTime.subtractingMonths(0, from: instant(2024, 2, 29)) == instant(2024, 2, 29))
        #expect(UTCTime.subtractingMonths(12, from: instant(1, 12, 31)) == instant(0, 12, 31))
    }

    /// Each bound from T itself: T = 2024-03-31 gives steps ending 02-29, 01-31, 12-31, 11-30, …
    @Test func stepsAreHalfOpenFromTheLeft() {
        let t = instant(2024, 3, 31, 12)
        let steps = MonthlySteps(asOf: t, count: 10)
        #expect(steps.bounds[10] == t)
        #expect(steps.bounds[9] == instant(2024, 2, 29, 12))
        #expect(steps.bounds[8] == instant(2024, 1, 31, 12))
        #expect(steps.bounds[6] == instant(2023, 11, 30, 12))
        #expect(steps.bounds[0] == instant(2023, 5, 31, 12))
        #expect(steps.step(of: t) == 10)
        #expect(steps.step(of: t + 1) == nil)
        #expect(steps.step(of: instant(2024, 2, 29, 12)) == 9) // a bound closes the earlier step
        #expect(steps.step(of: instant(2024, 2, 29, 12) + 1) == 10)
        #expect(steps.step(of: instant(2023, 5, 31, 12)) == nil) // T − N months is outside
        #expect(steps.step(of: instant(2023, 5, 31, 12) + 1) == 1)
        var rng = SplitMix64(seed: testSeed(0x57E9))
        for _ in 0..<2000 {
            let u = steps.bounds[0] - 86_400 + Int64(rng.int(0...(Int(t - steps.bounds[0]) + 2 * 86_400)))
            let linear = (1...10).first { u > steps.bounds[$0 - 1] && u <= steps.bounds[$0] }
            #expect(steps.step(of: u) == linear)
        }
    }

    @Test func neighboursCrossTheAntimeridianAndStopAtThePoles() {
        let p = 3
        let east = GeohashCell(lat: 10, lon: 179.9, precision: p)
        let west = GeohashCell(lat: 10, lon: -179.9, precision: p)
        let westNorth = west.offset(rows: 1, columns: 0)!
        let far = GeohashCell(lat: 10, lon: 0, precision: p)
        let pole = GeohashCell(lat: 89.99, lon: 179.9, precision: p)
        let poleWest = GeohashCell(lat: 89.99, lon: -179.9, precision: p)
        let cells = [east, west, westNorth, far, pole, poleWest].map(\.prefix).sorted()
        let cube = HotSpotCube(
            grid: .geohash(precision: p), steps: 10, cells: cells,
            counts: [Int32](repeating: 1, count: cells.count * 10))
        let table = cube.neighbours()
        func of(_ cell: GeohashCell) -> Set<UInt64> {
            let l = cube.location(of: cell.prefix)!
            return Set(table[(l * 8)..<(l * 8 + 8)].filter { $0 >= 0 }.map { cells[Int($0)] })
        }
        #expect(of(east) == [west.prefix, westNorth.prefix])
        #expect(of(west) == [east.prefix, westNorth.prefix])
        #expect(of(far).isEmpty)
        #expect(of(pole) == [poleWest.prefix])
        #expect(pole.neighbours.count == 5) // nothing beyond the pole
    }

    /// Seeded cubes (clustered and scattered cells, many zeros, some across the antimeridian)
    /// against the reference: z and q per bin, hot and cold sets, and the labels they give.
    @Test func giStarMatchesReference() {
        var rng = SplitMix64(seed: testSeed(0x61))
        for round in 0..<12 {
            let precision = rng.pick([4, 5, 6])
            let steps = rng.int(10...16)
            let lon = rng.bool(0.25) ? 179.95 : rng.uniform(-10, 10)
            var chosen = Set<UInt64>()
            let origin = GeohashCell(lat: rng.uniform(-60, 60), lon: lon, precision: precision)
            for _ in 0..<rng.int(5...60) {
                chosen.insert(origin.offset(rows: rng.int(-4...4), columns: rng.int(-4...4))!.prefix)
            }
            let cells = chosen.sorted()
            var counts: [Int32] = []
            for _ in cells {
                let rate = rng.pick([0.2, 1, 4, 15])
                for _ in 0..<steps { counts.append(Int32(rng.bool(0.3) ? 0 : Int(rng.uniform(0, 2 * rate)))) }
            }
            let cube = HotSpotCube(grid: .geohash(precision: precision), steps: steps, cells: cells, counts: counts)
            let alpha = rng.pick([0.05, 0.1, 0.2])
            let (locations, summary) = EmergingHotSpots.analyse(cube, alpha: alpha)
            let reference = referenceGiStar(cube, alpha: alpha)
            #expect(summary.bins == cells.count * steps)
            for (l, location) in locations.enumerated() {
                #expect(location.cell.prefix == cells[l])
                for s in 0..<steps {
                    let dz = abs(location.z[s] - reference.z[l][s]), dq = abs(location.q[s] - reference.q[l][s])
                    #expect(
                        dz <= 1e-9 && dq <= 1e-12,
                        "round \(round) l \(l) s \(s): z \(location.z[s]) vs \(reference.z[l][s])")
                }
                #expect(location.hotSteps == reference.hot[l].filter { $0 }.count)
                #expect(location.coldSteps == reference.cold[l].filter { $0 }.count)
                let trend = MannKendall(location.z)
                #expect(location.trend == trend)
                #expect(
                    location.label
                        == HotSpotLabel.classify(
                            hot: reference.hot[l], cold: reference.cold[l],
                            trendZ: trend.z, trendP: trend.p))
                #expect(location.incidents == (0..<steps).reduce(0) { $0 + Int(counts[l * steps + $1]) })
            }
        }
    }

    /// Equal (neighbourhood sum, W) give bit-equal z: MK sees them as ties.
    @Test func equalNeighbourhoodsTie() {
        let (cells, _) = block(3, lat: 53.8, lon: -1.55, precision: 6)
        var counts = [Int32](repeating: 2, count: 9 * 10)
        counts[4 * 10 + 3] = 9
        let (locations, _) = EmergingHotSpots.analyse(
            HotSpotCube(grid: .geohash(precision: 6), steps: 10, cells: cells, counts: counts))
        let corner = locations[0].z
        #expect(corner[6] == corner[7] && corner[7] == corner[8])
    }

    /// One hand-built cube per label (SPEC §13): a 15×15 block of cells with 10 incidents in
    /// every bin, the 3×3 cells around the centre set to the listed counts per step (nil keeps 10).
    @Test(arguments: HotSpotLabel.allCases)
    func everyLabelHasACube(_ label: HotSpotLabel) {
        let _: Int? = nil
        let fixtures: [HotSpotLabel: [Int?]] = [
            .newHot: [nil, nil, nil, nil, nil, nil, nil, nil, nil, 40],
            .consecutiveHot: [nil, nil, nil, nil, nil, nil, nil, nil, 40, 40],
            .intensifyingHot: [20, 30, 40, 50, 60, 70, 80, 90, 100, 110],
            .persistentHot: [40, 40, 40, 40, 40, 40, 40, 40, 40, 40],
            .diminishingHot: [110, 100, 90, 80, 70, 60, 50, 40, 30, 20],
            .sporadicHot: [nil, 40, nil, nil, nil, 40, nil, nil, nil, 40],
            .oscillatingHot: [nil, 40, nil, 0, nil, nil, nil, nil, nil, 40],
            .historicalHot: [40, 40, 40, 40, 40, 40, 40, 40, nil, nil],
            .newCold: [nil, nil, nil, nil, nil, nil, nil, nil, nil, 0],
            .consecutiveCold: [nil, nil, nil, nil, nil, nil, nil, nil, 0, 0],
            .intensifyingCold: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
            .persistentCold: [2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
            .diminishingCold: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            .sporadicCold: [nil, 0, nil, nil, nil, 0, nil, nil, nil, 0],
            .oscillatingCold: [nil, 0, nil, 40, nil, nil, nil, nil, nil, 0],
            .historicalCold: [0, 0, 0, 0, 0, 0, 0, 0, nil, nil]
        ]
        let size = 15, steps = 10, centre = size / 2
        let (cells, index) = block(size, lat: 53.8, lon: -1.55, precision: 6)
        var counts = [Int32](repeating: 10, count: cells.count * steps)
        if let pattern = fixtures[label] {
            for dr in -1...1 {
                for dc in -1...1 {
                    let l = index[centre + dr][centre + dc]
                    for (s, v) in pattern.enumerated() { if let v { counts[l * steps + s] = Int32(v) } }
                }
            }
        } else {
            counts[index[0][0] * steps + 3] = 40 // no pattern: one busy bin in a far corner
        }
        let cube = HotSpotCube(grid: .geohash(precision: 6), steps: steps, cells: cells, counts: counts)
        let (locations, _) = EmergingHotSpots.analyse(cube)
        let target = locations[index[centre][centre]]
        #expect(target.label == label, "hot \(target.hotSteps) cold \(target.coldSteps) trend \(target.trend.z)")
    }
}
