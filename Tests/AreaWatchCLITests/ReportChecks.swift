import Foundation
import Testing

// Checks of a report folder against SPEC §8 and docs/FORMATS.md, written from the documents,
// shared by the tests of the different reports. Each returns the problems it found.

extension StrictCSV {
    /// RFC 4180 with minimal quoting and `\n` line ends: what a conforming writer produces.
    static func serialize(_ rows: [[String]]) -> String {
        var out = ""
        for row in rows {
            out += row.map { needsQuotes($0) ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                .joined(separator: ",")
            out += "\n"
        }
        return out
    }

    /// Problems with a CSV output: quoting violations, other line ends than LF, fields that
    /// are quoted without need or not quoted when they must be, rows of another width.
    static func outputProblems(_ bytes: [UInt8], name: String) -> [String] {
        let parsed = parse(bytes)
        var problems = parsed.violations.map { "\(name): \($0)" }
        if parsed.lineEnds != ["\n"] && !parsed.rows.isEmpty {
            problems.append("\(name): line ends \(parsed.lineEnds)")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { problems.append("\(name): starts with a BOM") }
        let width = parsed.header.count
        for row in parsed.rows where row.fields.count != width {
            problems.append("\(name) line \(row.line): \(row.fields.count) fields, header has \(width)")
        }
        if String(decoding: bytes, as: UTF8.self) != serialize(parsed.rows.map(\.fields)) {
            problems.append("\(name): not written with RFC 4180 minimal quoting")
        }
        return problems
    }
}

/// One grid.csv row.
struct GridRow {
    var geohash: String
    var lat: String
    var lon: String
    var nCurrent: Int
    var nPrevious: Int
    var rCurrent: Int
    var rPrevious: Int
    var delta: Int
    var pct: String
    var handled: Int
    var safetyClass: String
    /// SPEC §12: empty when withheld.
    var pChange: String = ""
    var qChange: String = ""
    var change: String = ""
    var years: [Int: Int]
    var wkt: String
}

struct GridCSV {
    static let specColumns = [
        "geohash", "lat", "lon", "n_current", "n_previous", "r_current", "r_previous", "delta", "pct", "handled",
        "class"
    ]
    /// SPEC §12's columns, right after `class`.
    static let changeColumns = ["p_change", "q_change", "change"]

    var header: [String]
    var years: [Int]
    var rows: [GridRow]
    var problems: [String]

    var byGeohash: [String: GridRow] { Dictionary(uniqueKeysWithValues: rows.map { ($0.geohash, $0) }) }

    /// Reads grid.csv and checks every row against SPEC §8 / FORMATS.md.
    init(_ bytes: [UInt8], precision: Int, thresholds: (Double, Double) = (5, 10)) {
        problems = StrictCSV.outputProblems(bytes, name: "grid.csv")
        let parsed = StrictCSV.parse(bytes)
        header = parsed.header
        rows = []
        years = []
        guard header.count >= 15, Array(header.prefix(14)) == GridCSV.specColumns + GridCSV.changeColumns,
            header.last == "wkt"
        else {
            problems.append("grid.csv header \(header)")
            return
        }
        let yearColumns = header.dropFirst(14).dropLast()
        years = yearColumns.compactMap { $0.hasPrefix("y") ? Int($0.dropFirst()) : nil }
        if years.count != yearColumns.count || years != years.sorted() {
            problems.append("grid.csv year columns \(yearColumns)")
        }
        let lattice = Lattice(precision: precision)
        var previous = ""
        for row in parsed.records {
            let f = row.fields
            guard f.count == header.count else { continue }
            func int(_ k: Int) -> Int {
                guard let v = Int(f[k]) else {
                    problems.append("grid.csv line \(row.line): \(header[k]) = \(f[k])")
                    return 0
                }
                return v
            }
            var years: [Int: Int] = [:]
            for (k, y) in self.years.enumerated() { years[y] = int(14 + k) }
            let r = GridRow(
                geohash: f[0], lat: f[1], lon: f[2], nCurrent: int(3), nPrevious: int(4), rCurrent: int(5),
                rPrevious: int(6),
                delta: int(7), pct: f[8], handled: int(9), safetyClass: f[10], pChange: f[11], qChange: f[12],
                change: f[13], years: years, wkt: f[f.count - 1])
            rows.append(r)
            if problems.count > 50 { continue }
            let at = "grid.csv line \(row.line) (\(r.geohash))"
            if r.geohash <= previous { problems.append("\(at): not sorted by geohash after \(previous)") }
            previous = r.geohash
            guard let cell = lattice.cell(geohash: r.geohash) else {
                problems.append("\(at): not a geohash of precision \(precision)")
                continue
            }
            let c = lattice.centre(cell), b = lattice.bounds(cell)
            if r.lat != fixed(c.lat, 6) || r.lon != fixed(c.lon, 6) {
                problems.append("\(at): centre \(r.lat),\(r.lon)")
            }
            if r.delta != r.rCurrent - r.rPrevious { problems.append("\(at): delta") }
            let pct = r.rPrevious == 0 ? "" : fixed(Double(r.delta) / Double(r.rPrevious), 4)
            if r.pct != pct { problems.append("\(at): pct \(r.pct), expected \(pct)") }
            if r.safetyClass != classify(r.rCurrent, thresholds: thresholds) {
                problems.append("\(at): class \(r.safetyClass) for r_current \(r.rCurrent)")
            }
            if r.handled > r.rCurrent || r.handled < 0 { problems.append("\(at): handled \(r.handled) > r_current") }
            // SPEC §12 at the default α 0.05: 0 ≤ p ≤ q ≤ 1 (BH never lowers a p-value), and the
            // direction follows q and the sign of the change.
            if let p = Double(r.pChange), let q = Double(r.qChange) {
                if !(p >= 0 && p <= q && q <= 1) {
                    problems.append("\(at): p_change \(r.pChange), q_change \(r.qChange)")
                }
                let expected = q <= 0.05 && r.delta > 0 ? "rise" : q <= 0.05 && r.delta < 0 ? "fall" : "none"
                if r.change != expected { problems.append("\(at): change \(r.change), expected \(expected)") }
            } else {
                problems.append("\(at): p_change/q_change \(r.pChange)/\(r.qChange)")
            }
            if r.nCurrent + r.nPrevious + r.rCurrent + r.rPrevious == 0 {
                problems.append("\(at): a cell with nothing to report")
            }
            if r.years.values.reduce(0, +) < r.nCurrent + r.nPrevious {
                problems.append("\(at): years add up to less than n_current + n_previous")
            }
            let corners = [
                (b.minLon, b.minLat), (b.maxLon, b.minLat), (b.maxLon, b.maxLat), (b.minLon, b.maxLat),
                (b.minLon, b.minLat)
            ]
            let wkt =
                "POLYGON ((" + corners.map { "\(fixed($0.0, 6)) \(fixed($0.1, 6))" }.joined(separator: ", ") + "))"
            if r.wkt != wkt { problems.append("\(at): wkt \(r.wkt), expected \(wkt)") }
        }
    }

    /// grid.csvt: the column types GDAL reads.
    func csvtProblems(_ bytes: [UInt8]) -> [String] {
        let parsed = StrictCSV.parse(bytes)
        guard parsed.rows.count == 1, let types = parsed.rows.first?.fields else { return ["grid.csvt: not one line"] }
        let expected =
            [
                "String", "Real", "Real", "Integer", "Integer", "Integer", "Integer", "Integer", "Real", "Integer",
                "String"
            ]
            + ["Real", "Real", "String"] + years.map { _ in "Integer" } + ["WKT"]
        return types == expected ? [] : ["grid.csvt: \(types), expected \(expected)"]
    }
}

enum GeoJSONCheck {
    /// Decimal places of a JSON number text; nil when it has an exponent.
    static func decimals(_ text: String) -> Int? {
        if text.contains("e") || text.contains("E") { return nil }
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: text.index(after: dot), to: text.endIndex)
    }

    /// Twice the signed area of a ring in (lon, lat): positive when counter-clockwise.
    static func signedArea(_ ring: [(Double, Double)]) -> Double {
        var sum = 0.0
        for k in 0..<(ring.count - 1) {
            sum += ring[k].0 * ring[k + 1].1 - ring[k + 1].0 * ring[k].1
        }
        return sum
    }

    /// RFC 7946 checks of one Polygon or MultiPolygon geometry (exterior rings CCW, holes CW).
    static func geometryProblems(_ geometry: JSON, at: String, allowMulti: Bool = false) -> [String] {
        var problems: [String] = []
        if geometry["crs"] != nil { problems.append("\(at): geometry has a crs member") }
        let type = geometry["type"]?.string
        var polygons: [[JSON]] = []
        if type == "Polygon", let rings = geometry["coordinates"]?.array {
            polygons = [rings]
        } else if allowMulti, type == "MultiPolygon", let parts = geometry["coordinates"]?.array {
            polygons = parts.compactMap(\.array)
        } else {
            return ["\(at): geometry type \(type ?? "none")"]
        }
        for rings in polygons {
            if rings.isEmpty { problems.append("\(at): a polygon without rings") }
            for (k, ringJSON) in rings.enumerated() {
                guard let positions = ringJSON.array, positions.count >= 4 else {
                    problems.append("\(at): ring \(k) has fewer than 4 positions")
                    continue
                }
                var ring: [(Double, Double)] = []
                for p in positions {
                    guard let xy = p.array, xy.count == 2, let lonText = xy[0].numberText,
                        let latText = xy[1].numberText,
                        let lon = Double(lonText), let lat = Double(latText)
                    else {
                        problems.append("\(at): position \(p)")
                        continue
                    }
                    if !(-180...180).contains(lon) || !(-90...90).contains(lat) {
                        problems.append("\(at): position out of range \(p)")
                    }
                    if (decimals(lonText) ?? 99) > 6 || (decimals(latText) ?? 99) > 6 {
                        problems.append("\(at): more than 6 decimals in \(p)")
                    }
                    ring.append((lon, lat))
                }
                guard ring.count == positions.count else { continue }
                if positions.first != positions.last { problems.append("\(at): ring \(k) is not closed") }
                let area = signedArea(ring)
                if k == 0 && area <= 0 {
                    problems.append("\(at): exterior ring is not counter-clockwise (signed area \(area))")
                }
                if k > 0 && area >= 0 { problems.append("\(at): hole \(k) is not clockwise") }
            }
        }
        return problems
    }

    static let gridProperties = [
        "geohash", "lat", "lon", "n_current", "n_previous", "r_current", "r_previous", "delta", "pct", "handled",
        "class", "p_change", "q_change", "change", "years"
    ]

    /// grid.geojson: RFC 7946 and §7.2 properties, feature by feature the same cells and figures
    /// as grid.csv (counts below K withheld as null with --min-cell-count K ≥ 2). Returns the
    /// problems and the number of features.
    static func gridProblems(_ bytes: [UInt8], csv: GridCSV, precision: Int, minCellCount: Int = 1) -> ([String], Int) {
        var problems: [String] = []
        let root: JSON
        do { root = try JSON.parse(bytes) } catch { return (["grid.geojson: \(error)"], 0) }
        if root["type"]?.string != "FeatureCollection" { problems.append("grid.geojson: not a FeatureCollection") }
        if root["crs"] != nil { problems.append("grid.geojson: has a crs member") }
        if root["precision"]?.int != precision {
            problems.append("grid.geojson: precision member \(root["precision"]?.description ?? "-")")
        }
        guard let features = root["features"]?.array else { return (problems + ["grid.geojson: no features array"], 0) }
        if features.count != csv.rows.count {
            problems.append("grid.geojson: \(features.count) features, grid.csv \(csv.rows.count) rows")
        }
        func shown(_ v: Int) -> JSON { minCellCount > 1 && v < minCellCount ? .null : .number(String(v)) }
        for (k, feature) in features.enumerated() {
            if problems.count > 50 { break }
            let at = "grid.geojson feature \(k)"
            if feature["type"]?.string != "Feature" { problems.append("\(at): type") }
            if feature["crs"] != nil { problems.append("\(at): crs member") }
            guard let geometry = feature["geometry"], let properties = feature["properties"] else {
                problems.append("\(at): no geometry or properties")
                continue
            }
            problems += geometryProblems(geometry, at: at)
            if geometry["coordinates"]?.array?.count != 1 { problems.append("\(at): a cell polygon has one ring") }
            if properties.keys != gridProperties { problems.append("\(at): properties \(properties.keys)") }
            guard k < csv.rows.count else { continue }
            let row = csv.rows[k]
            if properties["geohash"]?.string != row.geohash || feature["id"]?.string != row.geohash {
                problems.append(
                    "\(at): geohash \(properties["geohash"]?.description ?? "-"), grid.csv row \(k) is \(row.geohash)")
                continue
            }
            if properties["lat"]?.numberText != row.lat || properties["lon"]?.numberText != row.lon {
                problems.append("\(at): centre")
            }
            let withheld = minCellCount > 1 && (row.rCurrent < minCellCount || row.rPrevious < minCellCount)
            let expected: [(String, JSON)] = [
                ("n_current", shown(row.nCurrent)), ("n_previous", shown(row.nPrevious)),
                ("r_current", shown(row.rCurrent)),
                ("r_previous", shown(row.rPrevious)), ("delta", withheld ? .null : .number(String(row.delta))),
                ("pct", withheld || row.pct.isEmpty ? .null : .number(row.pct)), ("handled", shown(row.handled)),
                ("class", .string(row.safetyClass)),
                ("p_change", row.pChange.isEmpty ? .null : .number(row.pChange)),
                ("q_change", row.qChange.isEmpty ? .null : .number(row.qChange)),
                ("change", row.change.isEmpty ? .null : .string(row.change))
            ]
            for (name, value) in expected where properties[name] != value {
                problems.append(
                    "\(at) (\(row.geohash)): \(name) = \(properties[name]?.description ?? "-"), expected \(value)")
            }
            let years = row.years.filter { $0.value > 0 && $0.value >= minCellCount }.sorted { $0.key < $1.key }.map {
                (String($0.key), shown($0.value))
            }
            if properties["years"] != .object(years) {
                problems.append("\(at): years \(properties["years"]?.description ?? "-")")
            }
            // The polygon is the cell, written as grid.csv's WKT.
            let ring =
                geometry["coordinates"]?[0]?.array?.compactMap { p in
                    p.array.map { $0.compactMap(\.numberText).joined(separator: " ") }
                } ?? []
            if "POLYGON ((" + ring.joined(separator: ", ") + "))" != row.wkt {
                problems.append("\(at): polygon differs from grid.csv's wkt")
            }
        }
        return (problems, features.count)
    }
}

enum TileCheck {
    static func tilePrecision(zoom: Int, maxZoom: Int, reportPrecision: Int) -> Int {
        max(1, reportPrecision - (maxZoom - zoom + 1) / 2)
    }

