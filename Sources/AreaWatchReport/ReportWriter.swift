import AreaWatchCore
import AreaWatchQuery
import Glibc

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
    public static func write(
        _ exact: ReportContent, to path: String, protecting protected: [String] = [],
        clock: () -> Double
    ) throws -> ReportOutcome {
        let directory = try AtomicDirectory(path: path, protecting: protected)
        var content = exact.disclosure.publicContent(exact)
        let changes = ReportChanges(content)
        content.changes = changes
        do {
            let started = clock()
            let tiles = try ReportOutputs(content: content, changes: changes, directory: directory).write()
            var outcome = ReportOutcome()
            for name in ReportOutputs.listed(content) {
                if name == ReportOutputs.tileFolder {
                    if let tiles { outcome.files.append((name, tiles.bytes)) }
                    continue
                }
                var info = stat()
                if stat(directory.workPath + "/" + name, &info) == 0 {
                    outcome.files.append((name, Int64(info.st_size)))
                }
            }
            outcome.tiles = tiles?.count ?? 0
            var timings = content.timings
            timings.append(("report", clock() - started))
            let summary = Summary.json(
                exact, published: content.grid, files: outcome.files, tiles: outcome.tiles,
                timings: timings)
            try BufferedFile.write(summary.serialized(pretty: true), to: try directory.file("summary.json"))
            var info = stat()
            if stat(directory.workPath + "/summary.json", &info) == 0 {
                outcome.files.append(("summary.json", Int64(info.st_size)))
            }
            try directory.publish()
            return outcome
        } catch {
            directory.abandon()
            throw error
        }
    }
}

/// The report's files but summary.json as a graph of outputs (docs/DECISIONS.md, "Concurrency"):
/// each node writes its files and names the nodes it reads, and the graph runs them on one thread
/// per core. Nodes are declared longest first, since a ready node declared earlier starts earlier:
/// the widget tiles feed the two tile outputs, which end the stage when they start late.
struct ReportOutputs: Sendable {
    let content: ReportContent
    let changes: ReportChanges
    let directory: AtomicDirectory

    /// The tile folder's name among the files: its bytes are the tiles' sum.
    static let tileFolder = "tiles/"

    /// The outputs in the order summary.json lists them (those a run writes).
    static func listed(_ c: ReportContent) -> [String] {
        let csv = c.formats.contains(.csv), geojson = c.formats.contains(.geojson)
        let parquet = c.formats.contains(.parquet)
        var names: [String] = []
        func add(_ files: [String], if written: Bool) { if written { names += files } }
        add(["nearrepeat.csv"], if: csv && c.nearRepeat != nil)
        add(["grid.csv", "grid.csvt", "grid.prj"], if: csv)
        add(["grid.parquet"], if: parquet)
        add([GeoPackageFiles.name], if: c.formats.contains(.gpkg))
        add(["areas.geojson"], if: geojson && c.areas != nil)
        add(["areas.csv"], if: csv && c.areas != nil)
        add(["areas.parquet"], if: parquet && c.areas != nil)
        add([TimeseriesCSV.name], if: csv)
        add(["poi.csv"], if: csv && c.pointsOfInterest != nil)
        add(["breakdown.csv"], if: csv && c.breakdown != nil)
        add(["ehsa.csv", "ehsa.prj"], if: csv && c.ehsa != nil)
        add(["ehsa.geojson"], if: geojson && c.ehsa != nil)
        add(["ehsa.parquet"], if: parquet && c.ehsa != nil)
        add([tileFolder], if: c.tileZooms != nil && c.formats.contains(.tiles))
        add(["grid.pmtiles"], if: c.tileZooms != nil && c.formats.contains(.pmtiles))
        add(["grid.geojson"], if: geojson)
        add(["report.html"], if: c.formats.contains(.html))
        return names
    }

    /// Writes every output; the JSON tiles' count and bytes when tiles are written.
    func write() throws -> (count: Int, bytes: Int64)? {
        // One thread more than cores: a writer blocks in the kernel (writes, syncs of the tile
        // files) and the spare thread keeps the cores busy meanwhile.
        let graph = WorkGraph(threads: Concurrency.processorCount + 1)
        // grid.gpkg first: the longest node, one thread in SQLite from start to end.
        if content.formats.contains(.gpkg) {
            let (c, changes, directory) = (content, changes, directory)
            graph.add { try GeoPackageFiles.write(c, changes: changes, to: try directory.file(GeoPackageFiles.name)) }
        }
        let tileFiles = addTiles(to: graph)
        addGridFiles(to: graph)
        addTables(to: graph)
        try graph.run()
        return try tileFiles?.value
    }

