import AreaWatchCore
import AreaWatchQuery

/// areas.geojson / areas.csv, poi.csv and breakdown.csv (SPEC §7.3–7.5, §8).
enum TableWriters {
    static func pctText(_ pct: Double?) -> String {
        pct.map { NumberFormat.fixed($0, decimals: 4) } ?? ""
    }

    static func csvLine(_ fields: [String]) -> String { CSVText.line(fields) }

    // MARK: Areas

    static func writeAreasCSV(_ result: AreaResult, idProperty: String, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(csvLine([idProperty, "n_current", "n_previous", "delta", "pct", "handled", "area_km2",
                                "density_equivalent", "class"] + result.years.map { "y\($0)" }))
        for a in result.areas {
            try file.write(csvLine([a.id, String(a.nCurrent), String(a.nPrevious), String(a.yearOverYear.delta),
                                    pctText(a.yearOverYear.pct), String(a.handled), NumberFormat.fixed(a.areaKm2, decimals: 4),
                                    NumberFormat.fixed(a.densityEquivalent, decimals: 2), a.safetyClass.rawValue]
                                   + a.yearCounts.map(String.init)))
        }
        try file.finish()
    }

    static func writeAreasGeoJSON(_ result: AreaResult, areas: [NamedArea], idProperty: String,
                                  asOf: Int64, disclosure: Disclosure, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write("{\"type\":\"FeatureCollection\",\"as_of\":\"\(UTCTime.iso8601(asOf))\","
                       + "\"unassigned\":{\"current\":\(result.unassignedCurrent),\"previous\":\(result.unassignedPrevious),\"all\":\(result.unassignedAll)},"
                       + "\"features\":[\n")
        for (k, (stats, area)) in zip(result.areas, areas).enumerated() {
            let complete = disclosure.show(stats.nCurrent) != nil && disclosure.show(stats.nPrevious) != nil
            var years: [(String, JSONValue)] = []
            for (year, count) in zip(result.years, stats.yearCounts) where count > 0 {
                years.append((String(year), .optional(disclosure.show(count))))
            }
            let feature: JSONValue = .object([
                ("type", .string("Feature")),
                ("id", .string(stats.id)),
                ("geometry", geometry(area)),
                ("properties", .object([
                    (idProperty, .string(stats.id)),
                    ("n_current", .optional(disclosure.show(stats.nCurrent))),
                    ("n_previous", .optional(disclosure.show(stats.nPrevious))),
                    ("delta", complete ? .int(stats.yearOverYear.delta) : .null),
                    ("pct", complete ? (stats.yearOverYear.pct.map { .fixed($0, decimals: 4) } ?? .null) : .null),
                    ("handled", .optional(disclosure.show(stats.handled))),
                    ("area_km2", .fixed(stats.areaKm2, decimals: 4)),
                    ("density_equivalent", .fixed(stats.densityEquivalent, decimals: 2)),
                    ("class", .string(stats.safetyClass.rawValue)),
                    ("years", .object(years)),
                ])),
            ])
            try file.write((k > 0 ? ",\n" : "") + feature.serialized())
        }
        try file.write("\n]}\n")
        try file.finish()
    }

    /// Polygon or MultiPolygon with RFC 7946 winding (exterior counter-clockwise, holes
    /// clockwise), closed rings, 6 decimals.
    static func geometry(_ area: NamedArea) -> JSONValue {
        func ring(_ points: [(lon: Double, lat: Double)], exterior: Bool) -> JSONValue {
            var pts = points
            if let first = pts.first, let last = pts.last, first.lon != last.lon || first.lat != last.lat { pts.append(first) }
            var twiceArea = 0.0
            for i in 0..<max(0, pts.count - 1) { twiceArea += pts[i].lon * pts[i + 1].lat - pts[i + 1].lon * pts[i].lat }
            if (twiceArea > 0) != exterior { pts.reverse() }
            return .array(pts.map { .array([.fixed($0.lon, decimals: 6), .fixed($0.lat, decimals: 6)]) })
        }
        func polygon(_ p: GeoPolygon) -> JSONValue {
            .array(p.rings.enumerated().map { ring($1, exterior: $0 == 0) })
        }
        if area.polygons.count == 1 {
            return .object([("type", .string("Polygon")), ("coordinates", polygon(area.polygons[0]))])
        }
        return .object([("type", .string("MultiPolygon")), ("coordinates", .array(area.polygons.map(polygon)))])
    }

    // MARK: Points of interest and breakdown

    static func writePOI(_ answers: [(poi: PointOfInterest, answer: PointAnswer)], to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(csvLine(["name", "lat", "lon", "radius_m", "as_of", "current", "previous", "delta", "pct",
                                "handled", "class", "label", "text"]))
        for (poi, a) in answers {
            try file.write(csvLine([poi.name, NumberFormat.fixed(poi.lat, decimals: 6), NumberFormat.fixed(poi.lon, decimals: 6),
                                    NumberFormat.compact(a.radius), UTCTime.iso8601(a.asOf), String(a.current), String(a.previous),
                                    String(a.delta), pctText(a.pct), String(a.handled), a.safetyClass.rawValue, a.label, a.text]))
        }
        try file.finish()
    }

    static func writeBreakdown(_ result: BreakdownResult, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(csvLine([result.field, "current", "previous", "delta", "pct"] + result.years.map { "y\($0)" }))
        for row in result.rows {
            try file.write(csvLine([row.value, String(row.current), String(row.previous), String(row.yearOverYear.delta),
                                    pctText(row.yearOverYear.pct)] + row.yearCounts.map(String.init)))
        }
        try file.finish()
    }
}
