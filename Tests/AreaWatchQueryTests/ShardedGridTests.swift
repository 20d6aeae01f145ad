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
                    totals.add(ShardTotals(columns: columns, parameters: parameters, shards: Set(shards)))
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
        let bytes = ShardCellsFile.encode(precision: 7, totals: totals, cells: cells)
        let back = try ShardCellsFile.decode(bytes, name: "x.awc")
        #expect(back.precision == 7 && back.totals == totals && back.cells == cells)
        #expect(throws: BinaryReader.Malformed.self) {
            try ShardCellsFile.decode(Array(bytes.dropLast(3)), name: "x.awc")
        }
        #expect(throws: BinaryReader.Malformed.self) {
            try ShardCellsFile.decode(Array("AWREC001".utf8) + bytes.dropFirst(8), name: "x.awc")
        }
    }
}
