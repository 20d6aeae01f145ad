import AreaWatchCore
import AreaWatchQuery

/// The emerging hot spot analysis of a report (SPEC §13): its parameters and every location.
public struct EHSAReport: Sendable {
    public var parameters: EmergingHotSpotParameters
    /// In the cell order of the grid: ascending `GridCellID.raw` (geohash order, H3 index order).
    public var locations: [HotSpotLocation]
    public var summary: HotSpotSummary

    public init(parameters: EmergingHotSpotParameters, locations: [HotSpotLocation], summary: HotSpotSummary) {
        self.parameters = parameters
        self.locations = locations
        self.summary = summary
    }

    /// Locations per label, every label listed, in SPEC order.
    public var labelCounts: [(HotSpotLabel, Int)] {
        var counts = [HotSpotLabel: Int]()
        for l in locations { counts[l.label, default: 0] += 1 }
        return HotSpotLabel.allCases.map { ($0, counts[$0] ?? 0) }
    }
}

extension Disclosure {
    /// The locations public outputs show: those with at least `--min-cell-count` incidents in
    /// the cube (SPEC §10, §13). The report's cube already holds no other location (a cell of
    /// fewer is withheld from the computation, not only from the writing); this keeps a cube
    /// built without that rule from publishing one. With K = 1 every location qualifies.
    public func publicEHSA(_ report: EHSAReport) -> EHSAReport {
        var out = report
        out.locations = report.locations.filter { $0.incidents >= minCellCount }
        return out
    }
}

/// ehsa.csv (SPEC §13, §18): one row per location in the grid's cell order; statistics in their
/// shortest round-trip form (≥ 7 significant digits, exact), coordinates with 6 decimals.
enum EHSACSV {
    /// `cellColumn` is the grid's (`geohash`, or `h3` for an H3 cube).
    static func header(steps: Int, cellColumn: String = "geohash") -> String {
        let width = max(2, String(steps).count)
        let zs = (1...steps).map { s in "z" + String(repeating: "0", count: width - String(s).count) + String(s) }
        return
            ([
                cellColumn, "lat", "lon", "label", "trend_z", "trend_p", "tau", "hot_steps", "cold_steps", "z_last",
                "q_last"
            ]
            + zs + ["wkt"]).joined(separator: ",") + "\n"
    }

    static func write(_ report: EHSAReport, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(header(steps: report.parameters.steps, cellColumn: report.parameters.grid.cellColumn))
        var coordinates = NumberTextMemo(.fixed(decimals: 6))
        for location in report.locations {
            try file.append { out in appendRow(location, to: &out, coordinates: &coordinates) }
        }
        try file.finish()
    }

    static func appendRow(_ l: HotSpotLocation, to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        let centre = l.centre
        l.system.appendText(of: l.id, to: &out)
        out.append(44)
        NumberFormat.appendFixed(centre.lat, decimals: 6, to: &out)
        out.append(44)
        NumberFormat.appendFixed(centre.lon, decimals: 6, to: &out)
        out.append(44)
        out.append(contentsOf: l.label.rawValue.utf8)
        for v in [l.trend.z, l.trend.p, l.trend.tau] {
            out.append(44)
            NumberFormat.appendShortest(v, to: &out)
        }
        out.append(44)
        NumberFormat.appendInteger(l.hotSteps, to: &out)
        out.append(44)
        NumberFormat.appendInteger(l.coldSteps, to: &out)
        for v in [l.zLast, l.qLast] + l.z {
            out.append(44)
            NumberFormat.appendShortest(v, to: &out)
        }
        out.append(contentsOf: ",\"".utf8)
        if case .geohash = l.system {
            GridCSV.appendWKT(l.cell.bounds, to: &out, coordinates: &coordinates)
        } else {
            GridCSV.appendWKT(EHSAGeometry.parts(l), to: &out, coordinates: &coordinates)
        }
        out.append(contentsOf: "\"\n".utf8)
    }
}

/// ehsa.geojson (SPEC §13): the rows of ehsa.csv as an RFC 7946 FeatureCollection, each cell a
/// Polygon (an H3 cell across the antimeridian a MultiPolygon) written as grid.geojson writes its
/// cells; `z` is an array of the N step values.
enum EHSAGeoJSON {
    static func write(_ report: EHSAReport, asOf: Int64, to path: String) throws {
        let file = try BufferedFile(path: path)
        let header: JSONValue = .object([
            ("as_of", .string(UTCTime.iso8601(asOf))),
            EHSAFiles.gridParameter(report.parameters.grid),
            ("steps", .int(report.parameters.steps)),
            ("alpha", .number(report.parameters.alpha))
        ])
        var head = header.serialized()
        head.removeLast() // "}"
        try file.write("{\"type\":\"FeatureCollection\"," + head.dropFirst() + ",\"features\":[\n")
        var coordinates = NumberTextMemo(.fixed(decimals: 6))
        for (k, location) in report.locations.enumerated() {
            try file.append { out in
                if k > 0 { out.append(contentsOf: ",\n".utf8) }
                appendFeature(location, to: &out, coordinates: &coordinates)
            }
        }
        try file.write("\n]}\n")
        try file.finish()
    }