    /// The widget tiles, built once for both of their outputs: the JSON tiles and grid.pmtiles.
    private func addTiles(to graph: WorkGraph) -> WorkGraph.Node<(count: Int, bytes: Int64)>? {
        let (c, changes, directory) = (content, changes, directory)
        guard let zooms = c.tileZooms, c.formats.contains(.tiles) || c.formats.contains(.pmtiles) else { return nil }
        let tiles = graph.add {
            let tiles = WidgetTiles.build(c.grid, changes: changes.grid, zooms: zooms)
            return (tiles: tiles, version: WidgetTiles.version(tiles, disclosure: c.disclosure))
        }
        if c.formats.contains(.pmtiles) {
            graph.add(after: [tiles]) {
                let (built, version) = try tiles.value
                try GridArchive.write(
                    built, grid: c.grid, zooms: zooms, disclosure: c.disclosure,
                    attribution: c.attribution, dataBounds: c.dataBounds, version: version,
                    to: try directory.file("grid.pmtiles"))
            }
        }
        guard c.formats.contains(.tiles) else { return nil }
        return graph.add(after: [tiles]) {
            let (built, version) = try tiles.value
            let written = try WidgetTiles.write(
                built, grid: c.grid, zooms: zooms, disclosure: c.disclosure,
                attribution: c.attribution, dataBounds: c.dataBounds, version: version,
                publicURL: c.publicURL, into: directory)
            return (count: written.tiles, bytes: written.bytes)
        }
    }

    /// The grid's own files and the page: the largest outputs.
    private func addGridFiles(to graph: WorkGraph) {
        let (c, changes, directory) = (content, changes, directory)
        if c.formats.contains(.geojson) {
            graph.add {
                try GridGeoJSON.write(
                    c.grid, changes: changes.grid, to: try directory.file("grid.geojson"),
                    disclosure: c.disclosure)
            }
        }
        if c.formats.contains(.parquet) {
            graph.add {
                try GridParquet.write(
                    c.grid, changes: changes.grid, disclosure: c.disclosure, version: c.engineVersion,
                    to: try directory.file("grid.parquet"))
            }
        }
        if c.formats.contains(.html) {
            graph.add { try BufferedFile.write(HTMLReport.render(c), to: try directory.file("report.html")) }
        }
        if c.formats.contains(.csv) {
            graph.add {
                try GridCSV.write(
                    c.grid, changes: changes.grid, to: try directory.file("grid.csv"),
                    typesPath: try directory.file("grid.csvt"), disclosure: c.disclosure)
                try BufferedFile.write(CoordinateSystem.prj, to: try directory.file("grid.prj"))
            }
        }
    }

    /// The smaller tables, each on its own.
    private func addTables(to graph: WorkGraph) {
        let (c, changes, directory) = (content, changes, directory)
        let csv = c.formats.contains(.csv), geojson = c.formats.contains(.geojson)
        if csv, let nearRepeat = c.nearRepeat {
            graph.add { try NearRepeatFiles.write(nearRepeat, to: try directory.file("nearrepeat.csv")) }
        }
        if let areas = c.areas, csv || geojson {
            graph.add {
                let rates = areas.rates(c.disclosure)
                if geojson {
                    try TableWriters.writeAreasGeoJSON(
                        areas.result, areas: areas.areas, idProperty: areas.idProperty,
                        asOf: c.parameters.asOf, disclosure: c.disclosure,
                        changes: changes.areas, rates: rates,
                        to: try directory.file("areas.geojson"))
                }
                if csv {
                    try TableWriters.writeAreasCSV(
                        areas.result, idProperty: areas.idProperty, disclosure: c.disclosure,
                        changes: changes.areas, rates: rates,
                        to: try directory.file("areas.csv"))
                }
            }
        }
        if let areas = c.areas, c.formats.contains(.parquet) {
            graph.add {
                try AreasParquet.write(
                    areas, disclosure: c.disclosure, changes: changes.areas,
                    version: c.engineVersion, to: try directory.file("areas.parquet"))
            }
        }
        if csv { addCSVTables(to: graph) }
        if let ehsa = c.ehsa {
            if csv {
                graph.add {
                    try EHSACSV.write(ehsa, to: try directory.file("ehsa.csv"))
                    try BufferedFile.write(CoordinateSystem.prj, to: try directory.file("ehsa.prj"))
                }
            }
            if geojson {
                graph.add {
                    try EHSAGeoJSON.write(ehsa, asOf: c.parameters.asOf, to: try directory.file("ehsa.geojson"))
                }
            }
            if c.formats.contains(.parquet) {
                graph.add {
                    try EHSAParquet.write(ehsa, version: c.engineVersion, to: try directory.file("ehsa.parquet"))
                }
            }
        }
    }

