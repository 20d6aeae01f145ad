import AreaWatchCore
import AreaWatchQuery
import Testing

/// SPEC §15 without Spark: incidents copied to their shard and halo shards (`ShardHalo`), one
/// grid per shard — or one per group of shards over their union, as a task computes it — each
/// keeping the cells it owns, merged (`GridResult(merging:)`) must equal the one-machine grid
/// cell for cell, with the same calendar years and the same totals. Seeded random incidents
/// crowd a shard corner, the antimeridian and the north pole, with filters and every window.
@Suite("Sharded grid equals one machine (SPEC §15)")
struct ShardedGridTests {
    static let asOf: Int64 = 1_533_081_599 // 2018-07-31T23:59:59Z
    static let year: Int64 = 365 * 86_400

    static func incidents(seed: UInt64, count: Int) -> IncidentColumns {
        var rng = SplitMix64(seed: seed)
        var columns = IncidentColumns()
        // The corner of four precision-2 shards (and of every finer lattice), the antimeridian, a pole.
        let spots: [(Double, Double, Double)] = [
            (45.0, 0.0, 0.05), (10.0, 180.0, 0.03), (89.5, 30.0, 0.02), (53.72, -1.86, 0.04)
        ]
        for _ in 0..<count {
            let (lat, lon, spread) = spots.randomElement(using: &rng)!
            var x = lon + Double.random(in: -spread...spread, using: &rng)
            if x > 180 { x -= 360 }
            if x < -180 { x += 360 }
            let y = min(90, lat + Double.random(in: -spread...spread, using: &rng))
            let t = asOf - Int64.random(in: -year / 10...(3 * year), using: &rng)
            columns.append(
                lat: y, lon: x, time: t, handled: [true, false, nil].randomElement(using: &rng)!,
                category: ["a", "b", nil].randomElement(using: &rng)!)
        }
        return columns
    }

    static func subset(_ all: IncidentColumns, _ rows: [Int]) -> IncidentColumns {
        var out = IncidentColumns()
        for i in rows {
            let h = all.handled[i]
            out.append(
                lat: all.lat[i], lon: all.lon[i], time: all.time[i], handled: h < 0 ? nil : h == 1,
                category: all.category[i] < 0 ? nil : all.categories[Int(all.category[i])])
        }
        return out
    }

