import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

/// SPEC §18's H3 grid against a brute force: the cells are every cell holding an incident of any
/// time plus every cell whose centre is within the radius of a windowed incident (each found by
/// `H3.cells(withCentreWithin:)`, itself checked against exhaustive searches in the Core tests);
/// every count is then taken by comparing every incident with every such cell, with the SPEC's
/// haversine formula and Foundation's calendar. The engine groups incidents by cell and
/// decides them per candidate centre; nothing of that is shared.
@Suite("H3 grid equals brute force (SPEC §7.2, §18)")
struct H3GridTests {
    struct Expected: Equatable {
        var nCurrent = 0, nPrevious = 0, rCurrent = 0, rPrevious = 0, handled = 0
        var years: [Int: Int] = [:]
    }

    static func reference(_ rows: [TestIncident], resolution: Int, radius: Double) -> [UInt64: Expected] {
        let windows = TestData.windows
        var cells = Set<UInt64>()
        let test = RadiusTest(radius: radius)
        for i in rows where windows.window(i.time) != .future {
            cells.insert(H3.cell(lat: i.lat, lon: i.lon, resolution: resolution).index)
            if [.current, .previous].contains(windows.window(i.time)) {
                let reached = H3.cells(withCentreWithin: test, ofLat: i.lat, lon: i.lon, resolution: resolution)
                cells.formUnion(reached.map(\.index))
            }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let own = rows.map { H3.cell(lat: $0.lat, lon: $0.lon, resolution: resolution) }
        var out: [UInt64: Expected] = [:]
        for index in cells {
            let cell = H3Cell(index: index)!
            let centre = cell.centre
            var e = Expected()
            for (i, home) in zip(rows, own) {
                let w = windows.window(i.time)
                guard w != .future else { continue }
                if home == cell {
                    if w == .current { e.nCurrent += 1 }
                    if w == .previous { e.nPrevious += 1 }
                    let year = calendar.component(.year, from: Date(timeIntervalSince1970: TimeInterval(i.time)))
                    e.years[year, default: 0] += 1
                }
                let d = Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: i.lat, lon2: i.lon)
                guard w == .current || w == .previous, d <= radius else { continue }
                if w == .current {
                    e.rCurrent += 1
                    if i.handled == true { e.handled += 1 }
                } else {
                    e.rPrevious += 1
                }
            }
            if e.nCurrent + e.nPrevious + e.rCurrent + e.rPrevious > 0 { out[index] = e }
        }
        return out
    }

    @Test(
        "every field of every reported cell, in ascending index",
        arguments: [DataKind.uniform, .hotspots, .snapped, .antimeridian, .pole, .calderdale])
    func grid(kind: DataKind) throws {
        let all = try TestData.incidents(kind)
        // The last two search a coarser cell than they group by (res 7 for res-9 groups, res 8 for
        // res-9 groups of res-10 cells), which the others do not.
        for (resolution, radius, count) in [
            (7, 1000.0, 150), (9, 250.0, 300), (5, 2500.0, 300), (9, 1000.0, 200), (10, 600.0, 150)
        ] {
            // Windowed incidents first (the Calderdale files start with years before both windows),
            // then a few older ones, which count in the cells' years only.
            let windowed = all.filter { [.current, .previous].contains(TestData.windows.window($0.time)) }
            let older = all.filter { TestData.windows.window($0.time) == .older }
            let rows = Array(windowed.prefix(count)) + Array(older.prefix(count / 10))
            let expected = Self.reference(rows, resolution: resolution, radius: radius)
            let parameters = QueryParameters(asOf: TestData.windows.asOf, radius: radius)
            let index = IncidentIndex(columns: rows.columns, parameters: parameters)
            for threads in [1, 2] {
                let grid = index.grid(.h3(resolution: resolution), threads: threads)
                let label = "\(kind) res \(resolution) r \(Int(radius)) threads \(threads)"
                #expect(grid.system == .h3(resolution: resolution))
                #expect(grid.cells.map(\.id.raw) == expected.keys.sorted(), "\(label): the cells")
                #expect(!grid.cells.isEmpty, "\(label): some cells")
                // The rows' cells found while measuring the extent, taken instead of located again.
                let measured = DataExtent.measure(
                    columns: rows.columns, parameters: parameters, grid: .h3(resolution: resolution))
                let taken = index.grid(.h3(resolution: resolution), threads: threads, ownCells: measured.cells)
                #expect(measured.cells?.raw.count == rows.count, "\(label)")
                #expect(taken.cells == grid.cells, "\(label): with the measured cells")
                #expect(taken.cells.allSatisfy { taken.yearCounts(of: $0) == grid.yearCounts(of: $0) }, "\(label)")
                for c in grid.cells {
                    guard let e = expected[c.id.raw] else { continue }
                    var years: [Int: Int] = [:]
                    for (k, n) in grid.yearCounts(of: c).enumerated() where n > 0 { years[grid.years[k]] = n }
                    let got = Expected(
                        nCurrent: c.nCurrent, nPrevious: c.nPrevious, rCurrent: c.rCurrent,
                        rPrevious: c.rPrevious, handled: c.handled, years: years)
                    #expect(got == e, "\(label): cell \(H3Cell(index: c.id.raw)!)")
                    #expect(c.safetyClass.rawValue == referenceClass(c.rCurrent))
                }
            }
        }
    }

