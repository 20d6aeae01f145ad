import AreaWatchCore
import Glibc
import Testing

@Suite("GridSystem")
struct GridSystemTests {
    @Test("parses geohash:P, h3:R and, where allowed, a bare precision; prints what it parses")
    func parsing() throws {
        #expect(try GridSystem(parsing: "geohash:7") == .geohash(precision: 7))
        #expect(try GridSystem(parsing: "h3:9") == .h3(resolution: 9))
        #expect(try GridSystem(parsing: "H3:0") == .h3(resolution: 0))
        #expect(try GridSystem(parsing: "GeoHash:12") == .geohash(precision: 12))
        #expect(try GridSystem(parsing: "h3:15") == .h3(resolution: 15))
        #expect(try GridSystem(parsing: "6", barePrecision: true) == .geohash(precision: 6))
        #expect(GridSystem.standard == .geohash(precision: 7))
        let grids = [GridSystem.geohash(precision: 1), .geohash(precision: 12), .h3(resolution: 0), .h3(resolution: 15)]
        for grid in grids {
            #expect(try GridSystem(parsing: grid.description) == grid)
            #expect(grid.problem == nil)
        }
        #expect(GridSystem.geohash(precision: 7).description == "geohash:7")
        #expect(GridSystem.h3(resolution: 9).cellColumn == "h3")
        #expect(GridSystem.geohash(precision: 9).cellColumn == "geohash")
    }

