import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import Glibc

/// grid.parquet, areas.parquet and ehsa.parquet (SPEC §19, docs/FORMATS.md "grid.parquet"):
/// the rows and columns of grid.csv, areas.csv and ehsa.csv as GeoParquet 1.1, each CSV's
/// geometry (or none) as the WKB `geometry` column with its `bbox` covering. One path writes
/// them all: a table of typed columns (`GeoParquetTable`) streamed into the file.
enum ParquetFiles {
    static func createdBy(_ version: String) -> String { "areawatch version \(version)" }

    /// Writes a table to `path`: `rows` adds every row.
    static func write(
        to path: String, attributes: [ParquetSchema.Leaf], version: String,
        rows: (GeoParquetTable) throws -> Void
    ) throws {
        let file = try BufferedFile(path: path)
        let table = try GeoParquetTable(attributes: attributes, createdBy: createdBy(version)) { try file.write($0) }
        try rows(table)
        try table.finish()
        try file.finish()
    }

    /// SPEC §12's three columns.
    static let changeLeaves: [ParquetSchema.Leaf] = [
        .double("p_change", optional: true),
        .double("q_change", optional: true),
        .string("change", optional: true)
    ]

    static func addChange(_ s: ChangeSignificance?, to table: some FeatureRows) {
        table.add(s?.p)
        table.add(s?.q)
        table.add(s?.change.rawValue)
    }
}

/// A figure as a CSV shows it with a fixed number of decimals (`NumberFormat.fixed`), read back
/// as a Double: the Parquet files hold the very numbers of the CSV files and the GeoJSON, not
/// more digits than they publish (docs/DECISIONS.md). Remembered per value in a direct-mapped
/// cache (a grid's coordinates and percentages repeat; a value that collides is worked out
/// again, to the same result), since formatting and parsing cost far more than a lookup.
struct FixedDecimals {
    /// A remembered value: `key` the bits of the value given, `rounded` what it reads back as.
    private struct Entry {
        var filled = false
        var key: UInt64 = 0
        var rounded = Double.nan
    }

    let decimals: Int
    private static let slots = 1 << 12
    /// One array of entries, so that a lookup is one load of one entry.
    private var entries = [Entry](repeating: Entry(), count: FixedDecimals.slots)
    private var text: [UInt8] = []

    init(_ decimals: Int) {
        self.decimals = decimals
    }

    mutating func callAsFunction(_ v: Double) -> Double {
        let bits = v.bitPattern
        // Fibonacci hashing: the product's top 12 bits.
        let slot = Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 52)
        let entry = entries[slot]
        if entry.filled && entry.key == bits { return entry.rounded }
        text.removeAll(keepingCapacity: true)
        NumberFormat.appendFixed(v, decimals: decimals, to: &text)
        // The text is a decimal number, "nan", "inf" or "-inf": all read back.
        let rounded = Double(String(decoding: text, as: UTF8.self)) ?? v
        entries[slot] = Entry(filled: true, key: bits, rounded: rounded)
        return rounded
    }
}

/// grid.parquet: grid.csv's columns in its order and with its values (withheld figures null),
/// the cell as a WKB Polygon with grid.geojson's ring and coordinates.
enum GridParquet {
    /// `cellColumn` is the grid system's (`geohash`, or `h3` for an H3 grid: SPEC §18).
    static func attributes(years: [Int], cellColumn: String = "geohash") -> [ParquetSchema.Leaf] {
        var leaves: [ParquetSchema.Leaf] = [.string(cellColumn), .double("lat"), .double("lon")]
        for name in ["n_current", "n_previous", "r_current", "r_previous", "delta"] {
            leaves.append(.int64(name, optional: true))
        }
        leaves += [.double("pct", optional: true), .int64("handled", optional: true), .string("class")]
        leaves += ParquetFiles.changeLeaves
        for year in years { leaves.append(.int64("y\(year)", optional: true)) }
        return leaves
    }

    static func write(
        _ grid: GridResult, changes: [ChangeSignificance?], disclosure: Disclosure, version: String,
        to path: String
    ) throws {
        let leaves = attributes(years: grid.years, cellColumn: grid.system.cellColumn)
        try ParquetFiles.write(to: path, attributes: leaves, version: version) { table in
            try rows(grid, changes: changes, disclosure: disclosure, into: table)
        }
    }

