import AreaWatchCore
import AreaWatchQuery

/// grid.geojson (SPEC §8, §18): an RFC 7946 FeatureCollection, one Polygon per cell (a
/// MultiPolygon for an H3 cell split at the antimeridian), exterior rings counter-clockwise and
/// closed, `[lon, lat]` with 6 decimals, no `crs`; streamed cell by cell.
enum GridGeoJSON {
    static func write(_ grid: GridResult, changes: [ChangeSignificance?], to path: String, disclosure: Disclosure)
        throws
    {
        let file = try BufferedFile(path: path)
        // A geohash grid names its precision, as it always has; an H3 grid its system.
        let gridMember = Summary.gridParameter(grid)
        let header: JSONValue = .object([
            ("as_of", .string(UTCTime.iso8601(grid.parameters.asOf))),
            gridMember,
            ("radius_m", .number(grid.parameters.radius))
        ])
        // Foreign members first (RFC 7946 §6.1), then the features.
        var head = header.serialized()
        head.removeLast() // "}"
        try file.write("{\"type\":\"FeatureCollection\"," + head.dropFirst() + ",\"features\":[\n")
        var memos = GridTextMemos()
        for (k, cell) in grid.cells.enumerated() {
            try file.append { out in
                if k > 0 { out.append(contentsOf: ",\n".utf8) }
                appendFeature(cell, change: changes[k], grid: grid, disclosure: disclosure, to: &out, memos: &memos)
            }
        }
        try file.write("\n]}\n")
        try file.finish()
    }

    static func appendFeature(
        _ c: GridCell, change: ChangeSignificance?, grid: GridResult, disclosure: Disclosure,
        to out: inout [UInt8], memos: inout GridTextMemos
    ) {
        appendLiteral("{\"type\":\"Feature\",\"id\":\"", &out)
        if case .geohash = c.system {
            c.cell.appendCharacters(to: &out)
            appendLiteral("\",\"geometry\":", &out)
            appendPolygon(c.cell.bounds, to: &out, coordinates: &memos.coordinates)
            appendLiteral(",\"properties\":{\"geohash\":\"", &out)
        } else {
            c.system.appendText(of: c.id, to: &out)
            appendLiteral("\",\"geometry\":", &out)
            appendGeometry(
                CellPolygons.parts(of: c.system.boundary(of: c.id)), to: &out,
                coordinates: &memos.coordinates)
            appendLiteral(",\"properties\":{\"h3\":\"", &out)
        }
        c.system.appendText(of: c.id, to: &out)
        let centre = c.centre
        appendLiteral("\",\"lat\":", &out)
        memos.coordinates.append(centre.lat, to: &out)
        appendLiteral(",\"lon\":", &out)
        memos.coordinates.append(centre.lon, to: &out)
        let shown = CellFigures(c, disclosure: disclosure)
        appendMember("n_current", shown.nCurrent, &out)
        appendMember("n_previous", shown.nPrevious, &out)
        appendMember("r_current", shown.rCurrent, &out)
        appendMember("r_previous", shown.rPrevious, &out)
        appendMember("delta", shown.delta, &out)
        appendLiteral(",\"pct\":", &out)
        if let pct = shown.pct {
            NumberFormat.appendFixed(pct, decimals: 4, to: &out)
        } else {
            appendLiteral("null", &out)
        }
        appendMember("handled", shown.handled, &out)
        appendLiteral(",\"class\":\"", &out)
        out.append(contentsOf: c.safetyClass.rawValue.utf8)
        out.append(ASCII.quote)
        ReportChanges.appendJSON(change, to: &out, memo: &memos.changes)
        appendLiteral(",\"years\":{", &out)
        var first = true
        // Years with nothing to show are left out, as years with no incident are.
        grid.withYearCounts(of: c) { counts in
            for (k, year) in grid.years.enumerated() where counts[k] > 0 {
                let count = counts[k]
                guard let shownCount = disclosure.show(count) else { continue }
                if !first { out.append(44) }
                first = false
                out.append(34)
                NumberFormat.appendInteger(year, to: &out)
                appendLiteral("\":", &out)
                NumberFormat.appendInteger(shownCount, to: &out)
            }
        }
        appendLiteral("}}}", &out)
    }

