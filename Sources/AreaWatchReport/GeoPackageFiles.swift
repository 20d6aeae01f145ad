import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery
import AreaWatchStore
import Glibc

/// grid.gpkg (SPEC §19, docs/FORMATS.md "grid.gpkg"): one GeoPackage holding the layers `grid`
/// (grid.csv's columns and values, the cell's polygon), `areas`, `poi` and `ehsa` when the
/// report has them, each with the same columns as its CSV (no `wkt`), withheld figures NULL,
/// and a default QGIS style: the cells and areas coloured by class, the EHSA cells by label.
enum GeoPackageFiles {
    static let name = "grid.gpkg"

    static func write(_ c: ReportContent, changes: ReportChanges, to path: String) throws {
        // The work folder may be the previous report's spare, written over in place: its
        // grid.gpkg is a database the writer would add to, so the file starts anew.
        unlink(path)
        let file = try GeoPackageFile(path: path, lastChange: lastChange(c.parameters.asOf))
        let grid = try file.addLayer(
            "grid", geometry: GridParquet.needsMultiPolygons(c.grid) ? .multiPolygon : .polygon,
            columns: columns(GridParquet.attributes(years: c.grid.years, cellColumn: c.grid.system.cellColumn)),
            description: "grid.csv's cells (\(gridName(c.grid.system)))")
        try GridParquet.rows(c.grid, changes: changes.grid, disclosure: c.disclosure, into: GeoPackageRows(grid))
        try addStyle(.safetyClasses(layer: "grid", symbol: .fill), to: file)
        if let areas = c.areas {
            let multi = areas.areas.contains { $0.polygons.count != 1 }
            let layer = try file.addLayer(
                "areas", geometry: multi ? .multiPolygon : .polygon,
                columns: areaColumns(areas, disclosure: c.disclosure),
                description: "areas.csv's areas")
            try AreasParquet.rows(areas, disclosure: c.disclosure, changes: changes.areas, into: GeoPackageRows(layer))
            try addStyle(.safetyClasses(layer: "areas", symbol: .fill), to: file)
        }
        if let poi = c.pointsOfInterest {
            let layer = try file.addLayer("poi", geometry: .point, columns: poiColumns, description: "poi.csv's points")
            try poiRows(poi, disclosure: c.disclosure, changes: changes.pointsOfInterest, into: GeoPackageRows(layer))
            try addStyle(.safetyClasses(layer: "poi", symbol: .marker), to: file)
        }
        if let ehsa = c.ehsa {
            let layer = try file.addLayer(
                "ehsa", geometry: EHSAGeometry.needsMultiPolygons(ehsa) ? .multiPolygon : .polygon,
                columns: columns(
                    EHSAParquet.attributes(steps: ehsa.parameters.steps, cellColumn: ehsa.parameters.grid.cellColumn)),
                description: "ehsa.csv's locations")
            try EHSAParquet.rows(ehsa, into: GeoPackageRows(layer))
            try addStyle(.hotSpotLabels(layer: "ehsa"), to: file)
        }
        try file.finish()
    }

    /// The grid as the layer's description names it: `geohash 7` as it always has, or `h3 9`.
    static func gridName(_ system: GridSystem) -> String {
        switch system {
        case .geohash(let p): "geohash \(p)"
        case .h3(let r): "h3 \(r)"
        }
    }

    static func addStyle(_ style: CategorizedStyle, to file: GeoPackageFile) throws {
        try file.addStyle(
            layer: style.layer, name: style.layer, qml: style.qml, sld: style.sld,
            description: "areawatch: \(style.layer) by \(style.attribute), the report's colours")
    }

    /// The report's as-of as gpkg_contents.last_change: the file changes only with the data.
    static func lastChange(_ asOf: Int64) -> String { String(UTCTime.iso8601(asOf).dropLast()) + ".000Z" }

