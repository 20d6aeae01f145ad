import AreaWatchCore
import AreaWatchQuery

/// areas.geojson / areas.csv, poi.csv and breakdown.csv (SPEC §7.3–7.5, §8).
enum TableWriters {
    static func pctText(_ pct: Double?) -> String {
        pct.map { NumberFormat.fixed($0, decimals: 4) } ?? ""
    }

    static func csvLine(_ fields: [String]) -> String { CSVText.line(fields) }

    /// A text cell from the user's data (a name, a value, a property name): spreadsheet-safe.
    static func text(_ s: String) -> String { CSVText.spreadsheetSafe(s) }

    /// A count after disclosure control: empty when withheld.
    static func count(_ v: Int, _ disclosure: Disclosure) -> String { disclosure.show(v).map(String.init) ?? "" }

    /// delta and pct, empty when either count is withheld.
    static func comparison(_ yoy: YearOverYear, _ disclosure: Disclosure) -> [String] {
        disclosure.showsComparison(current: yoy.current, previous: yoy.previous)
            ? [String(yoy.delta), pctText(yoy.pct)] : ["", ""]
    }

    /// SPEC §12's `p_change,q_change,change` fields (empty when withheld).
    static func changeFields(_ s: ChangeSignificance?) -> [String] {
        guard let s else { return ["", "", ""] }
        return [NumberFormat.shortest(s.p), NumberFormat.shortest(s.q), s.change.rawValue]
    }

    /// The same as JSON members.
    static func changeMembers(_ s: ChangeSignificance?) -> [(String, JSONValue)] {
        [
            ("p_change", s.map { .number($0.p) } ?? .null),
            ("q_change", s.map { .number($0.q) } ?? .null),
            ("change", s.map { .string($0.change.rawValue) } ?? .null)
        ]
    }

    // MARK: Areas

    /// SPEC §17's columns, after the change fields (only with `--area-population`).
    static let rateHeader = ["population", "rate_current", "rate_previous", "eb_rate_current", "population_note"]

    /// SPEC §17's fields of one area: numbers in `NumberFormat.compact` form, empty when absent.
    static func rateFields(_ r: AreaRate) -> [String] {
        [r.population, r.rateCurrent, r.ratePrevious, r.ebRateCurrent].map { $0.map(NumberFormat.compact) ?? "" }
            + [r.note?.rawValue ?? ""]
    }

    /// The same as JSON members (`null` where the CSV cell is empty).
    static func rateMembers(_ r: AreaRate) -> [(String, JSONValue)] {
        zip(rateHeader, [r.population, r.rateCurrent, r.ratePrevious, r.ebRateCurrent])
            .map { name, value in (name, value.map { .number($0) } ?? .null) }
            + [("population_note", r.note.map { .string($0.rawValue) } ?? .null)]
    }

    static func writeAreasCSV(
        _ result: AreaResult, idProperty: String, disclosure: Disclosure,
        changes: [ChangeSignificance?], rates: [AreaRate]? = nil, to path: String
    ) throws {
        let file = try BufferedFile(path: path)
        try file.write(
            csvLine(
                [
                    text(idProperty), "n_current", "n_previous", "delta", "pct", "handled", "area_km2",
                    "density_equivalent", "class"
                ] + ReportChanges.csvHeader
                    + (rates == nil ? [] : rateHeader)
                    + result.years.map { "y\($0)" }))
        for (k, a) in result.areas.enumerated() {
            let density = disclosure.show(a.nCurrent) == nil ? "" : NumberFormat.fixed(a.densityEquivalent, decimals: 2)
            try file.write(
                csvLine(
                    [text(a.id), count(a.nCurrent, disclosure), count(a.nPrevious, disclosure)]
                        + comparison(a.yearOverYear, disclosure)
                        + [
                            count(a.handled, disclosure), NumberFormat.fixed(a.areaKm2, decimals: 4), density,
                            a.safetyClass.rawValue
                        ]
                        + changeFields(changes[k]) + (rates.map { rateFields($0[k]) } ?? [])
                        + a.yearCounts.map { count($0, disclosure) }))
        }
        try file.finish()
    }

