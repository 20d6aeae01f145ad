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
            let (files, tiles) = try ReportOutputs(content: content, changes: changes, directory: directory).write()
            var outcome = ReportOutcome()
            for name in files {
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