    static func appendFeature(_ l: HotSpotLocation, to out: inout [UInt8], coordinates: inout NumberTextMemo) {
        let text = l.text
        GridGeoJSON.appendLiteral("{\"type\":\"Feature\",\"id\":\"", &out)
        out.append(contentsOf: text.utf8)
        GridGeoJSON.appendLiteral("\",\"geometry\":", &out)
        if case .geohash = l.system {
            GridGeoJSON.appendPolygon(l.cell.bounds, to: &out, coordinates: &coordinates)
            GridGeoJSON.appendLiteral(",\"properties\":{\"geohash\":\"", &out)
        } else {
            GridGeoJSON.appendGeometry(EHSAGeometry.parts(l), to: &out, coordinates: &coordinates)
            GridGeoJSON.appendLiteral(",\"properties\":{\"h3\":\"", &out)
        }
        out.append(contentsOf: text.utf8)
        let centre = l.centre
        GridGeoJSON.appendLiteral("\",\"lat\":", &out)
        NumberFormat.appendFixed(centre.lat, decimals: 6, to: &out)
        GridGeoJSON.appendLiteral(",\"lon\":", &out)
        NumberFormat.appendFixed(centre.lon, decimals: 6, to: &out)
        GridGeoJSON.appendLiteral(",\"label\":\"", &out)
        out.append(contentsOf: l.label.rawValue.utf8)
        out.append(34)
        number("trend_z", l.trend.z, &out)
        number("trend_p", l.trend.p, &out)
        number("tau", l.trend.tau, &out)
        GridGeoJSON.appendMember("hot_steps", l.hotSteps, &out)
        GridGeoJSON.appendMember("cold_steps", l.coldSteps, &out)
        number("z_last", l.zLast, &out)
        number("q_last", l.qLast, &out)
        GridGeoJSON.appendLiteral(",\"z\":[", &out)
        for (s, v) in l.z.enumerated() {
            if s > 0 { out.append(44) }
            appendJSONNumber(v, &out)
        }
        GridGeoJSON.appendLiteral("]}}", &out)
    }

    private static func number(_ name: StaticString, _ v: Double, _ out: inout [UInt8]) {
        out.append(44)
        out.append(34)
        GridGeoJSON.appendLiteral(name, &out)
        GridGeoJSON.appendLiteral("\":", &out)
        appendJSONNumber(v, &out)
    }

    /// The shortest round-trip text, which is valid JSON for finite values (`1e-05`, `0.0`);
    /// z, p and tau are always finite, null guards the impossible rest.
    private static func appendJSONNumber(_ v: Double, _ out: inout [UInt8]) {
        if v.isFinite { NumberFormat.appendShortest(v, to: &out) } else { GridGeoJSON.appendLiteral("null", &out) }
    }
}

/// The polygon parts of an H3 location: grid.geojson's (CellPolygons: split at the antimeridian,
/// a polar cap closed along it).
enum EHSAGeometry {
    static func parts(_ l: HotSpotLocation) -> [CellPolygons.Ring] {
        CellPolygons.parts(of: l.system.boundary(of: l.id))
    }

    /// Whether some location of an H3 cube is written as several polygons (it crosses the
    /// antimeridian): the gpkg `ehsa` layer is then a MULTIPOLYGON layer, as the grid layer is.
    static func needsMultiPolygons(_ report: EHSAReport) -> Bool {
        guard case .h3 = report.parameters.grid else { return false }
        return report.locations.contains { parts($0).count > 1 }
    }
}

/// The emerging-hot-spot files' summary.json member.
enum EHSAFiles {
    /// `precision` for a geohash cube, as it always was; `grid` (`"h3:7"`) for an H3 cube.
    static func gridParameter(_ grid: GridSystem) -> (String, JSONValue) {
        if let p = grid.geohashPrecision { return ("precision", .int(p)) }
        return ("grid", .string(grid.description))
    }

    /// summary.json's `ehsa` member, from the exact analysis: every location computed, how many
    /// the public files hold, the cube's numbers and the locations per label.
    static func summary(_ exact: EHSAReport, disclosure: Disclosure) -> JSONValue {
        let p = exact.parameters, s = exact.summary
        return .object([
            gridParameter(p.grid),
            ("steps", .int(p.steps)),
            ("alpha", .number(p.alpha)),
            ("locations", .int(exact.locations.count)),
            ("written", .int(disclosure.publicEHSA(exact).locations.count)),
            ("bins", .int(s.bins)),
            ("mean", .number(s.mean)),
            ("sd", .number(s.standardDeviation)),
            ("hot_bins", .int(s.hotBins)),
            ("cold_bins", .int(s.coldBins)),
            ("labels", .object(exact.labelCounts.map { ($0.0.rawValue, .int($0.1)) }))
        ])
    }
}