    /// The tables only CSV carries: the monthly series, points of interest, the breakdown.
    private func addCSVTables(to graph: WorkGraph) {
        let (c, changes, directory) = (content, changes, directory)
        graph.add {
            try TimeseriesCSV.write(
                totals: c.totals, areas: c.areas?.result, disclosure: c.disclosure,
                to: try directory.file(TimeseriesCSV.name))
        }
        if let poi = c.pointsOfInterest {
            graph.add {
                try TableWriters.writePOI(
                    poi, disclosure: c.disclosure, changes: changes.pointsOfInterest,
                    to: try directory.file("poi.csv"))
            }
        }
        if let breakdown = c.breakdown {
            graph.add {
                try TableWriters.writeBreakdown(
                    breakdown, disclosure: c.disclosure, changes: changes.breakdown,
                    to: try directory.file("breakdown.csv"))
            }
        }
    }
}

/// summary.json (SPEC §8). Everything but `timings_s` is a function of the store, parameters and
/// as-of, so two runs differ only there. It is the operators' record of the run, not a public
/// output (docs/PRIVACY.md): its totals are exact; `grid` describes the published grid
/// (`published`), with the sums of the full one so the cells can be checked against the totals.
enum Summary {
    /// `precision` for a geohash grid, as it always was; `grid` (`"h3:9"`) for an H3 grid.
    static func gridParameter(_ grid: GridResult) -> (String, JSONValue) {
        if let p = grid.geohashPrecision { return ("precision", .int(p)) }
        return ("grid", .string(grid.system.description))
    }