    static func writeAreasGeoJSON(
        _ result: AreaResult, areas: [NamedArea], idProperty: String,
        asOf: Int64, disclosure: Disclosure, changes: [ChangeSignificance?],
        rates: [AreaRate]? = nil, to path: String
    ) throws {
        let file = try BufferedFile(path: path)
        // Incidents inside no area move with every incident anywhere else: with disclosure
        // control they stay in summary.json (SPEC §10, docs/PRIVACY.md).
        let unassigned =
            disclosure.isActive
            ? ""
            : "\"unassigned\":{\"current\":\(result.unassignedCurrent),\"previous\":\(result.unassignedPrevious),\"all\":\(result.unassignedAll)},"
        try file.write(
            "{\"type\":\"FeatureCollection\",\"as_of\":\"\(UTCTime.iso8601(asOf))\"," + unassigned + "\"features\":[\n")
        for (k, (stats, area)) in zip(result.areas, areas).enumerated() {
            let complete = disclosure.showsComparison(current: stats.nCurrent, previous: stats.nPrevious)
            var years: [(String, JSONValue)] = []
            for (year, count) in zip(result.years, stats.yearCounts) where count > 0 {
                if let shown = disclosure.show(count) { years.append((String(year), .int(shown))) }
            }
            let feature: JSONValue = .object([
                ("type", .string("Feature")),
                ("id", .string(stats.id)),
                ("geometry", geometry(area)),
                (
                    "properties",
                    .object(
                        [
                            (idProperty, .string(stats.id)),
                            ("n_current", .optional(disclosure.show(stats.nCurrent))),
                            ("n_previous", .optional(disclosure.show(stats.nPrevious))),
                            ("delta", complete ? .int(stats.yearOverYear.delta) : .null),
                            (
                                "pct",
                                complete ? (stats.yearOverYear.pct.map { .fixed($0, decimals: 4) } ?? .null) : .null
                            ),
                            ("handled", .optional(disclosure.show(stats.handled))),
                            ("area_km2", .fixed(stats.areaKm2, decimals: 4)),
                            (
                                "density_equivalent",
                                disclosure.show(stats.nCurrent) == nil
                                    ? .null : .fixed(stats.densityEquivalent, decimals: 2)
                            ),
                            ("class", .string(stats.safetyClass.rawValue))
                        ] + changeMembers(changes[k]) + (rates.map { rateMembers($0[k]) } ?? []) + [
                            ("years", .object(years))
                        ])
                )
            ])
            try file.write((k > 0 ? ",\n" : "") + feature.serialized())
        }
        try file.write("\n]}\n")
        try file.finish()
    }

    /// Polygon or MultiPolygon with RFC 7946 winding (exterior counter-clockwise, holes
    /// clockwise), closed rings, 6 decimals.
    static func geometry(_ area: NamedArea) -> JSONValue {
        func polygon(_ rings: [[(lon: Double, lat: Double)]]) -> JSONValue {
            .array(
                rings.map { ring in
                    .array(ring.map { .array([.fixed($0.lon, decimals: 6), .fixed($0.lat, decimals: 6)]) })
                })
        }
        let polygons = rings(area)
        if polygons.count == 1 {
            return .object([("type", .string("Polygon")), ("coordinates", polygon(polygons[0]))])
        }
        return .object([("type", .string("MultiPolygon")), ("coordinates", .array(polygons.map(polygon)))])
    }

    /// The area's polygons as its outputs write them (areas.geojson, areas.parquet): every ring
    /// closed, the exterior counter-clockwise and the holes clockwise.
    static func rings(_ area: NamedArea) -> [[[(lon: Double, lat: Double)]]] {
        func ring(_ points: [(lon: Double, lat: Double)], exterior: Bool) -> [(lon: Double, lat: Double)] {
            var pts = points
            if let first = pts.first, let last = pts.last, first.lon != last.lon || first.lat != last.lat {
                pts.append(first)
            }
            var twiceArea = 0.0
            for i in 0..<max(0, pts.count - 1) {
                twiceArea += pts[i].lon * pts[i + 1].lat - pts[i + 1].lon * pts[i].lat
            }
            if (twiceArea > 0) != exterior { pts.reverse() }
            return pts
        }
        return area.polygons.map { p in p.rings.enumerated().map { ring($1, exterior: $0 == 0) } }
    }

    // MARK: Points of interest and breakdown

    static func writePOI(
        _ answers: [(poi: PointOfInterest, answer: PointAnswer)], disclosure: Disclosure,
        changes: [ChangeSignificance?], to path: String
    ) throws {
        let file = try BufferedFile(path: path)
        try file.write(
            csvLine(
                [
                    "name", "lat", "lon", "radius_m", "as_of", "current", "previous", "delta", "pct",
                    "handled", "class"
                ] + ReportChanges.csvHeader + ["label", "text"]))
        for (k, (poi, a)) in answers.enumerated() {
            // The app's sentence states the delta, so it is withheld with it.
            let complete = disclosure.showsComparison(current: a.current, previous: a.previous)
            try file.write(
                csvLine(
                    [
                        text(poi.name), NumberFormat.fixed(poi.lat, decimals: 6),
                        NumberFormat.fixed(poi.lon, decimals: 6),
                        NumberFormat.compact(a.radius), UTCTime.iso8601(a.asOf),
                        count(a.current, disclosure), count(a.previous, disclosure)
                    ]
                        + comparison(a.yearOverYear, disclosure)
                        + [count(a.handled, disclosure), a.safetyClass.rawValue] + changeFields(changes[k])
                        + [a.label, complete ? a.text : ""]))
        }
        try file.finish()
    }

    /// `result` is already the public breakdown (values and years with nothing to show removed).
    static func writeBreakdown(
        _ result: BreakdownResult, disclosure: Disclosure, changes: [ChangeSignificance?],
        to path: String
    ) throws {
        let file = try BufferedFile(path: path)
        try file.write(
            csvLine(
                [text(result.field), "current", "previous", "delta", "pct"] + ReportChanges.csvHeader
                    + result.years.map { "y\($0)" }))
        for (k, row) in result.rows.enumerated() {
            try file.write(
                csvLine(
                    [text(row.value), count(row.current, disclosure), count(row.previous, disclosure)]
                        + comparison(row.yearOverYear, disclosure) + changeFields(changes[k])
                        + row.yearCounts.map { count($0, disclosure) }))
        }
        try file.finish()
    }
}