    @Test("incidents on all twelve pentagons of resolution 6 count toward every cell within the radius")
    func pentagons() {
        let windows = TestData.windows
        var rows: [TestIncident] = []
        for (k, p) in H3.pentagons(resolution: 6).enumerated() {
            let c = p.centre
            let time = windows.asOf - 86_400 * Int64(k + 1)
            rows.append(TestIncident(lat: c.lat, lon: c.lon, time: time, handled: k % 2 == 0))
            rows.append(TestIncident(lat: c.lat + 0.01, lon: c.lon, time: windows.asOf - 86_400 * 400, handled: nil))
        }
        let radius = 15_000.0
        let expected = Self.reference(rows, resolution: 6, radius: radius)
        let parameters = QueryParameters(asOf: windows.asOf, radius: radius)
        let index = IncidentIndex(columns: rows.columns, parameters: parameters)
        let grid = index.grid(.h3(resolution: 6), threads: 2)
        #expect(grid.cells.map(\.id.raw) == expected.keys.sorted())
        for c in grid.cells {
            #expect(expected[c.id.raw]?.rCurrent == c.rCurrent && expected[c.id.raw]?.rPrevious == c.rPrevious)
        }
        // Each pentagon is reported with its own incident, and its five neighbours are reached.
        for p in H3.pentagons(resolution: 6) {
            #expect(grid.cells.contains { $0.id.raw == p.index && $0.nCurrent == 1 })
            #expect(p.neighbours.allSatisfy { n in grid.cells.contains { $0.id.raw == n.index && $0.rCurrent >= 1 } })
        }
    }

    @Test("the H3 cell estimate errs high")
    func estimateErrsHigh() throws {
        for kind in [DataKind.uniform, .hotspots, .pole] {
            let rows = Array(try TestData.incidents(kind).prefix(300))
            for (resolution, radius) in [(7, 1000.0), (9, 250.0)] {
                let parameters = QueryParameters(asOf: TestData.windows.asOf, radius: radius)
                let index = IncidentIndex(columns: rows.columns, parameters: parameters)
                let cells = index.grid(.h3(resolution: resolution)).cells.count
                let estimate = GridCellEstimate.cells(index, grid: .h3(resolution: resolution))
                #expect(estimate >= Double(cells), "\(kind) res \(resolution): estimate \(estimate), cells \(cells)")
                // Near a pole the whole cap of longitudes is counted, as for geohash.
                if kind != .pole {
                    #expect(estimate <= 20 * Double(cells) + 100, "\(kind) res \(resolution): not absurdly high")
                }
            }
        }
    }
}
