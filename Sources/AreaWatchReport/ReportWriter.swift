import Glibc
import AreaWatchCore
import AreaWatchQuery
import Dispatch

/// What a report run wrote: file (relative path) → bytes.
public struct ReportOutcome: Sendable {
    public var files: [(String, Int64)] = []
    public var tiles = 0
}

/// Writes a report folder (SPEC §8) atomically: built beside its final name, then published.
public enum ReportWriter {
    /// Public outputs are written from `disclosure.publicContent(content)`; summary.json, the
    /// operators' record, from the exact content.
    /// - Parameter protected: paths the report folder must not hold (ReportFolder).
    public static func write(_ exact: ReportContent, to path: String, protecting protected: [String] = [],
                             clock: () -> Double) throws -> ReportOutcome {
        let directory = try AtomicDirectory(path: path, protecting: protected)
        var content = exact.disclosure.publicContent(exact)
        let changes = ReportChanges(content)
        content.changes = changes
        do {
            var outcome = ReportOutcome()
            let started = clock()
            func record(_ name: String) {
                var info = stat()
                if stat(directory.workPath + "/" + name, &info) == 0 { outcome.files.append((name, Int64(info.st_size))) }
            }
            // The vector tiles are encoded and compressed on another thread from the start: alone,
            // they were the stage's last 0.1 s at 1M (same tiles as the JSON ones, SPEC §14).
            // They are built there too: built here, the other core idled meanwhile.
            let tiles = content.tileZooms.map { zooms in
                BackgroundWork { [grid = content.grid] () throws(Never) in WidgetTiles.build(grid, changes: changes.grid, zooms: zooms) }
            }
            defer { tiles?.wait() }
            var archive: BackgroundWork<Void, any Error>?
            defer { archive?.wait() }
            if let nearRepeat = content.nearRepeat {
                try NearRepeatFiles.write(nearRepeat, to: try directory.file("nearrepeat.csv"))
                record("nearrepeat.csv")
            }
            if let zooms = content.tileZooms, let tiles {
                archive = BackgroundWork { [grid = content.grid, disclosure = content.disclosure, attribution = content.attribution,
                                             bounds = content.dataBounds,
                                             path = try directory.file("grid.pmtiles")] () throws(any Error) in
                    try GridArchive.write(tiles.value(), grid: grid, zooms: zooms, disclosure: disclosure, attribution: attribution,
                                          dataBounds: bounds, to: path)
                }
            }
            // The HTML page is rendered beside the other files rather than after them.
            let html = BackgroundWork { [content] () throws(Never) in HTMLReport.render(content) }
            defer { html.wait() }
            // The largest file is written on a second core while this one writes the rest.
            let geojson = BackgroundWork { [grid = content.grid, disclosure = content.disclosure, path = try directory.file("grid.geojson")] () throws(any Error) in
                try GridGeoJSON.write(grid, changes: changes.grid, to: path, disclosure: disclosure)
            }
            defer { geojson.wait() }
            try GridCSV.write(content.grid, changes: changes.grid, to: try directory.file("grid.csv"),
                              typesPath: try directory.file("grid.csvt"), disclosure: content.disclosure)
            record("grid.csv")
            record("grid.csvt")
            if let areas = content.areas {
                let rates = areas.rates(content.disclosure)
                try TableWriters.writeAreasGeoJSON(areas.result, areas: areas.areas, idProperty: areas.idProperty,
                                                   asOf: content.parameters.asOf, disclosure: content.disclosure,
                                                   changes: changes.areas, rates: rates,
                                                   to: try directory.file("areas.geojson"))
                record("areas.geojson")
                try TableWriters.writeAreasCSV(areas.result, idProperty: areas.idProperty, disclosure: content.disclosure,
                                               changes: changes.areas, rates: rates,
                                               to: try directory.file("areas.csv"))
                record("areas.csv")
            }
            try TimeseriesCSV.write(totals: content.totals, areas: content.areas?.result,
                                    disclosure: content.disclosure, to: try directory.file(TimeseriesCSV.name))
            record(TimeseriesCSV.name)
            if let poi = content.pointsOfInterest {
                try TableWriters.writePOI(poi, disclosure: content.disclosure, changes: changes.pointsOfInterest,
                                          to: try directory.file("poi.csv"))
                record("poi.csv")
            }
            if let breakdown = content.breakdown {
                try TableWriters.writeBreakdown(breakdown, disclosure: content.disclosure, changes: changes.breakdown,
                                                to: try directory.file("breakdown.csv"))
                record("breakdown.csv")
            }
            if let ehsa = content.ehsa {
                try EHSAFiles.write(ehsa, asOf: content.parameters.asOf, into: directory)
                record("ehsa.csv")
                record("ehsa.geojson")
            }
            if let zooms = content.tileZooms, let tiles {
                let (count, bytes) = try WidgetTiles.write(tiles.value(), grid: content.grid, zooms: zooms, disclosure: content.disclosure,
                                                           attribution: content.attribution,
                                                           dataBounds: content.dataBounds, into: directory)
                outcome.tiles = count
                outcome.files.append(("tiles/", bytes))
            }
            if let archive {
                try archive.value()
                record("grid.pmtiles")
            }
            try geojson.value()
            record("grid.geojson")
            try BufferedFile.write(html.value(), to: try directory.file("report.html"))
            record("report.html")
            var timings = content.timings
            timings.append(("report", clock() - started))
            let summary = Summary.json(exact, published: content.grid, files: outcome.files, tiles: outcome.tiles, timings: timings)
            try BufferedFile.write(summary.serialized(pretty: true), to: try directory.file("summary.json"))
            record("summary.json")
            try directory.publish()
            return outcome
        } catch {
            directory.abandon()
            throw error
        }
    }
}

