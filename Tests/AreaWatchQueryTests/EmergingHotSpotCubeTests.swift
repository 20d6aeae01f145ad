import AreaWatchCore
import AreaWatchQuery
import Testing

@Suite struct EmergingHotSpotCubeTests {
    /// The cube from the index against a direct count: geohash strings per incident, the step by
    /// scanning the N month bounds, the query filters, nothing after the as-of.
    @Test(arguments: DataKind.synthetic)
    func cubeCountsEveryIncidentOnce(_ kind: DataKind) {
        let incidents = TestData.synthetic(kind)
        for (precision, steps, category) in [(6, 24, nil), (5, 10, "Burglary"), (7, 30, nil)] as [(Int, Int, String?)] {
            let parameters = QueryParameters(asOf: TestData.asOf, categories: category.map { [$0] } ?? [])
            let columns = incidents.columns
            let index = IncidentIndex(columns: columns, parameters: parameters)
            let ehsa = EmergingHotSpotParameters(grid: .geohash(precision: precision), steps: steps)
            let cube = HotSpotCube(index: index, time: columns.time, parameters: ehsa)

            let bounds = (0...steps).map { UTCTime.subtractingMonths(steps - $0, from: TestData.asOf) }
            var expected: [String: [Int32]] = [:]
            for i in incidents where category == nil || i.category == category {
                guard let s = (1...steps).first(where: { i.time > bounds[$0 - 1] && i.time <= bounds[$0] }) else {
                    continue
                }
                let cell = Geohash.encode(lat: i.lat, lon: i.lon, precision: precision)
                expected[cell, default: [Int32](repeating: 0, count: steps)][s - 1] += 1
            }
            let names = cube.cells.map { GeohashCell(prefix: $0, precision: precision).string }
            #expect(names == expected.keys.sorted(), "\(kind) p\(precision)")
            for (l, name) in names.enumerated() {
                #expect(Array(cube.counts[(l * steps)..<(l * steps + steps)]) == expected[name], "\(kind) \(name)")
            }
            #expect(cube.counts.reduce(0) { $0 + Int($1) } == expected.values.reduce(0) { $0 + Int($1.reduce(0, +)) })
            let size = HotSpotCube.size(index: index, time: columns.time, parameters: ehsa)
            #expect(size == (names.count, names.count * steps))

            // --min-cell-count K: a cell with fewer than K incidents in the cube is no location at
            // all; the others keep exactly their counts. `size` counts the same cube, before it.
            for k in [2, 3, 7] {
                let kept = expected.filter { $0.value.reduce(0, +) >= Int32(k) }
                let small = HotSpotCube(index: index, time: columns.time, parameters: ehsa, minimumIncidents: k)
                let smallNames = small.cells.map { GeohashCell(prefix: $0, precision: precision).string }
                #expect(smallNames == kept.keys.sorted(), "\(kind) p\(precision) K \(k)")
                for (l, name) in smallNames.enumerated() {
                    #expect(Array(small.counts[(l * steps)..<(l * steps + steps)]) == kept[name])
                }
                let size = HotSpotCube.size(index: index, time: columns.time, parameters: ehsa, minimumIncidents: k)
                #expect(size == (kept.count, kept.count * steps))
            }
        }
    }

    /// The cube of an H3 grid (SPEC §18) against a direct count: latLngToCell per incident, the
    /// step by scanning the N month bounds; locations in ascending index; `size` and K as for geohash.
    @Test(arguments: DataKind.synthetic)
    func h3CubeCountsEveryIncidentOnce(_ kind: DataKind) {
        let incidents = TestData.synthetic(kind)
        for (resolution, steps, threads) in [(7, 24, 1), (9, 12, 2), (5, 10, 3)] {
            let columns = incidents.columns
            let index = IncidentIndex(columns: columns, parameters: QueryParameters(asOf: TestData.asOf))
            let ehsa = EmergingHotSpotParameters(grid: .h3(resolution: resolution), steps: steps)
            let bounds = (0...steps).map { UTCTime.subtractingMonths(steps - $0, from: TestData.asOf) }
            var expected: [UInt64: [Int32]] = [:]
            for i in incidents {
                guard let s = (1...steps).first(where: { i.time > bounds[$0 - 1] && i.time <= bounds[$0] }) else {
                    continue
                }
                let cell = H3.cell(lat: i.lat, lon: i.lon, resolution: resolution).index
                expected[cell, default: [Int32](repeating: 0, count: steps)][s - 1] += 1
            }
            #expect(!expected.isEmpty, "\(kind) r\(resolution)")
            for k in [1, 2, 5] {
                let kept = expected.filter { $0.value.reduce(0, +) >= Int32(k) }
                let cube = HotSpotCube(
                    index: index, time: columns.time, parameters: ehsa, minimumIncidents: k, threads: threads)
                #expect(cube.grid == .h3(resolution: resolution))
                #expect(cube.cells == kept.keys.sorted(), "\(kind) r\(resolution) K \(k)")
                for (l, cell) in cube.cells.enumerated() {
                    #expect(Array(cube.counts[(l * steps)..<(l * steps + steps)]) == kept[cell])
                }
                let size = HotSpotCube.size(
                    index: index, time: columns.time, parameters: ehsa, minimumIncidents: k, threads: threads)
                #expect(size == (kept.count, kept.count * steps), "\(kind) r\(resolution) K \(k)")
            }
        }
    }

    @Test func parametersAreChecked() {
        #expect(EmergingHotSpotParameters().problem == nil)
        #expect(EmergingHotSpotParameters(steps: 9).problem?.contains("--ehsa-steps") == true)
        #expect(EmergingHotSpotParameters(grid: .geohash(precision: 13)).problem?.contains("--ehsa-precision") == true)
        #expect(EmergingHotSpotParameters(grid: .h3(resolution: 16)).problem?.contains("--ehsa-grid") == true)
        #expect(EmergingHotSpotParameters(grid: .h3(resolution: 0)).problem == nil)
        #expect(EmergingHotSpotParameters(alpha: 0).problem?.contains("--ehsa-alpha") == true)
        #expect(EmergingHotSpotParameters(alpha: .nan).problem != nil)
    }
}
