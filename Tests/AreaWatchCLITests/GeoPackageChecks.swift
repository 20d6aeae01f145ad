import AreaWatchStore
import Foundation
import FoundationXML
import Testing

/// GDAL's tools over a GeoPackage, and the reading of `ogrinfo -so`'s summary.
enum GDAL {
    /// The tool on PATH, or nil after saying the check is skipped.
    static func tool(_ name: String) -> String? {
        guard let path = findTool(name) else {
            print("skipped: \(name) is not installed (make test-deps installs gdal-bin)")
            return nil
        }
        return path
    }

    /// Runs GDAL's validate_gpkg.py (Debian's python3-gdal), which must exit 0.
    static func validate(_ path: String) throws {
        let script = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"
        guard let python = findTool("python3"), FileManager.default.fileExists(atPath: script) else {
            print("skipped: GDAL's GeoPackage validator is not installed (make test-deps installs python3-gdal)")
            return
        }
        let r = try runTool(python, [script, path], timeout: 600)
        #expect(r.status == 0, "validate_gpkg.py: \(r)")
    }

    /// The fields `ogrinfo -so` lists after the geometry column: `name: Type (w.p)`.
    static func fields(_ summary: String) -> [(name: String, type: String)] {
        let lines = summary.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("Geometry Column = ") }) else { return [] }
        return lines[(start + 1)...].compactMap { line in
            guard let colon = line.range(of: ": ") else { return nil }
            let type = line[colon.upperBound...].split(separator: " ").first.map(String.init) ?? ""
            return (String(line[..<colon.lowerBound]), type)
        }
    }

    /// `ogrinfo -so` of a layer against its CSV: feature count, EPSG:4326, the geometry and fid
    /// columns, the fields (the CSV's but `wkt`, typed as the CSV's values read) and the extent
    /// of the CSV's WKT (or lon/lat for points) as ogrinfo prints it.
    static func summaryProblems(_ summary: String, csv: StrictCSV.Parsed, layer: String) -> [String] {
        var problems: [String] = []
        let rows = Array(csv.records)
        if !summary.contains("Feature Count: \(rows.count)\n") { problems.append("\(layer): count, CSV \(rows.count)") }
        if !summary.contains("ID[\"EPSG\",4326]") { problems.append("\(layer): the SRS is not EPSG:4326") }
        if !summary.contains("FID Column = fid") || !summary.contains("Geometry Column = geom") {
            problems.append("\(layer): fid and geom columns missing")
        }
        let header = csv.header.filter { $0 != "wkt" }
        let fields = fields(summary)
        if fields.map(\.name) != header { problems.append("\(layer): fields \(fields.map(\.name)), CSV \(header)") }
        for (k, field) in fields.enumerated() where k < header.count {
            let allowed = expectedTypes(rows.map { $0.fields[k] })
            if !allowed.contains(field.type) {
                problems.append("\(layer).\(field.name): \(field.type), CSV \(allowed)")
            }
        }
        var xs: [Double] = [], ys: [Double] = []
        if let wkt = csv.header.firstIndex(of: "wkt") {
            for row in rows {
                for p in ParquetCheck.wktPoints(row.fields[wkt]) {
                    xs.append(p[0])
                    ys.append(p[1])
                }
            }
        } else if let lon = csv.header.firstIndex(of: "lon"), let lat = csv.header.firstIndex(of: "lat") {
            xs = rows.compactMap { Double($0.fields[lon]) }
            ys = rows.compactMap { Double($0.fields[lat]) }
        }
        if let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() {
            let f = { (v: Double) in String(format: "%.6f", v) }
            let extent = "Extent: (\(f(minX)), \(f(minY))) - (\(f(maxX)), \(f(maxY)))"
            if !summary.contains(extent) { problems.append("\(layer): no \"\(extent)\" in \(summary.prefix(400))") }
        }
        return problems
    }

    /// The GDAL types a column may have given the CSV's values: whole numbers an Integer64 (or
    /// a Real the CSV prints without decimals), other numbers a Real, anything else a String.
    static func expectedTypes(_ values: [String]) -> Set<String> {
        let shown = values.filter { !$0.isEmpty }
        if shown.isEmpty { return ["String", "Integer64", "Real"] }
        if shown.allSatisfy({ Int64($0) != nil }) { return ["Integer64", "Real"] }
        if shown.allSatisfy({ Double($0) != nil }) { return ["Real"] }
        return ["String"]
    }
}

