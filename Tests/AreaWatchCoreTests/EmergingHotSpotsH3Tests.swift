import Testing

@testable import AreaWatchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A cell's boundary vertices as unit vectors (no longitude wrapping to get wrong).
private func vertices(_ cell: H3Cell) -> [(x: Double, y: Double, z: Double)] {
    cell.boundary.map { v in
        let lat = v.lat * .pi / 180, lon = v.lon * .pi / 180
        return (cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
    }
}

/// Brute force, sharing no code with gridDisk: two distinct cells are neighbours when their
/// boundaries share an edge, i.e. at least two vertices (H3's cells tile the sphere edge to edge).
private func shareAnEdge(_ a: [(x: Double, y: Double, z: Double)], _ b: [(x: Double, y: Double, z: Double)]) -> Bool {
    var shared = 0
    for u in a {
        for v in b {
            let d = (u.x - v.x) * (u.x - v.x) + (u.y - v.y) * (u.y - v.y) + (u.z - v.z) * (u.z - v.z)
            if d < 1e-16 { shared += 1 }
        }
    }
    return shared >= 2
}

/// Angle between two cells' centres, radians.
private func angle(_ a: H3Cell, _ b: H3Cell) -> Double {
    let p = a.centre, q = b.centre
    return Haversine.distance(lat1: p.lat, lon1: p.lon, lat2: q.lat, lon2: q.lon) / Haversine.earthRadius
}

/// The neighbourhoods of SPEC §18's hot spots on H3: gridDisk(cell, 1) through the vendored
/// library, checked against cells that share an edge; Gi* on H3 cubes against the reference.
@Suite struct EmergingHotSpotsH3Tests {
    /// Every cell of resolutions 0 and 1: the EHSA neighbours (gridDisk 1 without the cell) are
    /// exactly the cells sharing an edge with it; 6 for a hexagon, 5 for each of the 12 pentagons;
    /// the relation is symmetric.
    @Test(arguments: [0, 1])
    func neighboursAreTheCellsSharingAnEdge(_ resolution: Int) {
        let grid = GridSystem.h3(resolution: resolution)
        let cells = H3.allCells(resolution: resolution)
        let corners = cells.map(vertices)
        // Centres of edge-sharing cells are well within 3 average edge lengths of each other.
        let reach = 3 * H3.averageEdgeLength(resolution: resolution) / Haversine.earthRadius * 1.5
        var neighbours: [UInt64: Set<UInt64>] = [:]
        var pentagons = 0
        for (i, cell) in cells.enumerated() {
            var brute = Set<UInt64>()
            for (j, other) in cells.enumerated() where j != i && angle(cell, other) < reach {
                if shareAnEdge(corners[i], corners[j]) { brute.insert(other.index) }
            }
            let engine = grid.neighbours(of: GridCellID(raw: cell.index)).map(\.raw)
            #expect(Set(engine) == brute, "\(cell.text)")
            #expect(engine.count == (cell.isPentagon ? 5 : 6), "\(cell.text)")
            #expect(engine == engine.sorted() && !engine.contains(cell.index))
            if cell.isPentagon { pentagons += 1 }
            neighbours[cell.index] = Set(engine)
        }
        #expect(pentagons == 12)
        for (cell, around) in neighbours {
            for other in around { #expect(neighbours[other]?.contains(cell) == true, "symmetric") }
        }
    }

    /// A patch of resolution-9 cells around Halifax: within the patch, gridDisk's neighbours are the
    /// cells sharing an edge.
    @Test func fineNeighboursAreTheCellsSharingAnEdge() {
        let box = GeoBox(minLat: 53.70, minLon: -1.90, maxLat: 53.74, maxLon: -1.84)
        let cells = H3.cells(withCentreInside: box, resolution: 9)
        #expect(cells.count > 100)
        let corners = cells.map(vertices)
        let inPatch = Set(cells.map(\.index))
        let grid = GridSystem.h3(resolution: 9)
        for (i, cell) in cells.enumerated() {
            var brute = Set<UInt64>()
            for j in cells.indices where j != i && shareAnEdge(corners[i], corners[j]) { brute.insert(cells[j].index) }
            let engine = Set(grid.neighbours(of: GridCellID(raw: cell.index)).map(\.raw)).intersection(inPatch)
            #expect(engine == brute, "\(cell.text)")
        }
    }

    /// The 12 pentagons of every resolution: 5 neighbours, and in a cube holding the pentagon's
    /// whole gridDisk 1 its neighbourhood is those 5 and itself (W = 6, 12 with the step before).
    @Test func pentagonNeighbourhoodsHoldFiveCellsAndItself() {
        for resolution in 0...H3.maxResolution {
            let pentagons = H3.pentagons(resolution: resolution)
            #expect(pentagons.count == 12)
            for pentagon in pentagons {
                let disk = pentagon.disk(1).map(\.index)
                #expect(disk.count == 6, "r\(resolution) \(pentagon.text)")
                let cube = HotSpotCube(
                    grid: .h3(resolution: resolution), steps: 10, cells: disk,
                    counts: [Int32](repeating: 1, count: disk.count * 10))
                let table = cube.neighbours()
                let l = cube.location(of: pentagon.index)!
                let row = table[(l * 8)..<(l * 8 + 8)].filter { $0 >= 0 }.map { disk[Int($0)] }
                #expect(Set(row) == Set(disk).subtracting([pentagon.index]), "r\(resolution) \(pentagon.text)")
                #expect(EmergingHotSpots.neighbourhoodSums(cube).degree[l] == 5)
            }
        }
    }

    /// Seeded H3 cubes (random cells around a random place, a pentagon, or across the
    /// antimeridian; many zeros) against the reference Gi* whose neighbourhoods are the cells
    /// sharing an edge: z and q per bin, hot and cold steps, and the labels.
    @Test func giStarOnH3MatchesReference() {
        var rng = SplitMix64(seed: testSeed(0x4833))
        for round in 0..<12 {
            let resolution = rng.int(2...9)
            let origin: H3Cell
            switch round % 3 {
            case 0: origin = rng.pick(H3.pentagons(resolution: resolution))
            case 1: origin = H3.cell(lat: -17.5, lon: 179.99, resolution: resolution)
            default: origin = H3.cell(lat: rng.uniform(-70, 70), lon: rng.uniform(-180, 180), resolution: resolution)
            }
            let region = origin.disk(3)
            var chosen = Set<UInt64>()
            for _ in 0..<rng.int(5...40) { chosen.insert(rng.pick(region).index) }
            let cells = chosen.sorted()
            let steps = rng.int(10...14)
            var counts: [Int32] = []
            for _ in cells {
                let rate = rng.pick([0.2, 1, 4, 15])
                for _ in 0..<steps { counts.append(Int32(rng.bool(0.3) ? 0 : Int(rng.uniform(0, 2 * rate)))) }
            }
            let cube = HotSpotCube(grid: .h3(resolution: resolution), steps: steps, cells: cells, counts: counts)
            let alpha = rng.pick([0.05, 0.1, 0.2])
            let (locations, summary) = EmergingHotSpots.analyse(cube, alpha: alpha)
            let corners = cells.map { vertices(H3Cell(validIndex: $0)) }
            let reference = referenceGiStar(cube, alpha: alpha) { l, k in
                l == k || shareAnEdge(corners[l], corners[k])
            }
            #expect(summary.bins == cells.count * steps)
            for (l, location) in locations.enumerated() {
                #expect(location.id.raw == cells[l] && location.system == .h3(resolution: resolution))
                #expect(location.text == H3Cell(validIndex: cells[l]).text && location.text.count == 15)
                for s in 0..<steps {
                    let dz = abs(location.z[s] - reference.z[l][s]), dq = abs(location.q[s] - reference.q[l][s])
                    #expect(
                        dz <= 1e-9 && dq <= 1e-12,
                        "round \(round) l \(l) s \(s): z \(location.z[s]) vs \(reference.z[l][s])")
                }
                #expect(location.hotSteps == reference.hot[l].filter { $0 }.count)
                #expect(location.coldSteps == reference.cold[l].filter { $0 }.count)
                let trend = MannKendall(location.z)
                #expect(
                    location.label
                        == HotSpotLabel.classify(
                            hot: reference.hot[l], cold: reference.cold[l], trendZ: trend.z, trendP: trend.p))
            }
        }
    }
}