    /// tiles/: TileJSON 3.0.0, and every tile recomputed from grid.csv: at each zoom every
    /// reported cell merged to the zoom's precision (max r_current, max r_previous, class of
    /// the max) listed once, in the tile holding the merged cell's centre.
    static func problems(
        report: [String: [UInt8]], csv: GridCSV, precision: Int, zooms: ClosedRange<Int>, asOf: String,
        minCellCount: Int = 1, thresholds: (Double, Double) = (5, 10), attribution: String? = nil
    ) -> [String] {
        var problems: [String] = []
        guard let tileJSONBytes = report["tiles/tilejson.json"], let meta = try? JSON.parse(tileJSONBytes) else {
            return ["tiles/tilejson.json missing or not JSON"]
        }
        for key in [
            "tilejson", "tiles", "name", "description", "version", "attribution", "minzoom", "maxzoom", "bounds",
            "center"
        ] where meta[key] == nil {
            problems.append("tilejson.json: no \(key)")
        }
        if meta["tilejson"]?.string != "3.0.0" {
            problems.append("tilejson.json: tilejson \(meta["tilejson"]?.description ?? "-")")
        }
        if meta["tiles"]?.array?.compactMap(\.string).isEmpty != false {
            problems.append("tilejson.json: tiles is not a list of URLs")
        }
        if meta["minzoom"]?.int != zooms.lowerBound || meta["maxzoom"]?.int != zooms.upperBound {
            problems.append("tilejson.json: zooms")
        }
        if let attribution, meta["attribution"]?.string != attribution { problems.append("tilejson.json: attribution") }
        let lattice = Lattice(precision: precision)
        var box = (minLon: 180.0, minLat: 90.0, maxLon: -180.0, maxLat: -90.0)
        for row in csv.rows {
            guard let c = lattice.cell(geohash: row.geohash) else { continue }
            let b = lattice.bounds(c)
            box = (
                min(box.minLon, b.minLon), min(box.minLat, b.minLat), max(box.maxLon, b.maxLon),
                max(box.maxLat, b.maxLat)
            )
        }
        let bounds = meta["bounds"]?.array?.compactMap(\.numberText) ?? []
        if !csv.rows.isEmpty
            && bounds != [fixed(box.minLon, 6), fixed(box.minLat, 6), fixed(box.maxLon, 6), fixed(box.maxLat, 6)]
        {
            problems.append("tilejson.json: bounds \(bounds), cells span \(box)")
        }
        if let center = meta["center"]?.array?.compactMap(\.double), center.count == 3 {
            if !(box.minLon...box.maxLon).contains(center[0]) || !(box.minLat...box.maxLat).contains(center[1])
                || !zooms.contains(Int(center[2]))
            {
                problems.append("tilejson.json: center \(center) outside the bounds or zooms")
            }
        } else {
            problems.append("tilejson.json: center is not [lon, lat, zoom]")
        }
        let aw = meta["areawatch"]
        if aw?["precision"]?.int != precision || aw?["as_of"]?.string != asOf
            || aw?["min_cell_count"]?.int != minCellCount
        {
            problems.append("tilejson.json: areawatch member \(aw?.description ?? "-")")
        }

        // Every tile file parses and holds exactly the merged cells expected at its zoom.
        var found: [Int: [String: (x: Int, y: Int, value: JSON)]] = [:]
        for (path, bytes) in report where path.hasPrefix("tiles/") && path != "tiles/tilejson.json" {
            let parts = path.dropFirst("tiles/".count).split(separator: "/")
            guard parts.count == 3, let z = Int(parts[0]), let x = Int(parts[1]), parts[2].hasSuffix(".json"),
                let y = Int(parts[2].dropLast(5))
            else {
                problems.append("unexpected file \(path)")
                continue
            }
            guard zooms.contains(z) else {
                problems.append("\(path): zoom outside \(zooms)")
                continue
            }
            guard let tile = try? JSON.parse(bytes) else {
                problems.append("\(path): not JSON")
                continue
            }
            let q = tilePrecision(zoom: z, maxZoom: zooms.upperBound, reportPrecision: precision)
            if tile.keys != ["as_of", "precision", "radius_m", "cells"] {
                problems.append("\(path): members \(tile.keys)")
            }
            if tile["precision"]?.int != q {
                problems.append("\(path): precision \(tile["precision"]?.description ?? "-"), expected \(q)")
            }
            if tile["as_of"]?.string != asOf { problems.append("\(path): as_of") }
            let cells = tile["cells"]?.members ?? []
            if cells.isEmpty { problems.append("\(path): a tile with no cell was written") }
            if cells.map(\.0) != cells.map(\.0).sorted() { problems.append("\(path): cells not in geohash order") }
            let tileLattice = Lattice(precision: q)
            for (geohash, value) in cells {
                guard let cell = tileLattice.cell(geohash: geohash) else {
                    problems.append("\(path): \(geohash) is not of precision \(q)")
                    continue
                }
                let centre = tileLattice.centre(cell)
                let t = tileOf(lat: centre.lat, lon: centre.lon, zoom: z)
                let onEdge = abs(t.yf - t.yf.rounded()) < 1e-9 || abs(t.xf - t.xf.rounded()) < 1e-9
                if (t.x, t.y) != (x, y) && !(onEdge && abs(t.x - x) <= 1 && abs(t.y - y) <= 1) {
                    problems.append("\(path): \(geohash)'s centre lies in tile \(z)/\(t.x)/\(t.y)")
                }
                if found[z, default: [:]][geohash] != nil { problems.append("\(path): \(geohash) listed in two tiles") }
                found[z, default: [:]][geohash] = (x, y, value)
            }
            if problems.count > 50 { return problems }
        }
        for z in zooms {
            let q = tilePrecision(zoom: z, maxZoom: zooms.upperBound, reportPrecision: precision)
            // A merged cell: the maxima of its cells, and the change of its worst spot (the first
            // of its cells, in geohash order, with the largest r_current).
            var merged: [String: (Int, Int)] = [:]
            var worst: [String: GridRow] = [:]
            for row in csv.rows {
                let key = String(row.geohash.prefix(q))
                let m = merged[key] ?? (0, 0)
                merged[key] = (max(m.0, row.rCurrent), max(m.1, row.rPrevious))
                if worst[key].map({ row.rCurrent > $0.rCurrent }) ?? true { worst[key] = row }
            }
            let tiles = found[z] ?? [:]
            if Set(tiles.keys) != Set(merged.keys) {
                problems.append("zoom \(z): \(tiles.count) cells in tiles, \(merged.count) expected at precision \(q)")
                continue
            }
            func shown(_ v: Int) -> JSON { minCellCount > 1 && v < minCellCount ? .null : .number(String(v)) }
            for (geohash, (rc, rp)) in merged {
                let change = worst[geohash]?.change ?? ""
                let expected: JSON = .array([
                    shown(rc), shown(rp), .string(classify(rc, thresholds: thresholds)),
                    .string(change.isEmpty ? "none" : change)
                ])
                if tiles[geohash]?.value != expected {
                    problems.append(
                        "zoom \(z) \(geohash): \(tiles[geohash]?.value.description ?? "-"), expected \(expected)")
                    if problems.count > 50 { return problems }
                }
            }
        }
        return problems
    }
}

/// grid.csv against the independent model: the same cells, the same counts inside, radius
/// counts within the model's (undecidable-pair) ranges, the same years.
func modelProblems(csv: GridCSV, model: ModelGrid) -> [String] {
    var problems: [String] = []
    if csv.years != model.years { problems.append("year columns \(csv.years), model \(model.years)") }
    let reported = csv.byGeohash
    for (geohash, cell) in model.required where reported[geohash] == nil {
        problems.append("cell \(geohash) missing (model: n_current \(cell.nCurrent), r_current \(cell.rCurrent))")
        if problems.count > 30 { return problems }
    }
    for row in csv.rows {
        guard let cell = model.required[row.geohash] ?? model.optional[row.geohash] else {
            problems.append("cell \(row.geohash) reported, but no windowed incident is inside or within the radius")
            continue
        }
        var figures: [String] = []
        if row.nCurrent != cell.nCurrent { figures.append("n_current \(row.nCurrent) vs \(cell.nCurrent)") }
        if row.nPrevious != cell.nPrevious { figures.append("n_previous \(row.nPrevious) vs \(cell.nPrevious)") }
        if !cell.rCurrent.contains(row.rCurrent) { figures.append("r_current \(row.rCurrent) vs \(cell.rCurrent)") }
        if !cell.rPrevious.contains(row.rPrevious) {
            figures.append("r_previous \(row.rPrevious) vs \(cell.rPrevious)")
        }
        if !cell.handled.contains(row.handled) { figures.append("handled \(row.handled) vs \(cell.handled)") }
        for y in model.years where (row.years[y] ?? 0) != (cell.years[y] ?? 0) {
            figures.append("y\(y) \(row.years[y] ?? 0) vs \(cell.years[y] ?? 0)")
        }
        if !figures.isEmpty { problems.append("\(row.geohash): \(figures.joined(separator: ", "))") }
        if problems.count > 30 { return problems }
    }
    return problems
}

/// summary.json against the grid it describes and the model's totals.
func summaryProblems(_ bytes: [UInt8], csv: GridCSV, features: Int, model: ModelGrid?, report: [String: [UInt8]])
    -> [String]
{
    var problems: [String] = []
    guard let s = try? JSON.parse(bytes) else { return ["summary.json: not JSON"] }
    let order = [
        "engine", "as_of", "parameters", "source", "inputs", "totals", "rejects_by_reason", "rejects",
        "excluded_future", "grid", "areas", "points_of_interest", "ehsa", "near_repeat", "breakdown", "tiles",
        "files", "timings_s"
    ]
    let keys = s.keys
    if keys != order.filter({ keys.contains($0) })
        || !["engine", "as_of", "parameters", "totals", "grid", "timings_s"].allSatisfy(keys.contains)
    {
        problems.append("summary.json members \(keys)")
    }
    let grid = s["grid"]
    if grid?["cells"]?.int != csv.rows.count || features != csv.rows.count {
        problems.append(
            "cells: summary \(grid?["cells"]?.description ?? "-"), grid.csv \(csv.rows.count), grid.geojson \(features)"
        )
    }
    var classes: [String: Int] = ["safe": 0, "medium": 0, "dangerous": 0]
    for r in csv.rows { classes[r.safetyClass, default: 0] += 1 }
    for (name, count) in classes where grid?["classes"]?[name]?.int != count {
        problems.append("classes.\(name): summary \(grid?["classes"]?[name]?.description ?? "-"), grid.csv \(count)")
    }
    let nCurrent = csv.rows.reduce(0) { $0 + $1.nCurrent }, nPrevious = csv.rows.reduce(0) { $0 + $1.nPrevious }
    if grid?["n_current_sum"]?.int != nCurrent || grid?["n_previous_sum"]?.int != nPrevious {
        problems.append("n sums: summary \(grid?.description ?? "-"), grid.csv \(nCurrent)/\(nPrevious)")
    }
    // Every windowed incident lies in exactly one reported cell.
    if s["totals"]?["current"]?.int != nCurrent || s["totals"]?["previous"]?.int != nPrevious {
        problems.append("totals \(s["totals"]?.description ?? "-") vs grid.csv n sums \(nCurrent)/\(nPrevious)")
    }
    if let model {
        let t = s["totals"]
        if t?["current"]?.int != model.current || t?["previous"]?.int != model.previous
            || t?["older"]?.int != model.older
            || s["excluded_future"]?.int != model.future
        {
            problems.append(
                "totals \(t?.description ?? "-"), excluded_future \(s["excluded_future"]?.description ?? "-"); model current \(model.current) previous \(model.previous) older \(model.older) future \(model.future)"
            )
        }
    }
    // Every file written is listed (a folder by its name and a slash), and no other.
    let onDisk = Set(
        report.keys.map { $0.contains("/") ? String($0.split(separator: "/")[0]) + "/" : $0 }
    ).subtracting(["summary.json", ".areawatch-report"])
    let listed = Set((s["files"]?.members ?? []).map(\.0))
    if listed != onDisk {
        problems.append(
            "files: summary lists \(listed.subtracting(onDisk).sorted()), leaves out \(onDisk.subtracting(listed).sorted())"
        )
    }
    // Output sizes as written.
    for (name, size) in s["files"]?.members ?? [] {
        let actual =
            name == "tiles/"
            ? report.filter { $0.key.hasPrefix("tiles/") }.reduce(0) { $0 + $1.value.count }
            : report[name]?.count ?? -1
        if size.int != actual { problems.append("files.\(name): \(size) bytes, on disk \(actual)") }
    }
    let tileFiles = report.keys.filter { $0.hasPrefix("tiles/") && $0 != "tiles/tilejson.json" }.count
    if s["tiles"]?.int != tileFiles {
        problems.append("tiles: summary \(s["tiles"]?.description ?? "-"), files \(tileFiles)")
    }
    return problems
}