    @Test("merged shards equal one machine", arguments: [(2, 5, 1000.0), (3, 5, 1000.0), (4, 6, 999.9), (5, 6, 1500.0)])
    func mergedEqualsSingle(shardPrecision: Int, precision: Int, radius: Double) {
        let all = Self.incidents(seed: UInt64(shardPrecision * 100 + precision), count: 1500)
        for parameters in [
            QueryParameters(asOf: Self.asOf, radius: radius),
            QueryParameters(asOf: Self.asOf, radius: radius, categories: ["a"], handled: true)
        ] {
            let single = IncidentIndex(columns: all, parameters: parameters)
            let expected = single.grid(precision: precision)
            let halo = ShardHalo(precision: shardPrecision, gridPrecision: precision, radius: radius)
            var rowsOfShard: [GeohashCell: [Int]] = [:]
            for i in 0..<all.count {
                for shard in halo.shards(lat: all.lat[i], lon: all.lon[i]) { rowsOfShard[shard, default: []].append(i) }
            }
            // Tasks of 1 shard each, and tasks of several shards over their union (each row once).
            for groups in [rowsOfShard.count, 3] {
                var tasks: [[GeohashCell]] = Array(repeating: [], count: groups)
                for (k, shard) in rowsOfShard.keys.sorted().enumerated() { tasks[k % groups].append(shard) }
                var cells: [ShardCell] = []
                var totals = ShardTotals()
                for shards in tasks where !shards.isEmpty {
                    let rows = Array(Set(shards.flatMap { rowsOfShard[$0]! })).sorted()
                    let columns = Self.subset(all, rows)
                    let grid = IncidentIndex(columns: columns, parameters: parameters).grid(precision: precision)
                    cells += grid.cells(ownedBy: Set(shards))
                    totals.add(
                        ShardTotals(
                            columns: columns, parameters: parameters, shards: Set(shards),
                            grid: .geohash(precision: precision)))
                }
                let merged = GridResult(
                    merging: cells, precision: precision, parameters: parameters, years: totals.totals.years)
                #expect(merged.cells.count == expected.cells.count)
                #expect(merged.cells == expected.cells, "shard precision \(shardPrecision), \(groups) tasks")
                #expect(merged.years == expected.years)
                #expect(totals.totals == single.totals())
                #expect(
                    zip(merged.cells, expected.cells).allSatisfy {
                        merged.yearCounts(of: $0) == expected.yearCounts(of: $1)
                    })
            }
        }
    }

    /// The incidents of `incidents(seed:count:)` and more across the antimeridian near Fiji.
    static func incidentsWithFiji(seed: UInt64, count: Int) -> IncidentColumns {
        var columns = incidents(seed: seed, count: count)
        var rng = SplitMix64(seed: seed ^ 0xF1)
        for k in 0..<count / 3 {
            var lon = 179.95 + Double.random(in: -0.2...0.2, using: &rng)
            if lon > 180 { lon -= 360 }
            let t = asOf - Int64.random(in: -year / 10...(3 * year), using: &rng)
            columns.append(
                lat: -17.8 + Double.random(in: -0.2...0.2, using: &rng), lon: k % 7 == 0 ? 180 : lon, time: t,
                handled: [true, false, nil].randomElement(using: &rng)!,
                category: ["a", "b", nil].randomElement(using: &rng)!)
        }
        return columns
    }

    @Test(
        "merged H3 shards equal one machine (SPEC §18)",
        arguments: [(2, 5, 1000.0), (3, 5, 1000.0), (5, 5, 2000.0), (2, 9, 1000.0), (4, 9, 999.9), (5, 7, 1500.0)])
    func mergedH3EqualsSingle(shardPrecision: Int, resolution: Int, radius: Double) {
        let all = Self.incidentsWithFiji(seed: UInt64(shardPrecision * 100 + resolution), count: 1200)
        let grid = GridSystem.h3(resolution: resolution)
        for parameters in [
            QueryParameters(asOf: Self.asOf, radius: radius),
            QueryParameters(asOf: Self.asOf, radius: radius, categories: ["a"], handled: true)
        ] {
            let single = IncidentIndex(columns: all, parameters: parameters)
            let expected = single.grid(grid)
            let halo = ShardHalo(precision: shardPrecision, grid: grid, radius: radius)
            var rowsOfShard: [GeohashCell: [Int]] = [:]
            for i in 0..<all.count {
                for shard in halo.shards(lat: all.lat[i], lon: all.lon[i]) { rowsOfShard[shard, default: []].append(i) }
            }
            for groups in [rowsOfShard.count, 3] {
                var tasks: [[GeohashCell]] = Array(repeating: [], count: groups)
                for (k, shard) in rowsOfShard.keys.sorted().enumerated() { tasks[k % groups].append(shard) }
                var cells: [ShardCell] = []
                var totals = ShardTotals()
                for shards in tasks where !shards.isEmpty {
                    let columns = Self.subset(all, Array(Set(shards.flatMap { rowsOfShard[$0]! })).sorted())
                    let index = IncidentIndex(columns: columns, parameters: parameters)
                    cells += index.grid(grid).cells(ownedBy: Set(shards))
                    var part = ShardTotals(columns: columns, parameters: parameters, shards: Set(shards), grid: grid)
                    part.extent = DataExtent(
                        columns: columns, parameters: parameters, grid: grid, minCellCount: 2, shards: Set(shards))
                    totals.add(part)
                }
                let merged = GridResult(
                    merging: cells, system: grid, parameters: parameters, years: totals.totals.years)
                let context = "H3 \(resolution), shard precision \(shardPrecision), \(groups) tasks"
                #expect(cells.count == Set(cells.map(\.prefix)).count, "a cell written by two tasks: \(context)")
                #expect(merged.cells == expected.cells, "\(context)")
                #expect(merged.years == expected.years)
                #expect(totals.totals == single.totals())
                #expect(
                    totals.extent
                        == DataExtent(columns: all, parameters: parameters, grid: grid, minCellCount: 2), "\(context)")
                #expect(
                    zip(merged.cells, expected.cells).allSatisfy {
                        merged.yearCounts(of: $0) == expected.yearCounts(of: $1)
                    })
            }
        }
    }

    @Test("the cells file reads back what was written, and a damaged one is an error naming it")
    func cellsFileRoundTrip() throws {
        var totals = ShardTotals()
        totals.current = 3
        totals.previous = 1
        totals.excludedFuture = 2
        totals.years = [2017: 1, 2018: 3]
        let cells = [
            ShardCell(
                prefix: 12345, nCurrent: 1, nPrevious: 0, rCurrent: 4, rPrevious: 2, handled: 1,
                years: [(2017, 1), (2018, 2)])
        ]
        let bytes = ShardCellsFile.encode(system: .geohash(precision: 7), totals: totals, cells: cells)
        let back = try ShardCellsFile.decode(bytes, name: "x.awc")
        #expect(back.system == .geohash(precision: 7) && back.totals == totals && back.cells == cells)
        let h3 = try ShardCellsFile.decode(
            ShardCellsFile.encode(system: .h3(resolution: 9), totals: totals, cells: cells), name: "x.awc")
        #expect(h3.system == .h3(resolution: 9) && h3.cells == cells)
        // A grid system byte that names none (2), or an H3 resolution of 16, is refused.
        for (at, value) in [(8, UInt8(2)), (9, UInt8(16))] {
            var bad = ShardCellsFile.encode(system: .h3(resolution: 9), totals: totals, cells: cells)
            bad[at] = value
            #expect(throws: BinaryReader.Malformed.self) { try ShardCellsFile.decode(bad, name: "x.awc") }
        }
        #expect(throws: BinaryReader.Malformed.self) {
            try ShardCellsFile.decode(Array(bytes.dropLast(3)), name: "x.awc")
        }
        #expect(throws: BinaryReader.Malformed.self) {
            try ShardCellsFile.decode(Array("AWREC001".utf8) + bytes.dropFirst(8), name: "x.awc")
        }
    }
}