    /// The cell as a GeoJSON Polygon: one exterior ring, counter-clockwise and closed, `[lon, lat]`
    /// with 6 decimals, without an array per cell (grid.geojson and ehsa.geojson).
    @inline(__always)
    static func appendPolygon(_ b: GeoBox, to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        appendLiteral("{\"type\":\"Polygon\",\"coordinates\":[[", &out)
        GridTextMemos.forEachCorner(b) { k, lon, lat in
            if k > 0 { out.append(44) }
            out.append(91)
            coordinates.append(lon, to: &out)
            out.append(44)
            coordinates.append(lat, to: &out)
            out.append(93)
        }
        appendLiteral("]]}", &out)
    }

    /// A cell's polygon parts (CellPolygons) as a GeoJSON Polygon, or a MultiPolygon when the
    /// antimeridian splits it (RFC 7946 §3.1.9).
    static func appendGeometry(_ parts: [CellPolygons.Ring], to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        let multi = parts.count > 1
        appendLiteral(
            multi
                ? "{\"type\":\"MultiPolygon\",\"coordinates\":["
                : "{\"type\":\"Polygon\",\"coordinates\":", &out)
        for (p, ring) in parts.enumerated() {
            if p > 0 { out.append(44) }
            appendLiteral("[[", &out)
            for (k, vertex) in ring.enumerated() {
                if k > 0 { out.append(44) }
                out.append(91)
                coordinates.append(vertex.lon, to: &out)
                out.append(44)
                coordinates.append(vertex.lat, to: &out)
                out.append(93)
            }
            appendLiteral("]]", &out)
        }
        appendLiteral(multi ? "]}" : "}", &out)
    }

    /// Appends literal text straight from the binary's bytes (no String transcoding per cell).
    @inline(__always)
    static func appendLiteral(_ text: StaticString, _ out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    @inline(__always)
    static func appendMember(_ name: StaticString, _ value: Int?, _ out: inout [UInt8]) {
        out.append(44)
        out.append(34)
        appendLiteral(name, &out)
        appendLiteral("\":", &out)
        if let value { NumberFormat.appendInteger(value, to: &out) } else { appendLiteral("null", &out) }
    }
}

/// A cell's public figures after disclosure control; derived figures are withheld with their inputs.
struct CellFigures {
    var nCurrent: Int?
    var nPrevious: Int?
    var rCurrent: Int?
    var rPrevious: Int?
    var delta: Int?
    var pct: Double?
    var handled: Int?

    init(_ c: GridCell, disclosure: Disclosure) {
        nCurrent = disclosure.show(c.nCurrent)
        nPrevious = disclosure.show(c.nPrevious)
        rCurrent = disclosure.show(c.rCurrent)
        rPrevious = disclosure.show(c.rPrevious)
        handled = disclosure.show(c.handled)
        let complete = disclosure.showsComparison(current: c.rCurrent, previous: c.rPrevious)
        delta = complete ? c.yearOverYear.delta : nil
        pct = complete ? c.yearOverYear.pct : nil
    }
}

/// grid.csv (SPEC §8, §18): the eleven SPEC columns (the first `geohash` or `h3`), one `yYYYY`
/// column per calendar year, then the cell polygon as WKT; in the cell order of the grid system;
/// withheld figures are empty fields (docs/PRIVACY.md).
enum GridCSV {
    static func header(years: [Int], cellColumn: String = "geohash") -> String {
        ([
            cellColumn, "lat", "lon", "n_current", "n_previous", "r_current", "r_previous", "delta", "pct", "handled",
            "class"
        ]
            + ReportChanges.csvHeader + years.map { "y\($0)" } + ["wkt"]).joined(separator: ",") + "\n"
    }

    /// `typesPath`: the `.csvt` beside the CSV, from which GDAL/QGIS read the column types.
    static func write(
        _ grid: GridResult, changes: [ChangeSignificance?], to path: String, typesPath: String,
        disclosure: Disclosure
    ) throws {
        let file = try BufferedFile(path: path)
        try file.write(header(years: grid.years, cellColumn: grid.system.cellColumn))
        var memos = GridTextMemos()
        for (k, c) in grid.cells.enumerated() {
            try file.append { out in
                appendRow(c, change: changes[k], grid: grid, disclosure: disclosure, to: &out, memos: &memos)
            }
        }
        try file.finish()
        let types =
            ["String", "Real", "Real"] + Array(repeating: "Integer", count: 5) + ["Real", "Integer", "String"]
            + ["Real", "Real", "String"] + Array(repeating: "Integer", count: grid.years.count) + ["WKT"]
        try BufferedFile.write(types.map { "\"\($0)\"" }.joined(separator: ",") + "\n", to: typesPath)
    }

