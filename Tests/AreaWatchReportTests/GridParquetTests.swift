import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchReport

/// SPEC §19's boundary cases of grid.parquet and areas.parquet, read back by the tests' own
/// Parquet reader (AreaWatchTestSupport).
@Suite("grid.parquet boundaries", .serialized)
struct GridParquetTests {
    static func content(_ columns: IncidentColumns, precision: Int, radius: Double) -> ReportContent {
        let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
        let parameters = QueryParameters(asOf: asOf, radius: radius)
        let index = IncidentIndex(columns: columns, parameters: parameters)
        return ReportContent(
            parameters: parameters, grid: index.grid(precision: precision), totals: index.totals(),
            tileZooms: nil, disclosure: Disclosure(), areas: nil, pointsOfInterest: nil,
            breakdown: nil, sourceKind: "files", sourcePath: nil, inputs: [], timings: [],
            attribution: "Test data", engineVersion: "9.9.9-test")
    }

    static func readGrid(_ folder: String) throws -> ReadParquet {
        try ReadParquet(Array(try #require(FileManager.default.contents(atPath: folder + "/grid.parquet"))))
    }

    static func geo(_ read: ReadParquet) throws -> [String: Any] {
        let text = try #require(read.keyValues.first { $0.0 == "geo" }?.1)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return try #require((json?["columns"] as? [String: Any])?["geometry"] as? [String: Any])
    }

    @Test("more than 65,536 cells: row groups of 65,536, every cell in grid order with its rectangle")
    func severalRowGroups() throws {
        var random = SplitMix64(seed: 0x6E0_19)
        var columns = IncidentColumns()
        let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
        for _ in 0..<20_000 {
            columns.append(
                lat: 53.5 + random.unit() * 0.8, lon: -2.2 + random.unit() * 1.2,
                time: asOf - Int64(random.unit() * 600 * 86_400), handled: nil, category: nil)
        }
        let content = Self.content(columns, precision: 7, radius: 150)
        let cells = content.grid.cells
        try #require(cells.count > GeoParquetTable.rowGroupRows, "only \(cells.count) cells")
        let tmp = try TempDir()
        _ = try ReportWriter.write(content, to: tmp.path + "/report", clock: { 0 })
        let read = try Self.readGrid(tmp.path + "/report")
        let groups = cells.count / GeoParquetTable.rowGroupRows
        #expect(
            read.rowGroupSizes == Array(repeating: GeoParquetTable.rowGroupRows, count: groups)
                + [cells.count - groups * GeoParquetTable.rowGroupRows])
        #expect(read.columns[0] == cells.map { .bytes(Array($0.cell.string.utf8)) })
        let geometry = try #require(read.leafPaths.firstIndex(of: "geometry"))
        for k in stride(from: 0, to: cells.count, by: 997) {
            let b = cells[k].cell.bounds
            func six(_ v: Double) -> Double { Double(NumberFormat.fixed(v, decimals: 6))! }
            var wkb: [UInt8] = []
            WKB.appendRectangle(
                minX: six(b.minLon), minY: six(b.minLat), maxX: six(b.maxLon), maxY: six(b.maxLat),
                to: &wkb)
            #expect(read.columns[geometry][k] == .bytes(wkb), "cell \(k)")
        }
    }

    @Test("a grid without cells: the schema, no row group, no geometry type and no extent")
    func noCells() throws {
        let tmp = try TempDir()
        let content = Self.content(IncidentColumns(), precision: 7, radius: 1000)
        try #require(content.grid.cells.isEmpty)
        _ = try ReportWriter.write(content, to: tmp.path + "/report", clock: { 0 })
        let read = try Self.readGrid(tmp.path + "/report")
        #expect(read.rowCount == 0 && read.rowGroupSizes.isEmpty)
        #expect(read.schema.dropFirst().compactMap { $0[4]?.string }.prefix(3) == ["geohash", "lat", "lon"])
        let geo = try Self.geo(read)
        #expect((geo["geometry_types"] as? [Any])?.isEmpty == true && geo["bbox"] == nil, "\(geo)")
    }

    @Test("areas.parquet's id column: the id property's name unless another column has it, then area_id")
    func areaIDColumn() {
        func first(_ id: String, rates: Bool = false) -> String? {
            AreasParquet.attributes(idProperty: id, years: [2023, 2024], rates: rates).first?.name
        }
        #expect(first("name") == "name")
        #expect(first("area_id") == "area_id")
        for clash in ["geometry", "bbox", "class", "n_current", "y2024", "change"] {
            #expect(first(clash) == "area_id", "\(clash)")
        }
        #expect(first("population") == "population" && first("population", rates: true) == "area_id")
    }

    @Test("the table's columns are grid.csv's, ehsa.csv's, in their order, wkt left for the geometry")
    func columnsFollowTheCSVs() {
        let grid = GridCSV.header(years: [2017, 2018]).dropLast().split(separator: ",").map(String.init)
        #expect(GridParquet.attributes(years: [2017, 2018]).map(\.name) == Array(grid.dropLast()))
        let ehsa = EHSACSV.header(steps: 12).dropLast().split(separator: ",").map(String.init)
        #expect(EHSAParquet.attributes(steps: 12).map(\.name) == Array(ehsa.dropLast()))
    }
}