    static func json(
        _ c: ReportContent, published: GridResult, files: [(String, Int64)], tiles: Int,
        timings: [(String, Double)]
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("engine", .object([("name", .string("areawatch")), ("version", .string(c.engineVersion))])),
            ("as_of", .string(UTCTime.iso8601(c.parameters.asOf))),
            ("parameters", parameters(c)),
            ("source", .object([("kind", .string(c.sourceKind)), ("path", .optional(c.sourcePath))])),
            ("inputs", .array(c.inputs.map(input))),
            ("totals", totals(c.totals)),
            ("rejects_by_reason", .object(c.rejectsByReason.map { ($0.0, .int($0.1)) })),
            ("rejects", rejects(c.rejects)),
            ("excluded_future", .int(c.totals.excludedFuture)),
            ("grid", grid(c, published: published))
        ]
        let warnings = [c.emptyWindowsWarning, ReportContent.saturationWarning(published)].compactMap { $0 }
        if !warnings.isEmpty {
            // SPEC §7, §8: right after excluded_future, before the grid.
            let grid = members.firstIndex { $0.0 == "grid" } ?? members.count
            members.insert(("warnings", .array(warnings.map { .string($0) })), at: grid)
        }
        if let areas = c.areas { members.append(("areas", Self.areas(areas))) }
        if let poi = c.pointsOfInterest { members.append(("points_of_interest", .int(poi.count))) }
        if let ehsa = c.ehsa { members.append(("ehsa", EHSAFiles.summary(ehsa, disclosure: c.disclosure))) }
        if let nearRepeat = c.nearRepeat { members.append(("near_repeat", NearRepeatFiles.summary(nearRepeat))) }
        if let breakdown = c.breakdown {
            members.append(
                ("breakdown", .object([("field", .string(breakdown.field)), ("values", .int(breakdown.rows.count))])))
        }
        members.append(("tiles", .int(tiles)))
        members.append(("files", .object(files.map { ($0.0, .int(Int($0.1))) })))
        members.append(("timings_s", .object(timings.map { ($0.0, .fixed($0.1, decimals: 3)) })))
        return .object(members)
    }

    /// `parameters`: the query's settings, with the two windows' bounds.
    private static func parameters(_ c: ReportContent) -> JSONValue {
        let p = c.parameters
        let w = p.windows
        func span(_ from: Int64, _ to: Int64) -> JSONValue {
            .array([.string(UTCTime.iso8601(from)), .string(UTCTime.iso8601(to))])
        }
        return .object([
            ("radius_m", .number(p.radius)),
            gridParameter(c.grid),
            ("thresholds", .array([.number(p.thresholds.medium), .number(p.thresholds.dangerous)])),
            ("categories", .array(p.categories.sorted().map { .string($0) })),
            ("handled", p.handled.map { .bool($0) } ?? .null),
            ("tile_zooms", c.tileZooms.map { .array([.int($0.lowerBound), .int($0.upperBound)]) } ?? .null),
            ("min_cell_count", .int(c.disclosure.minCellCount)),
            (
                "windows",
                .object([
                    ("current", span(w.currentStart, w.asOf)),
                    ("previous", span(w.previousStart, w.currentStart)),
                    ("bounds", .string("start exclusive, end inclusive"))
                ])
            )
        ])
    }

    /// One input file's entry of `inputs`.
    private static func input(_ input: InputSummary) -> JSONValue {
        .object([
            ("path", .string(input.path)), ("sha256", .string(input.sha256)),
            ("format", .string(input.format)),
            ("skipped", .bool(input.skipped)), ("records", .int(input.records)),
            ("accepted", .int(input.accepted)),
            ("inserted", .int(input.inserted)), ("updated", .int(input.updated)),
            ("duplicates", .int(input.duplicates)),
            ("rejected", .int(input.rejected)),
            (
                "rejects_by_reason",
                .object(input.rejectsByReason.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
            )
        ])
    }

    private static func totals(_ t: Totals) -> JSONValue {
        .object([
            ("incidents", .int(t.yearCounts.reduce(0, +))),
            ("current", .int(t.current)),
            ("previous", .int(t.previous)),
            ("older", .int(t.older)),
            ("years", .object(zip(t.years, t.yearCounts).map { (String($0), .int($1)) }))
        ])
    }

    /// `grid`: the published grid's cells and classes, the full grid's sums.
    private static func grid(_ c: ReportContent, published: GridResult) -> JSONValue {
        let classes = published.classCounts
        var members: [(String, JSONValue)] = [
            ("cells", .int(published.cells.count)),
            ("classes", .object(SafetyClass.allCases.map { ($0.rawValue, .int(classes[$0] ?? 0)) })),
            ("n_current_sum", .int(c.grid.cells.reduce(0) { $0 + $1.nCurrent })),
            ("n_previous_sum", .int(c.grid.cells.reduce(0) { $0 + $1.nPrevious }))
        ]
        if c.disclosure.isActive {
            members.append(("withheld_cells", .int(c.grid.cells.count - published.cells.count)))
        }
        return .object(members)
    }

    private static func areas(_ areas: AreaReport) -> JSONValue {
        .object([
            ("count", .int(areas.areas.count)),
            ("id_property", .string(areas.idProperty)),
            (
                "unassigned",
                .object([
                    ("current", .int(areas.result.unassignedCurrent)),
                    ("previous", .int(areas.result.unassignedPrevious)),
                    ("all", .int(areas.result.unassignedAll))
                ])
            )
        ])
    }
}

extension Summary {
    /// `rejects`: the rejects file (null when none was written) and each file's rejects by reason.
    static func rejects(_ r: RejectsSummary) -> JSONValue {
        .object([
            ("path", .optional(r.path)),
            ("rejected", .int(r.files.reduce(0) { $0 + $1.rejected })),
            (
                "files",
                .array(
                    r.files.map { file in
                        .object([
                            ("path", .string(file.path)), ("sha256", .string(file.sha256)),
                            ("rejected", .int(file.rejected)),
                            (
                                "rejects_by_reason",
                                .object(file.byReason.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
                            )
                        ])
                    })
            )
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