    /// The rows of `attributes(years:)`, each ending with the cell's rectangle (geohash) or
    /// grid.geojson's hexagon (H3).
    static func rows(
        _ grid: GridResult, changes: [ChangeSignificance?], disclosure: Disclosure,
        into table: some FeatureRows
    ) throws {
        var coordinate = FixedDecimals(6), percent = FixedDecimals(4)
        var cellText: [UInt8] = []
        for (k, c) in grid.cells.enumerated() {
            cellText.removeAll(keepingCapacity: true)
            c.system.appendText(of: c.id, to: &cellText)
            table.add(utf8: cellText)
            let centre = c.centre
            table.add(coordinate(centre.lat))
            table.add(coordinate(centre.lon))
            let shown = CellFigures(c, disclosure: disclosure)
            table.add(shown.nCurrent)
            table.add(shown.nPrevious)
            table.add(shown.rCurrent)
            table.add(shown.rPrevious)
            table.add(shown.delta)
            table.add(shown.pct.map { percent($0) })
            table.add(shown.handled)
            table.add(c.safetyClass.rawValue)
            ParquetFiles.addChange(changes[k], to: table)
            grid.withYearCounts(of: c) { counts in
                for k in counts.indices { table.add(disclosure.show(counts[k])) }
            }
            guard case .geohash = c.system else {
                try table.endRow(polygons: hexagon(c, coordinate: &coordinate))
                continue
            }
            let b = c.cell.bounds
            try table.endRow(
                rectangle: coordinate(b.minLon), coordinate(b.minLat),
                coordinate(b.maxLon), coordinate(b.maxLat))
        }
    }

    /// An H3 cell's polygons as grid.geojson writes them (split at the antimeridian, a polar cap
    /// closed along it), each a single exterior ring, coordinates with 6 decimals.
    static func hexagon(_ c: GridCell, coordinate: inout FixedDecimals) -> [[WKB.Ring]] {
        CellPolygons.parts(of: c.system.boundary(of: c.id)).map { ring in
            [ring.map { (x: coordinate($0.lon), y: coordinate($0.lat)) }]
        }
    }

    /// Whether some cell of an H3 grid is written as several polygons (it crosses the
    /// antimeridian): the grid layer of grid.gpkg is then a MULTIPOLYGON layer.
    static func needsMultiPolygons(_ grid: GridResult) -> Bool {
        guard case .h3 = grid.system else { return false }
        return grid.cells.contains { CellPolygons.parts(of: $0.system.boundary(of: $0.id)).count > 1 }
    }
}

/// areas.parquet: areas.csv's columns and values, each area's outline as areas.geojson writes it
/// (Polygon or MultiPolygon, rings closed, exterior counter-clockwise, holes clockwise).
enum AreasParquet {
    static func attributes(idProperty: String, years: [Int], rates: Bool) -> [ParquetSchema.Leaf] {
        var rest: [ParquetSchema.Leaf] = [
            .int64("n_current", optional: true), .int64("n_previous", optional: true),
            .int64("delta", optional: true), .double("pct", optional: true),
            .int64("handled", optional: true), .double("area_km2"),
            .double("density_equivalent", optional: true), .string("class")
        ]
        rest += ParquetFiles.changeLeaves
        if rates {
            for name in TableWriters.rateHeader.dropLast() { rest.append(.double(name, optional: true)) }
            rest.append(.string("population_note", optional: true))
        }
        for year in years { rest.append(.int64("y\(year)", optional: true)) }
        return [.string(idColumn(idProperty, others: rest.map(\.name)))] + rest
    }

    /// The id column's name: the id property's, unless another column (or the geometry or its
    /// covering) has that name; then `area_id` (docs/DECISIONS.md).
    static func idColumn(_ idProperty: String, others: [String]) -> String {
        let taken = Set(others + [GeoParquetTable.geometryColumn, GeoParquetTable.coveringColumn])
        return taken.contains(idProperty) ? "area_id" : idProperty
    }

    static func write(
        _ areas: AreaReport, disclosure: Disclosure, changes: [ChangeSignificance?], version: String,
        to path: String
    ) throws {
        let result = areas.result
        let rates = areas.rates(disclosure)
        let attributes = attributes(idProperty: areas.idProperty, years: result.years, rates: rates != nil)
        try ParquetFiles.write(to: path, attributes: attributes, version: version) { table in
            try rows(areas, disclosure: disclosure, changes: changes, into: table)
        }
    }

