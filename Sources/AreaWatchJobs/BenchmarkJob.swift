import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport

/// Stage-by-stage measurements for `make bench` (hidden `areawatch benchmark` command): the
/// numbers the issues ask for, measured inside one process so each stage is timed alone.
public enum BenchmarkJob {
    /// Counts records without keeping them: what parse + validate + key costs.
    struct CountingSink: IncidentSink {
        var count = 0
        mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) {
            count += batch.count
            for _ in 0..<batch.count { outcome(.inserted) }
        }
    }

    /// Reads, validates and keys every record of the files on one thread, then again on every
    /// core (the parallel CSV parse).
    public static func parse(files: [String], options: IngestOptions) throws -> JSONValue {
        var one = options
        one.pipelined = false // one core: the parse + validate goal
        var all = options
        all.pipelined = true
        all.parseThreads = Concurrency.processorCount
        var records = 0, accepted = 0
        var bytes: Int64 = 0
        // The file's SHA-256 (what skips an already-ingested file) is timed apart: it is a read of
        // its own, not parsing or validation.
        var seconds = 0.0, digestSeconds = 0.0, allCoresSeconds = 0.0
        // The one-core parse's CPU time too: on a shared machine its wall time also counts the
        // time other processes held the core.
        var cpuSeconds = 0.0
        for path in files {
            let digestStart = MonotonicClock.now()
            let (sha, size) = try FileDigest.sha256(path: path)
            digestSeconds += MonotonicClock.now() - digestStart
            var sink = CountingSink()
            let cpuStart = MonotonicClock.threadCPU()
            let (report, oneSeconds) = try timed {
                try FileIngester.ingest(path: path, sha256: sha, bytes: size, options: one, into: &sink, rejects: nil)
            }
            cpuSeconds += MonotonicClock.threadCPU() - cpuStart
            allCoresSeconds += try timed {
                try FileIngester.ingest(path: path, sha256: sha, bytes: size, options: all, into: &sink, rejects: nil)
            }.1
            seconds += oneSeconds
            records += report.records
            accepted += report.accepted
            bytes += size
        }
        return .object([
            ("records", .int(records)), ("accepted", .int(accepted)), ("bytes", .int(Int(bytes))),
            ("seconds", .fixed(seconds, decimals: 3)),
            ("records_per_s", .int(Int(Double(records) / seconds))),
            ("mb_per_s", .fixed(Double(bytes) / 1e6 / seconds, decimals: 1)),
            ("cpu_seconds", .fixed(cpuSeconds, decimals: 3)),
            ("mb_per_cpu_s", .fixed(Double(bytes) / 1e6 / cpuSeconds, decimals: 1)),
            ("file_sha256_s", .fixed(digestSeconds, decimals: 3)),
            ("records_per_s_with_file_sha256", .int(Int(Double(records) / (seconds + digestSeconds)))),
            ("threads", .int(all.parseThreads)),
            ("all_cores_seconds", .fixed(allCoresSeconds, decimals: 3)),
            ("records_per_s_all_cores", .int(Int(Double(records) / allCoresSeconds)))
        ])
    }

    /// SPEC §12 E-test p-values per CPU second of one core (thread CPU time, so that a busy
    /// machine does not count against it): seeded random pairs at village (0–20),
    /// city (100–900, "hundreds per cell") and large (1,000–10,000) counts, unchanged city cells
    /// (k2 within 2√k1 of k1: most cells of a real grid, where the two kept tails come close or
    /// meet), each with the windows of a year against a leap year and of two equal years; then
    /// city cells as the report computes them (`ChangeSignificance.of` on one thread: pairs of
    /// one total share their Poisson tables, BH and directions included).
    public static func eTest(pairs: Int = 200_000) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        let windows = [(365.0, 366.0), (365.0, 365.0)]
        func record(_ name: String, _ n1: Double, _ n2: Double, count: Int, seconds: Double, checksum: Double) {
            fields.append(("\(name)_\(Int(n1))_\(Int(n2))_per_s", .int(Int(Double(count) / seconds))))
            fields.append(("\(name)_\(Int(n1))_\(Int(n2))_checksum", .fixed(checksum, decimals: 6)))
        }
        for (name, cases) in [
            ("counts_0_20", eTestPairs(pairs, 0...20)), ("counts_100_900", eTestPairs(pairs, 100...900)),
            ("counts_1000_10000", eTestPairs(pairs / 8, 1000...10_000)),
            ("counts_100_900_unchanged", eTestPairs(pairs, 100...900, unchanged: true))
        ] {
            for (n1, n2) in windows {
                var checksum = 0.0
                let start = MonotonicClock.threadCPU()
                for (k1, k2) in cases { checksum += PoissonETest.pValue(k1: k1, n1: n1, k2: k2, n2: n2) }
                record(
                    name, n1, n2, count: cases.count, seconds: MonotonicClock.threadCPU() - start, checksum: checksum)
            }
        }
        for (name, cases) in [
            ("cells_100_900", eTestPairs(pairs, 100...900)),
            ("cells_100_900_unchanged", eTestPairs(pairs, 100...900, unchanged: true))
        ] {
            for (n1, n2) in windows {
                let start = MonotonicClock.threadCPU()
                let rows = ChangeSignificance.of(
                    current: cases.map(\.0), previous: cases.map(\.1), currentDays: n1,
                    previousDays: n2, alpha: 0.05, threads: 1)
                record(
                    "\(name)_report_path", n1, n2, count: cases.count, seconds: MonotonicClock.threadCPU() - start,
                    checksum: rows.reduce(0) { $0 + $1.p })
            }
        }
        return .object(fields)
    }

    /// Seeded count pairs with k1 in `range`: k2 from the same range, or within 2√k1 of k1.
    private static func eTestPairs(_ count: Int, _ range: ClosedRange<Int>, unchanged: Bool = false) -> [(Int, Int)] {
        var rng = SplitMix64(seed: 42)
        let span = UInt64(range.count)
        return (0..<count).map { _ in
            let k1 = range.lowerBound + Int(rng.next() % span)
            guard unchanged else { return (k1, range.lowerBound + Int(rng.next() % span)) }
            let spread = Int(Double(k1).squareRoot() * 2)
            return (k1, k1 + Int(rng.next() % UInt64(2 * spread + 1)) - spread)
        }
    }

    private static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = MonotonicClock.now()
        let value = try body()
        return (value, MonotonicClock.now() - start)
    }

    /// Index build, point queries, grid by both strategies, report writing, memory per incident.
    public static func query(
        source: IncidentSource, parameters: QueryParameters, precision: Int, points: Int,
        threads: Int, compareStrategies: Bool, reportFolder: String?, progress: ProgressReporter
    ) throws -> JSONValue {
        var stages: [(String, JSONValue)] = []
        var laps = Laps()
        func lap() -> Double { laps.lap() }
        let loaded = try IncidentLoading.load(source, groupBy: nil, keepKeys: false, progress: progress)
        stages.append(("load_s", .fixed(lap(), decimals: 3)))
        let index = IncidentIndex(columns: loaded.columns, parameters: parameters)
        stages.append(("index_build_s", .fixed(lap(), decimals: 3)))

        stages += pointQueryStages(index, radius: parameters.radius, points: points, threads: threads, laps: &laps)

        let grid = index.grid(precision: precision, strategy: .scatter, threads: threads)
        stages.append(("grid_scatter_s", .fixed(lap(), decimals: 3)))
        stages.append(("grid_cells", .int(grid.cells.count)))
        if threads > 1 {
            _ = index.grid(precision: precision, strategy: .scatter, threads: 1)
            stages.append(("grid_scatter_1_thread_s", .fixed(lap(), decimals: 3)))
        }
        // SPEC §12 on every grid row (one E-test per distinct pair, BH), on one core and on all:
        // the cost the §12 columns add to a report's grid.
        let rows = (current: grid.cells.map(\.rCurrent), previous: grid.cells.map(\.rPrevious))
        _ = lap()
        _ = parameters.changeSignificance(current: rows.current, previous: rows.previous, alpha: 0.05, threads: 1)
        stages.append(("change_significance_1_thread_s", .fixed(lap(), decimals: 3)))
        _ = parameters.changeSignificance(current: rows.current, previous: rows.previous, alpha: 0.05, threads: threads)
        stages.append(("change_significance_s", .fixed(lap(), decimals: 3)))
        if compareStrategies {
            let other = index.grid(precision: precision, strategy: .rtreePerCell, threads: threads)
            stages.append(("grid_rtree_per_cell_s", .fixed(lap(), decimals: 3)))
            stages.append(("strategies_agree", .bool(other.cells == grid.cells)))
        }
        let bytes = index.memoryBytes + loaded.columns.memoryBytes
        stages.append(("incidents", .int(loaded.columns.count)))
        stages.append(("index_bytes", .int(index.memoryBytes)))
        stages.append(("columns_bytes", .int(loaded.columns.memoryBytes)))
        stages.append(("bytes_per_incident", .fixed(Double(bytes) / Double(max(1, loaded.columns.count)), decimals: 1)))

        if let reportFolder {
            stages += try reportStages(
                grid, index: index, loaded: loaded, parameters: parameters,
                folder: reportFolder, laps: &laps)
        }
        return .object(stages)
    }

    /// Seeded points inside the data's extent, like phones in the city, answered one by one and
    /// as one batch over the cores.
    private static func pointQueryStages(
        _ index: IncidentIndex, radius: Double, points: Int, threads: Int,
        laps: inout Laps
    ) -> [(String, JSONValue)] {
        var rng = SplitMix64(seed: 42)
        var box = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
        for i in 0..<index.count {
            box.minLat = min(box.minLat, index.lat[i])
            box.maxLat = max(box.maxLat, index.lat[i])
            box.minLon = min(box.minLon, index.lon[i])
            box.maxLon = max(box.maxLon, index.lon[i])
        }
        let queries = (0..<points).map { _ in
            (box.minLat + rng.unit() * (box.maxLat - box.minLat), box.minLon + rng.unit() * (box.maxLon - box.minLon))
        }
        let test = RadiusTest(radius: radius)
        _ = laps.lap()
        var checksum = 0
        for (lat, lon) in queries { checksum &+= index.pointAnswer(lat: lat, lon: lon, test: test).current }
        let querySeconds = laps.lap()
        var stages: [(String, JSONValue)] = []
        stages.append(("point_queries", .int(points)))
        stages.append(("point_queries_per_s_1_thread", .int(Int(Double(points) / querySeconds))))
        stages.append(("point_checksum", .int(checksum)))
        // The same queries as one batch over the cores (POI answers, a batch of phones).
        let batch = index.pointAnswers(queries.map { (lat: $0.0, lon: $0.1) }, threads: threads)
        let batchSeconds = laps.lap()
        precondition(batch.reduce(0, { $0 &+ $1.current }) == checksum, "batched point answers differ from single ones")
        stages.append(("point_queries_per_s", .int(Int(Double(points) / batchSeconds))))
        return stages
    }

    /// The report written from the grid, then grid.geojson and grid.pmtiles alone.
    private static func reportStages(
        _ grid: GridResult, index: IncidentIndex, loaded: LoadedIncidents,
        parameters: QueryParameters, folder reportFolder: String,
        laps: inout Laps
    ) throws -> [(String, JSONValue)] {
        var stages: [(String, JSONValue)] = []
        do {
            let content = ReportContent(
                parameters: parameters, grid: grid, totals: index.totals(), tileZooms: 10...14,
                disclosure: Disclosure(),
                areas: nil, pointsOfInterest: nil, breakdown: nil, sourceKind: "benchmark", sourcePath: nil,
                inputs: loaded.inputs, timings: [], attribution: "areawatch benchmark",
                engineVersion: ReportJob.engineVersion)
            _ = laps.lap()
            let cpu = GridArchiveTiming.processCPU()
            let outcome = try ReportWriter.write(content, to: reportFolder, clock: MonotonicClock.now)
            stages.append(("report_write_s", .fixed(laps.lap(), decimals: 3)))
            stages.append(("report_write_cpu_s", .fixed(GridArchiveTiming.processCPU() - cpu, decimals: 3)))
            stages.append(("report_files", .object(outcome.files.map { ($0.0, .int(Int($0.1))) })))
            stages.append(("tiles", .int(outcome.tiles)))
            // grid.geojson alone, to give its MB/s.
            let file = reportFolder + "/grid-bench.geojson"
            let gridJSON = try GridGeoJSONTiming.write(grid, to: file)
            stages.append(("grid_geojson_mb_per_s", .fixed(gridJSON, decimals: 1)))
            // grid.parquet alone: part of report_write_s above (a node of its own in the report),
            // so report_write_s minus this bounds the report without it from below.
            // The report's changes, computed once before its writers (as ReportChanges does).
            let changes = grid.changeSignificance().map { $0 }
            let parquet = try GridParquetTiming.write(
                grid, changes: changes, to: reportFolder + "/grid-bench.parquet")
            stages.append(("grid_parquet_s", .fixed(parquet.seconds, decimals: 3)))
            stages.append(("grid_parquet_bytes", .int(Int(parquet.bytes))))
            // grid.gpkg's grid layer alone, the same way (its other layers are the small tables).
            let gpkg = try GridGeoPackageTiming.write(
                grid, changes: changes, asOf: parameters.asOf, to: reportFolder + "/grid-bench.gpkg")
            stages.append(("grid_gpkg_s", .fixed(gpkg.seconds, decimals: 3)))
            stages.append(("grid_gpkg_bytes", .int(Int(gpkg.bytes))))
            stages.append(("grid_cells", .int(grid.cells.count)))
            // grid.pmtiles alone (tiles grouped, encoded, compressed, laid out; not written): part
            // of report_write_s above, its CPU time part of report_write_cpu_s.
            let archive = GridArchiveTiming.measure(grid, zooms: 10...14)
            stages.append(("grid_pmtiles_s", .fixed(archive.wall, decimals: 3)))
            stages.append(("grid_pmtiles_cpu_s", .fixed(archive.cpu, decimals: 3)))
            stages.append(("grid_pmtiles_bytes", .int(archive.bytes)))
        }
        return stages
    }
}

/// Seconds between successive calls, on the monotonic clock.
private struct Laps {
    private var clock = MonotonicClock.now()

    mutating func lap() -> Double {
        let now = MonotonicClock.now()
        defer { clock = now }
        return now - clock
    }
}