    static func appendRow(
        _ c: GridCell, change: ChangeSignificance?, grid: GridResult, disclosure: Disclosure,
        to out: inout [UInt8], memos: inout GridTextMemos
    ) {
        let centre = c.centre
        c.system.appendText(of: c.id, to: &out)
        out.append(44)
        memos.coordinates.append(centre.lat, to: &out)
        out.append(44)
        memos.coordinates.append(centre.lon, to: &out)
        let shown = CellFigures(c, disclosure: disclosure)
        // Not a loop over an array of them: that was an allocation per row.
        func integer(_ v: Int?) {
            out.append(44)
            if let v { NumberFormat.appendInteger(v, to: &out) }
        }
        integer(shown.nCurrent)
        integer(shown.nPrevious)
        integer(shown.rCurrent)
        integer(shown.rPrevious)
        integer(shown.delta)
        out.append(44)
        if let pct = shown.pct { NumberFormat.appendFixed(pct, decimals: 4, to: &out) }
        out.append(44)
        if let handled = shown.handled { NumberFormat.appendInteger(handled, to: &out) }
        out.append(44)
        out.append(contentsOf: c.safetyClass.rawValue.utf8)
        ReportChanges.appendCSV(change, to: &out, memo: &memos.changes)
        grid.withYearCounts(of: c) { counts in
            for k in counts.indices {
                out.append(44)
                if let v = disclosure.show(counts[k]) { NumberFormat.appendInteger(v, to: &out) }
            }
        }
        out.append(contentsOf: ",\"".utf8)
        if case .geohash = c.system {
            appendWKT(c.cell.bounds, to: &out, coordinates: &memos.coordinates)
        } else {
            appendWKT(CellPolygons.parts(of: c.system.boundary(of: c.id)), to: &out, coordinates: &memos.coordinates)
        }
        out.append(contentsOf: "\"\n".utf8)
    }

    /// `POLYGON ((x y, …))`, counter-clockwise, closed.
    static func appendWKT(_ b: GeoBox, to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        GridGeoJSON.appendLiteral("POLYGON ((", &out)
        GridTextMemos.forEachCorner(b) { k, lon, lat in
            if k > 0 { GridGeoJSON.appendLiteral(", ", &out) }
            coordinates.append(lon, to: &out)
            out.append(32)
            coordinates.append(lat, to: &out)
        }
        GridGeoJSON.appendLiteral("))", &out)
    }
}

extension GridCSV {
    /// `POLYGON ((x y, …))`, or `MULTIPOLYGON (((x y, …)), ((x y, …)))` for a cell split at the
    /// antimeridian: each ring counter-clockwise and closed.
    static func appendWKT(_ parts: [CellPolygons.Ring], to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        let multi = parts.count > 1
        GridGeoJSON.appendLiteral(multi ? "MULTIPOLYGON (" : "POLYGON ", &out)
        for (p, ring) in parts.enumerated() {
            if p > 0 { GridGeoJSON.appendLiteral(", ", &out) }
            GridGeoJSON.appendLiteral("((", &out)
            for (k, vertex) in ring.enumerated() {
                if k > 0 { GridGeoJSON.appendLiteral(", ", &out) }
                coordinates.append(vertex.lon, to: &out)
                out.append(32)
                coordinates.append(vertex.lat, to: &out)
            }
            GridGeoJSON.appendLiteral("))", &out)
        }
        if multi { out.append(41) }
    }
}

/// The texts of a grid writer's repeated numbers, each formatted once (`NumberTextMemo`): the
/// cells' centres and edges (6 decimals, a few hundred latitudes and longitudes), p_change and
/// q_change.
struct GridTextMemos {
    var coordinates = NumberTextMemo(.fixed(decimals: 6))
    var changes = NumberTextMemo(.shortest)

    /// The closed ring of a cell, counter-clockwise from the south-west corner: `body(k, lon, lat)`
    /// for corner k = 0…4 (the last is the first again).
    @inline(__always)
    static func forEachCorner(_ b: GeoBox, _ body: (Int, Double, Double) -> Void) {
        body(0, b.minLon, b.minLat)
        body(1, b.maxLon, b.minLat)
        body(2, b.maxLon, b.maxLat)
        body(3, b.minLon, b.maxLat)
        body(4, b.minLon, b.minLat)
    }
}