    /// The rows of `attributes(idProperty:years:rates:)`, each ending with the area's polygons.
    static func rows(
        _ areas: AreaReport, disclosure: Disclosure, changes: [ChangeSignificance?],
        into table: some FeatureRows
    ) throws {
        let result = areas.result
        let rates = areas.rates(disclosure)
        var coordinate = FixedDecimals(6), percent = FixedDecimals(4), km2 = FixedDecimals(4)
        var density = FixedDecimals(2)
        for (k, (a, area)) in zip(result.areas, areas.areas).enumerated() {
            table.add(a.id)
            table.add(disclosure.show(a.nCurrent))
            table.add(disclosure.show(a.nPrevious))
            let complete = disclosure.showsComparison(
                current: a.yearOverYear.current,
                previous: a.yearOverYear.previous)
            table.add(complete ? a.yearOverYear.delta : nil)
            table.add(complete ? a.yearOverYear.pct.map { percent($0) } : nil)
            table.add(disclosure.show(a.handled))
            table.add(km2(a.areaKm2))
            table.add(disclosure.show(a.nCurrent) == nil ? nil : density(a.densityEquivalent))
            table.add(a.safetyClass.rawValue)
            ParquetFiles.addChange(changes[k], to: table)
            if let r = rates?[k] {
                for v in [r.population, r.rateCurrent, r.ratePrevious, r.ebRateCurrent] { table.add(v) }
                table.add(r.note?.rawValue)
            }
            for count in a.yearCounts { table.add(disclosure.show(count)) }
            let polygons = TableWriters.rings(area).map { rings in
                rings.map { ring in ring.map { (x: coordinate($0.lon), y: coordinate($0.lat)) } }
            }
            try table.endRow(polygons: polygons)
        }
    }
}

/// ehsa.parquet: ehsa.csv's columns and values, the cell as in grid.parquet.
enum EHSAParquet {
    /// `cellColumn` is the grid's (`geohash`, or `h3` for an H3 cube: SPEC §18).
    static func attributes(steps: Int, cellColumn: String = "geohash") -> [ParquetSchema.Leaf] {
        // The step columns as ehsa.csv names them: between q_last and wkt.
        let zs = EHSACSV.header(steps: steps).dropLast().split(separator: ",").dropFirst(11).dropLast()
        var leaves: [ParquetSchema.Leaf] = [
            .string(cellColumn), .double("lat"), .double("lon"), .string("label"),
            .double("trend_z"), .double("trend_p"), .double("tau"),
            .int64("hot_steps"), .int64("cold_steps"), .double("z_last"),
            .double("q_last")
        ]
        for z in zs { leaves.append(.double(String(z))) }
        return leaves
    }

    static func write(_ report: EHSAReport, version: String, to path: String) throws {
        let leaves = attributes(steps: report.parameters.steps, cellColumn: report.parameters.grid.cellColumn)
        try ParquetFiles.write(to: path, attributes: leaves, version: version) { table in
            try rows(report, into: table)
        }
    }

    /// The rows of `attributes(steps:)`, each ending with the cell's rectangle (geohash) or
    /// ehsa.geojson's polygons (H3).
    static func rows(_ report: EHSAReport, into table: some FeatureRows) throws {
        var coordinate = FixedDecimals(6)
        for l in report.locations {
            table.add(l.text)
            let centre = l.centre
            table.add(coordinate(centre.lat))
            table.add(coordinate(centre.lon))
            table.add(l.label.rawValue)
            for v in [l.trend.z, l.trend.p, l.trend.tau] { table.add(v) }
            table.add(l.hotSteps)
            table.add(l.coldSteps)
            for v in [l.zLast, l.qLast] + l.z { table.add(v) }
            guard case .geohash = l.system else {
                let polygons = EHSAGeometry.parts(l).map { ring in
                    [ring.map { (x: coordinate($0.lon), y: coordinate($0.lat)) }]
                }
                try table.endRow(polygons: polygons)
                continue
            }
            let b = l.cell.bounds
            try table.endRow(
                rectangle: coordinate(b.minLon), coordinate(b.minLat),
                coordinate(b.maxLon), coordinate(b.maxLat))
        }
    }
}

/// Timing of the grid.parquet writer alone (for `make bench`: the report stage's cost of it).
public enum GridParquetTiming {
    /// Writes the grid with the report's `changes` to `path`; returns the seconds it took and
    /// the file's bytes.
    public static func write(
        _ grid: GridResult, changes: [ChangeSignificance?], to path: String
    ) throws -> (seconds: Double, bytes: Int64) {
        try timedWrite(to: path) {
            try GridParquet.write(grid, changes: changes, disclosure: Disclosure(), version: "benchmark", to: path)
        }
    }
}

/// The seconds `write` takes and the bytes of the file it leaves at `path` (the writers' timings
/// alone, for `make bench`).
func timedWrite(to path: String, _ write: () throws -> Void) rethrows -> (seconds: Double, bytes: Int64) {
    let start = MonotonicClock.now()
    try write()
    let seconds = MonotonicClock.now() - start
    var info = stat()
    stat(path, &info)
    return (seconds, Int64(info.st_size))
}