    /// The Parquet tables' columns as SQLite types GDAL reads (TEXT, INTEGER, REAL); every
    /// column may be NULL, as a withheld figure is.
    static func columns(_ leaves: [ParquetSchema.Leaf]) -> [GeoPackageColumn] {
        leaves.map { leaf in
            switch leaf.type {
            case .int64, .int32, .boolean: return GeoPackageColumn(leaf.name, .integer)
            case .double: return GeoPackageColumn(leaf.name, .real)
            case .byteArray: return GeoPackageColumn(leaf.name, .text)
            }
        }
    }

    /// areas.parquet's columns; the id column named as the id property unless SQLite (whose
    /// names ignore case) would confuse it with another column or with `fid`/`geom`: then
    /// `area_id` (docs/DECISIONS.md).
    static func areaColumns(_ areas: AreaReport, disclosure: Disclosure) -> [GeoPackageColumn] {
        let leaves = AreasParquet.attributes(
            idProperty: areas.idProperty, years: areas.result.years,
            rates: areas.rates(disclosure) != nil)
        var all = columns(leaves)
        let taken = Set((all.dropFirst().map(\.name) + ["fid", GeoPackageFile.geometryColumn]).map { $0.lowercased() })
        all[0].name = taken.contains(areas.idProperty.lowercased()) ? "area_id" : areas.idProperty
        return all
    }

    /// poi.csv's columns.
    static let poiColumns: [GeoPackageColumn] = [
        .init("name", .text), .init("lat", .real), .init("lon", .real), .init("radius_m", .real), .init("as_of", .text),
        .init("current", .integer), .init("previous", .integer), .init("delta", .integer), .init("pct", .real),
        .init("handled", .integer), .init("class", .text), .init("p_change", .real), .init("q_change", .real),
        .init("change", .text), .init("label", .text), .init("text", .text)
    ]

    /// poi.csv's rows (the name as given, without the CSV's spreadsheet guard), each a point.
    static func poiRows(
        _ answers: [(poi: PointOfInterest, answer: PointAnswer)], disclosure: Disclosure,
        changes: [ChangeSignificance?], into rows: GeoPackageRows
    ) throws {
        var coordinate = FixedDecimals(6), percent = FixedDecimals(4)
        for (k, (poi, a)) in answers.enumerated() {
            let complete = disclosure.showsComparison(current: a.current, previous: a.previous)
            rows.add(poi.name)
            rows.add(coordinate(poi.lat))
            rows.add(coordinate(poi.lon))
            rows.add(a.radius)
            rows.add(UTCTime.iso8601(a.asOf))
            rows.add(disclosure.show(a.current))
            rows.add(disclosure.show(a.previous))
            rows.add(complete ? a.delta : nil)
            rows.add(complete ? a.pct.map { percent($0) } : nil)
            rows.add(disclosure.show(a.handled))
            rows.add(a.safetyClass.rawValue)
            ParquetFiles.addChange(changes[k], to: rows)
            rows.add(a.label)
            rows.add(complete ? a.text : "")
            try rows.endRow(point: coordinate(poi.lon), coordinate(poi.lat))
        }
    }
}

/// Timing of the grid.gpkg writer with the grid layer alone (for `make bench`: its cost in
/// the report stage).
public enum GridGeoPackageTiming {
    /// Writes the grid to `path` (replacing a file there); returns the seconds it took and the
    /// file's bytes.
    public static func write(
        _ grid: GridResult, changes: [ChangeSignificance?], asOf: Int64,
        to path: String
    ) throws -> (seconds: Double, bytes: Int64) {
        unlink(path)
        return try timedWrite(to: path) {
            let file = try GeoPackageFile(path: path, lastChange: GeoPackageFiles.lastChange(asOf))
            let layer = try file.addLayer(
                "grid", geometry: .polygon,
                columns: GeoPackageFiles.columns(GridParquet.attributes(years: grid.years)),
                description: "grid")
            try GridParquet.rows(grid, changes: changes, disclosure: Disclosure(), into: GeoPackageRows(layer))
            try GeoPackageFiles.addStyle(.safetyClasses(layer: "grid", symbol: .fill), to: file)
            try file.finish()
        }
    }
}