/// A layer's rows read through SQLite against its CSV: the same columns in the same order
/// (without `wkt`), each value the CSV's field (NULL where it is empty), the geometry the WKT's
/// polygon or the lon/lat point.
enum GeoPackageValues {
    static func problems(_ db: SQLiteDatabase, layer: String, csv: StrictCSV.Parsed) throws -> [String] {
        let columns = csv.header.filter { $0 != "wkt" }
        let names = try db.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")
        try names.bind([.text(layer)])
        var stored: [String] = []
        while try names.step() { stored.append(names.string(0) ?? "") }
        guard stored == ["fid", "geom"] + columns else { return ["\(layer) columns \(stored), the CSV's \(columns)"] }
        let rows = try db.prepare("SELECT * FROM \"\(layer)\" ORDER BY fid")
        var problems: [String] = []
        let records = Array(csv.records)
        var r = 0
        while try rows.step() {
            defer { r += 1 }
            guard r < records.count, problems.count < 20 else { continue }
            let fields = records[r].fields
            for (k, column) in columns.enumerated() where !same(rows.value(Int32(k + 2)), fields[k]) {
                problems.append("\(layer) row \(r) \(column): \(rows.value(Int32(k + 2))), the CSV \(fields[k])")
            }
            let blob = rows.blob(1) ?? []
            let headerLength = 8 + ((blob.count > 3 && blob[3] & 0x0E == 2) ? 32 : 0)
            let wkb = Array(blob.dropFirst(headerLength))
            if let wkt = csv.header.firstIndex(of: "wkt") {
                let points = WKBPolygons(wkb).map { $0.rings.joined().joined().map { [$0.0, $0.1] } }
                if points != ParquetCheck.wktPoints(fields[wkt]) {
                    problems.append("\(layer) row \(r): geometry \(String(describing: points)), WKT \(fields[wkt])")
                }
            } else if let lon = columns.firstIndex(of: "lon"), let lat = columns.firstIndex(of: "lat") {
                let point =
                    wkb.count == 21
                    ? [5, 13].map { at in
                        Double(bitPattern: wkb[at..<at + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                    } : []
                if point != [Double(fields[lon]), Double(fields[lat])] {
                    problems.append("\(layer) row \(r): point \(point), the CSV \(fields[lon]) \(fields[lat])")
                }
            }
        }
        if r != records.count { problems.append("\(layer): \(r) rows, the CSV \(records.count)") }
        return problems
    }

    /// A stored value against a CSV field: NULL (or empty text) for an empty field, numbers
    /// equal as read, text equal to the field without a spreadsheet guard.
    static func same(_ value: SQLValue, _ field: String) -> Bool {
        switch value {
        case .null: return field.isEmpty
        case .integer(let v): return Int64(field) == v
        case .real(let v): return Double(field) == v
        case .text(let v):
            let guarded = field.hasPrefix("'") && "=+-@\t\r".contains(field.dropFirst().first ?? " ")
            return v == field || (guarded && v == String(field.dropFirst()))
        }
    }
}

/// ogr2ogr's GeoJSON of a layer against the report's: the same features in the same order,
/// the same coordinates, and every property of the report's with the same value (its `years`
/// object's members as the `yYYYY` columns).
enum GeoJSONCompare {
    static func problems(_ got: JSON, expected: JSON, name: String) -> [String] {
        let a = got["features"]?.array ?? [], b = expected["features"]?.array ?? []
        guard a.count == b.count else { return ["\(name): \(a.count) features, the report's \(b.count)"] }
        var problems: [String] = []
        for (k, (g, e)) in zip(a, b).enumerated() where problems.count < 20 {
            let (gc, ec) = (numbers(g["geometry"]?["coordinates"]), numbers(e["geometry"]?["coordinates"]))
            if gc.count != ec.count || zip(gc, ec).contains(where: { abs($0 - $1) > 1e-12 }) {
                problems.append("\(name) feature \(k): coordinates differ")
            }
            var properties = e["properties"]?.members ?? []
            if let years = properties.first(where: { $0.0 == "years" })?.1 {
                properties = properties.filter { $0.0 != "years" } + years.members.map { ("y" + $0.0, $0.1) }
            }
            for (key, value) in properties {
                guard let other = g["properties"]?[key] else {
                    problems.append("\(name) feature \(k): no property \(key)")
                    continue
                }
                let equal = value.double.map { $0 == other.double } ?? (value == other)
                if !equal { problems.append("\(name) feature \(k) \(key): \(other), the report's \(value)") }
            }
        }
        return problems
    }

    static func numbers(_ json: JSON?) -> [Double] {
        guard let json else { return [] }
        if let items = json.array { return items.flatMap { numbers($0) } }
        return json.double.map { [$0] } ?? []
    }
}

/// A category of a style: the attribute's value, its legend label, its colour (`#rrggbb`).
struct StyleCategory: Hashable, CustomStringConvertible {
    var value: String
    var label: String
    var colour: String
    var description: String { "\(value)/\(label)/\(colour)" }
}

/// The page's legends: what the styles must match.
enum PageLegend {
    /// The heatmap legend's classes: `data-class`, the swatch's fill, the label.
    static func classes(_ html: String) -> [StyleCategory] {
        let pattern =
            #"<g class="legend-entry" data-class="([a-z]+)"><rect [^>]*fill="(#[0-9a-f]{6})"[^>]*/>"#
            + #"<text [^>]*>([^<]+)</text>"#
        return matches(pattern, in: html).map { StyleCategory(value: $0[0], label: $0[2], colour: $0[1]) }
    }

    /// The EHSA map's labels: each label's group of cells and its fill (the heatmap's groups
    /// are named by class).
    static func hotSpotLabels(_ html: String) -> [StyleCategory] {
        matches(#"<g class="cells ([a-z-]+)" fill="(#[0-9a-f]{6})""#, in: html).filter {
            $0[0].hasSuffix("-spot") || $0[0] == "no-pattern"
        }.map {
            let label = $0[0].replacingOccurrences(of: "-", with: " ")
            return StyleCategory(value: label, label: label, colour: $0[1])
        }
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (1..<m.numberOfRanges).map { ns.substring(with: m.range(at: $0)) }
        }
    }
}