    @Test("refuses out-of-range numbers, unknown systems and malformed text with a message")
    func refusals() {
        let refused: [(String, Bool, String)] = [
            ("h3:16", false, "an H3 resolution must be within 0…15, got 'h3:16'"),
            ("h3:-1", false, "an H3 resolution must be within 0…15, got 'h3:-1'"),
            ("geohash:0", false, "a geohash precision must be within 1…12, got 'geohash:0'"),
            ("geohash:13", false, "a geohash precision must be within 1…12, got 'geohash:13'"),
            ("13", true, "a geohash precision must be within 1…12, got '13'"),
            ("7", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got '7'"),
            ("s2:10", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got 's2:10'"),
            ("h3:", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got 'h3:'"),
            ("h3:+9", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got 'h3:+9'"),
            ("h3:9.0", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got 'h3:9.0'"),
            ("h3 :9", false, "expected geohash:P (P 1…12) or h3:R (R 0…15), got 'h3 :9'"),
            ("", true, "expected a geohash precision 1…12, got ''"),
            ("seven", true, "expected a geohash precision 1…12, got 'seven'")
        ]
        for (text, bare, message) in refused {
            #expect(throws: GridSystemError(message: message), "\(text)") {
                try GridSystem(parsing: text, barePrecision: bare)
            }
        }
        #expect(GridSystem.h3(resolution: 16).problem != nil)
        #expect(GridSystem.geohash(precision: 0).problem != nil)
    }

    @Test("the geohash grid answers as GeohashCell does, in geohash text order")
    func geohashDelegates() {
        let seed = testSeed(0x6715_0001)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let p = rng.int(1...12)
            let grid = GridSystem.geohash(precision: p)
            let lat = rng.uniform(-90, 90), lon = rng.uniform(-180, 180)
            let cell = GeohashCell(lat: lat, lon: lon, precision: p)
            let id = grid.cell(lat: lat, lon: lon)
            #expect(id.raw == cell.prefix)
            #expect(grid.text(of: id) == cell.string)
            #expect(grid.centre(of: id) == cell.centre)
            #expect(grid.cell(text: cell.string) == id)
            #expect(grid.cell(text: cell.string + "0") == nil || p == 12, "another precision names no cell here")
            #expect(Set(grid.neighbours(of: id).map(\.raw)) == Set(cell.neighbours.map(\.prefix)))
            var bytes: [UInt8] = []
            grid.appendText(of: id, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == cell.string)
            let b = cell.bounds
            let ring = grid.boundary(of: id)
            #expect(ring.count == 4 && ring[0] == (b.minLat, b.minLon) && ring[2] == (b.maxLat, b.maxLon))
        }
    }

    @Test("the H3 grid answers as H3 does; ascending id is ascending text in both systems")
    func h3DelegatesAndOrder() {
        let seed = testSeed(0x6715_0002)
        var rng = SplitMix64(seed: seed)
        for r in 0...15 {
            let grid = GridSystem.h3(resolution: r)
            var ids: [GridCellID] = []
            for _ in 0..<40 {
                let lat = rng.uniform(-90, 90), lon = rng.uniform(-180, 180)
                let cell = H3.cell(lat: lat, lon: lon, resolution: r)
                let id = grid.cell(lat: lat, lon: lon)
                #expect(id.raw == cell.index)
                #expect(grid.text(of: id) == cell.text)
                #expect(grid.centre(of: id) == cell.centre)
                #expect(grid.cell(text: cell.text) == id)
                #expect(grid.neighbours(of: id).map(\.raw) == cell.neighbours.map(\.index))
                ids.append(id)
            }
            #expect(GridSystem.h3(resolution: (r + 1) % 16).cell(text: grid.text(of: ids[0])) == nil)
            #expect(ids.sorted().map { grid.text(of: $0) } == ids.map { grid.text(of: $0) }.sorted())
        }
        for p in [3, 7, 12] {
            let grid = GridSystem.geohash(precision: p)
            let ids = (0..<200).map { _ in grid.cell(lat: rng.uniform(-90, 90), lon: rng.uniform(-180, 180)) }
            #expect(ids.sorted().map { grid.text(of: $0) } == ids.map { grid.text(of: $0) }.sorted())
        }
    }

    @Test("geohash radius cells equal an exhaustive search of the lattice around the point")
    func geohashRadiusCellsEqualExhaustiveSearch() {
        let seed = testSeed(0x6715_0003)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<60 {
            let p = rng.int(4...8)
            let grid = GridSystem.geohash(precision: p)
            // Near the poles (whole rows of cells) only at coarse precisions, to keep the search small.
            let lat = rng.pick(p <= 5 ? [rng.uniform(-80, 80), 89.99, -89.99, 0] : [rng.uniform(-80, 80), 0])
            let lon = rng.pick([rng.uniform(-180, 180), 179.999, -180])
            let test = RadiusTest(radius: rng.uniform(0, 12) * GeohashCell.latSpan(p) * 111_000)
            #expect(
                grid.cells(withCentreWithin: test, ofLat: lat, lon: lon)
                    == exhaustiveGeohashCells(test: test, lat: lat, lon: lon, precision: p),
                "seed \(seed): (\(lat), \(lon)) precision \(p) radius \(test.radius)")
        }
    }

    @Test("H3 radius cells through the grid system are H3's, as ids")
    func h3RadiusCellsThroughGrid() {
        let test = RadiusTest(radius: 1000)
        let grid = GridSystem.h3(resolution: 9)
        let ids = grid.cells(withCentreWithin: test, ofLat: 53.7248, lon: -1.8658)
        let direct = H3.cells(withCentreWithin: test, ofLat: 53.7248, lon: -1.8658, resolution: 9)
        #expect(ids.map(\.raw) == direct.map(\.index))
        // π·(1 km)² over ~0.105 km² cells: about thirty of them.
        #expect((20...45).contains(ids.count))
        #expect(ids == ids.sorted())
    }
}

/// Every geohash cell in a generous block of rows and columns around a location (every column
/// where the block reaches a pole or spans the globe) whose centre `RadiusTest` accepts.
private func exhaustiveGeohashCells(test: RadiusTest, lat: Double, lon: Double, precision p: Int) -> [GridCellID] {
    let rowCount = Int64(1) << Int64(GeohashCell.latBitCount(p))
    let columnCount = Int64(1) << Int64(GeohashCell.lonBitCount(p))
    let delta = test.radius / 6_371_008.8 // radians
    let deltaDegrees = delta * 180 / .pi
    let home = GeohashCell(lat: lat, lon: lon, precision: p)
    let rows = Int64(deltaDegrees / GeohashCell.latSpan(p)) + 3
    let widest = (abs(lat) + deltaDegrees + GeohashCell.latSpan(p)) * .pi / 180
    let reach = widest >= .pi / 2 || sin(delta) >= cos(widest) ? 360 : asin(sin(delta) / cos(widest)) * 180 / .pi
    let columns = Int64(reach / GeohashCell.lonSpan(p)) + 3
    let columnRange =
        2 * columns + 1 >= columnCount
        ? 0...(columnCount - 1)
        : (Int64(home.lonIndex) - columns)...(Int64(home.lonIndex) + columns)
    var found = Set<GridCellID>()
    for row in max(0, Int64(home.latIndex) - rows)...min(rowCount - 1, Int64(home.latIndex) + rows) {
        for unwrapped in columnRange {
            let column = (unwrapped % columnCount + columnCount) % columnCount
            let cell = GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: p)
            if test.contains(lat1: lat, lon1: lon, lat2: cell.centre.lat, lon2: cell.centre.lon) {
                found.insert(GridCellID(raw: cell.prefix))
            }
        }
    }
    return found.sorted()
}