/// summary.json (SPEC §8). Everything but `timings_s` is a function of the store, parameters and
/// as-of, so two runs differ only there. It is the operators' record of the run, not a public
/// output (docs/PRIVACY.md): its totals are exact; `grid` describes the published grid
/// (`published`), with the sums of the full one so the cells can be checked against the totals.
enum Summary {
    static func json(_ c: ReportContent, published: GridResult, files: [(String, Int64)], tiles: Int,
                     timings: [(String, Double)]) -> JSONValue {
        let p = c.parameters
        let w = p.windows
        let classes = published.classCounts
        var members: [(String, JSONValue)] = [
            ("engine", .object([("name", .string("areawatch")), ("version", .string(c.engineVersion))])),
            ("as_of", .string(UTCTime.iso8601(p.asOf))),
            ("parameters", .object([
                ("radius_m", .number(p.radius)),
                ("precision", .int(c.grid.precision)),
                ("thresholds", .array([.number(p.thresholds.medium), .number(p.thresholds.dangerous)])),
                ("categories", .array(p.categories.sorted().map { .string($0) })),
                ("handled", p.handled.map { .bool($0) } ?? .null),
                ("tile_zooms", c.tileZooms.map { .array([.int($0.lowerBound), .int($0.upperBound)]) } ?? .null),
                ("min_cell_count", .int(c.disclosure.minCellCount)),
                ("windows", .object([
                    ("current", .array([.string(UTCTime.iso8601(w.currentStart)), .string(UTCTime.iso8601(w.asOf))])),
                    ("previous", .array([.string(UTCTime.iso8601(w.previousStart)), .string(UTCTime.iso8601(w.currentStart))])),
                    ("bounds", .string("start exclusive, end inclusive")),
                ])),
            ])),
            ("source", .object([("kind", .string(c.sourceKind)), ("path", .optional(c.sourcePath))])),
            ("inputs", .array(c.inputs.map { input in
                .object([
                    ("path", .string(input.path)), ("sha256", .string(input.sha256)), ("format", .string(input.format)),
                    ("skipped", .bool(input.skipped)), ("records", .int(input.records)), ("accepted", .int(input.accepted)),
                    ("inserted", .int(input.inserted)), ("updated", .int(input.updated)), ("duplicates", .int(input.duplicates)),
                    ("rejected", .int(input.rejected)),
                    ("rejects_by_reason", .object(input.rejectsByReason.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                ])
            })),
            ("totals", .object([
                ("incidents", .int(c.totals.yearCounts.reduce(0, +))),
                ("current", .int(c.totals.current)),
                ("previous", .int(c.totals.previous)),
                ("older", .int(c.totals.older)),
                ("years", .object(zip(c.totals.years, c.totals.yearCounts).map { (String($0), .int($1)) })),
            ])),
            ("rejects_by_reason", .object(c.rejectsByReason.map { ($0.0, .int($0.1)) })),
            ("rejects", rejects(c.rejects)),
            ("excluded_future", .int(c.totals.excludedFuture)),
            ("grid", .object([
                ("cells", .int(published.cells.count)),
                ("classes", .object(SafetyClass.allCases.map { ($0.rawValue, .int(classes[$0] ?? 0)) })),
                ("n_current_sum", .int(c.grid.cells.reduce(0) { $0 + $1.nCurrent })),
                ("n_previous_sum", .int(c.grid.cells.reduce(0) { $0 + $1.nPrevious })),
            ] + (c.disclosure.isActive ? [("withheld_cells", .int(c.grid.cells.count - published.cells.count))] : []))),
        ]
        let warnings = [c.emptyWindowsWarning, ReportContent.saturationWarning(published)].compactMap { $0 }
        if !warnings.isEmpty {
            // SPEC §7, §8: right after excluded_future, before the grid.
            let grid = members.firstIndex { $0.0 == "grid" } ?? members.count
            members.insert(("warnings", .array(warnings.map { .string($0) })), at: grid)
        }
        if let areas = c.areas {
            members.append(("areas", .object([
                ("count", .int(areas.areas.count)),
                ("id_property", .string(areas.idProperty)),
                ("unassigned", .object([("current", .int(areas.result.unassignedCurrent)),
                                        ("previous", .int(areas.result.unassignedPrevious)),
                                        ("all", .int(areas.result.unassignedAll))])),
            ])))
        }
        if let poi = c.pointsOfInterest { members.append(("points_of_interest", .int(poi.count))) }
        if let ehsa = c.ehsa { members.append(("ehsa", EHSAFiles.summary(ehsa, disclosure: c.disclosure))) }
        if let nearRepeat = c.nearRepeat { members.append(("near_repeat", NearRepeatFiles.summary(nearRepeat))) }
        if let breakdown = c.breakdown { members.append(("breakdown", .object([("field", .string(breakdown.field)), ("values", .int(breakdown.rows.count))]))) }
        members.append(("tiles", .int(tiles)))
        members.append(("files", .object(files.map { ($0.0, .int(Int($0.1))) })))
        members.append(("timings_s", .object(timings.map { ($0.0, .fixed($0.1, decimals: 3)) })))
        return .object(members)
    }
}

extension Summary {
    /// `rejects`: the rejects file (null when none was written) and each file's rejects by reason.
    static func rejects(_ r: RejectsSummary) -> JSONValue {
        .object([
            ("path", .optional(r.path)),
            ("rejected", .int(r.files.reduce(0) { $0 + $1.rejected })),
            ("files", .array(r.files.map { file in
                .object([
                    ("path", .string(file.path)), ("sha256", .string(file.sha256)), ("rejected", .int(file.rejected)),
                    ("rejects_by_reason",
                     .object(file.byReason.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                ])
            })),
        ])
    }
}

/// Timing of the grid.geojson writer alone (for `make bench`: the issue's ≥ 200 MB/s goal).
public enum GridGeoJSONTiming {
    /// Writes the grid to `path` and returns MB/s (bytes written / wall time).
    public static func write(_ grid: GridResult, to path: String) throws -> Double {
        let start = MonotonicClock.now()
        try GridGeoJSON.write(grid, changes: grid.changeSignificance().map { $0 }, to: path, disclosure: Disclosure())
        let seconds = MonotonicClock.now() - start
        var info = stat()
        stat(path, &info)
        return Double(info.st_size) / 1e6 / seconds
    }
}
