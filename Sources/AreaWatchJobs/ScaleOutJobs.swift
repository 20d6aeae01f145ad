import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport

/// The engine's share of the scale-out job (SPEC §15, docs/SCALE-OUT.md): four steps, each run
/// by an executor (or the driver, for the merge) on files it was handed, each writing files the
/// next one reads. The Python glue in `spark/` only moves these files between machines.
///
/// 1. `canonical`: one input file → its accepted records bucketed by key, and its ingest report.
/// 2. `dedup`: one key bucket of every file, in file order → the winning record of each key (as
///    one ingest of the files in that order keeps it), copied to its shard and halo shards; and
///    the inserts, updates and duplicates per file.
/// 3. `shardGrid`: one shard's records (its own and its halo) → the grid cells it owns and the
///    totals of the incidents inside it.
/// 4. `mergeReport`: every shard's cells → the report folder, through the one-machine writers.
public enum ScaleOutJobs {
    /// Step 1. Writes `k#####.awr` for every non-empty key bucket and `input.awi` into `folder`.
    /// - Parameter name: the name the summary gives the file (its URI when an executor read it
    ///   from object storage into a local copy at `path`); `path` when nil.
    public static func canonical(
        path: String, name: String? = nil, fileIndex: Int, buckets: Int, options: IngestOptions,
        folder: String
    ) throws -> FileIngestReport {
        guard buckets >= 1, buckets <= 65_536 else { throw JobError(.usage, "--key-buckets must be within 1…65536") }
        guard fileIndex >= 0, fileIndex < Int(UInt32.max) else {
            throw JobError(.usage, "--file-index must be within 0…4294967294")
        }
        try ExchangeFile.makeDirectory(folder)
        let (sha, bytes) = try FileDigest.sha256(path: path)
        var sink = CanonicalRecordSink(fileIndex: UInt32(fileIndex), buckets: buckets)
        var report: FileIngestReport
        do {
            report = try FileIngester.ingest(
                path: path, sha256: sha, bytes: bytes, options: options, into: &sink, rejects: nil)
        } catch let error as InputError where name != nil {
            // Name the file as the user gave it, not the executor's local copy.
            throw JobError(error.isUsage ? .usage : .inputOrStore, error.description.replacing(path, with: name!))
        }
        if let name { report.file = name }
        let header = CanonicalRecord.header(fileIndex: 0).bytes.count
        for (b, writer) in sink.buckets.enumerated() where writer.bytes.count > header {
            try ExchangeFile.write(writer.bytes, to: folder + "/" + bucketName(b))
        }
        try ExchangeFile.write(InputReportFile.encode(fileIndex: fileIndex, report), to: folder + "/input.awi")
        return report
    }

    static func bucketName(_ b: Int) -> String {
        let digits = String(b)
        return "k" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + ".awr"
    }

    /// What `dedup` did: records read, keys kept, copies written (keys × shards each goes to).
    public struct DedupOutcome: Sendable {
        public var records = 0
        public var keys = 0
        public var copies = 0
        public var shards = 0
    }

    /// Step 2. `recordFiles` are `AWREC` files of one key bucket (any order: they are read in
    /// file-index order). Writes `<shard geohash>.awr` per shard and `counts.awn` into `folder`.
    public static func dedup(
        recordFiles: [String], shardPrecision: Int, grid: GridSystem, radius: Double,
        folder: String
    ) throws -> DedupOutcome {
        try checkShardPrecision(shardPrecision, grid: grid)
        try ExchangeFile.makeDirectory(folder)
        var inputs: [(fileIndex: UInt32, records: [CanonicalRecord])] = []
        for path in recordFiles { inputs.append(try CanonicalRecord.readAll(try ExchangeFile.read(path), name: path)) }
        // Stable: two parts of one file keep their order (a task never splits a file, but the
        // order of parts of a file must not depend on the caller).
        inputs = inputs.enumerated().sorted { ($0.element.fileIndex, $0.offset) < ($1.element.fileIndex, $1.offset) }
            .map(\.element)

        struct Key: Hashable {
            var high: UInt64
            var low: UInt64
        }
        var slotOfKey: [Key: Int] = [:]
        var kept: [CanonicalRecord] = []
        var counts: [Int: (inserted: Int, updated: Int, duplicates: Int)] = [:]
        var outcome = DedupOutcome()
        for (fileIndex, records) in inputs {
            let file = Int(fileIndex)
            var c = counts[file] ?? (0, 0, 0)
            for record in records {
                outcome.records += 1
                let key = Key(high: record.keyHigh, low: record.keyLow)
                if let slot = slotOfKey[key] {
                    if kept[slot].content == record.content {
                        c.duplicates += 1
                    } else {
                        c.updated += 1
                        kept[slot] = record
                    }
                } else {
                    slotOfKey[key] = kept.count
                    kept.append(record)
                    c.inserted += 1
                }
            }
            counts[file] = c
        }
        outcome.keys = kept.count
        let halo = ShardHalo(precision: shardPrecision, grid: grid, radius: radius)
        var shards: [UInt64: BinaryWriter] = [:]
        for record in kept {
            for shard in halo.shards(lat: record.lat, lon: record.lon) {
                record.encode(
                    to: &shards[shard.prefix, default: CanonicalRecord.header(fileIndex: CanonicalRecord.deduplicated)])
                outcome.copies += 1
            }
        }
        outcome.shards = shards.count
        for (prefix, writer) in shards {
            let name = GeohashCell(prefix: prefix, precision: shardPrecision).string
            try ExchangeFile.write(writer.bytes, to: folder + "/" + name + ".awr")
        }
        try ExchangeFile.write(WriteCountsFile.encode(counts), to: folder + "/counts.awn")
        return outcome
    }

    /// Step 3. `folder` holds `<shard>.<part>.awr` files: the records of some shards, each with
    /// its halo. Computes one grid over their union (every key once: a record copied to several
    /// of these shards is counted once) and writes to `out` the cells owned by those shards and
    /// the totals of the incidents inside them.
    ///
    /// One grid per task rather than per shard: a cell owned by shard S counts only incidents
    /// within the radius of its centre, all of which are in S's file (the halo), and only
    /// incidents inside it, all of which are S's own; the other shards' incidents in the union
    /// are beyond its radius. So the owned cells come out as S alone would give them, while a
    /// task of a thousand small shards (near a pole) builds one index instead of a thousand.
    public static func shardGrid(
        folder: String, grid system: GridSystem, query: QuerySettings, minCellCount: Int = 1,
        threads: Int, out: String
    ) throws -> (shards: Int, cells: Int) {
        try refuseLatest(query)
        if let problem = system.problem { throw JobError(.usage, "--grid: \(problem)") }
        let finest = system.geohashPrecision ?? Geohash.maxPrecision
        var shards = Set<GeohashCell>()
        var paths: [String] = []
        for name in try ExchangeFile.list(folder, suffix: ".awr") {
            let shardName = name.prefix { $0 != "." }
            guard let shard = GeohashCell(shardName), shard.precision <= finest,
                shards.first.map({ $0.precision == shard.precision }) ?? true
            else {
                throw JobError(
                    .usage, "\(folder)/\(name): not named after a geohash shard of one precision ≤ \(finest)")
            }
            shards.insert(shard)
            paths.append(folder + "/" + name)
        }
        let parameters = query.parameters()
        struct Key: Hashable {
            var high: UInt64
            var low: UInt64
        }
        var seen = Set<Key>()
        var columns = IncidentColumns()
        for path in paths {
            let (_, records) = try CanonicalRecord.readAll(try ExchangeFile.read(path), name: path)
            columns.reserveCapacity(columns.count + records.count)
            for r in records where seen.insert(Key(high: r.keyHigh, low: r.keyLow)).inserted {
                columns.append(
                    lat: r.lat, lon: r.lon, time: r.time, handled: r.handled < 0 ? nil : r.handled == 1,
                    category: r.category)
            }
        }
        seen = []
        let index = IncidentIndex(columns: columns, parameters: parameters, threads: threads)
        let grid = index.grid(system, threads: threads)
        let cells = grid.cells(ownedBy: shards)
        var totals = ShardTotals(columns: columns, parameters: parameters, shards: shards, grid: system)
        totals.extent = DataExtent(
            columns: columns, parameters: parameters, grid: system,
            minCellCount: minCellCount, shards: shards, threads: threads)
        try ExchangeFile.write(ShardCellsFile.encode(system: system, totals: totals, cells: cells), to: out)
        return (shards.count, cells.count)
    }

    /// Step 4. Reads every `*.awi`, `*.awn` and `*.awc` file of `parts` and writes the report
    /// folder as `report --input` over the same files would.
    public static func mergeReport(
        parts: String, query: QuerySettings, report settings: ReportSettings,
        progress: ProgressReporter
    ) throws -> ReportRun {
        guard settings.areas == nil, settings.areaPopulation == nil, settings.poi == nil, settings.groupBy == nil,
            !settings.ehsa, !settings.nearRepeat
        else {
            throw JobError(
                .usage,
                "the scale-out job writes the grid, tiles, summary and HTML report; "
                    + "--areas, --area-population, --poi, --group-by, --ehsa and --near-repeat are for "
                    + "`areawatch report`")
        }
        try refuseLatest(query)
        let parameters = query.parameters()
        let started = ProgressReporter.now()
        var inputs: [(Int, InputSummaryParts)] = []
        for name in try ExchangeFile.list(parts, suffix: ".awi") {
            inputs.append(try InputReportFile.decode(try ExchangeFile.read(parts + "/" + name), name: name))
        }
        inputs.sort { $0.0 < $1.0 }
        var counts: [Int: (inserted: Int, updated: Int, duplicates: Int)] = [:]
        for name in try ExchangeFile.list(parts, suffix: ".awn") {
            for (file, c) in try WriteCountsFile.decode(try ExchangeFile.read(parts + "/" + name), name: name) {
                let sum = counts[file] ?? (0, 0, 0)
                counts[file] = (sum.inserted + c.inserted, sum.updated + c.updated, sum.duplicates + c.duplicates)
            }
        }
        let system = settings.gridSystem
        var totals = ShardTotals()
        var cells: [ShardCell] = []
        for name in try ExchangeFile.list(parts, suffix: ".awc") {
            let part = try ShardCellsFile.decode(try ExchangeFile.read(parts + "/" + name), name: name)
            guard part.system == system else {
                throw JobError(.usage, "\(name) holds cells of the grid \(part.system), not \(system)")
            }
            totals.add(part.totals)
            cells += part.cells
        }
        let summaries = inputs.map { index, s in
            let c = counts[index] ?? (0, 0, 0)
            return InputSummary(
                path: s.path, sha256: s.sha256, format: s.format, records: s.records, accepted: s.accepted,
                inserted: c.inserted, updated: c.updated, duplicates: c.duplicates, rejected: s.rejected,
                rejectsByReason: s.rejectsByReason, skipped: false)
        }
        let merged = totals.totals
        let grid = GridResult(merging: cells, system: system, parameters: parameters, years: merged.years)
        let protected = summaries.map(\.path)
        try ReportFolder.checkReplaceable(settings.out, protecting: protected)
        var content = ReportContent(
            parameters: parameters, grid: grid, totals: merged, tileZooms: settings.tileZooms.zooms,
            disclosure: Disclosure(minCellCount: settings.minCellCount), areas: nil, pointsOfInterest: nil,
            breakdown: nil,
            sourceKind: "files", sourcePath: nil, inputs: summaries,
            timings: [("merge", ProgressReporter.now() - started)],
            attribution: settings.attribution, engineVersion: ReportJob.engineVersion)
        content.formats = settings.formats
        content.publicURL = settings.publicURL
        // As `report --input` without `--rejects` summarises them (the tasks write no rejects file).
        content.rejects = RejectsSummary(path: nil, files: IncidentLoading.filesWithRejects(summaries))
        content = withExtent(content, totals.extent, progress: progress)
        progress.log("writing \(settings.out) (\(grid.cells.count) cells)")
        let outcome = try ReportWriter.write(
            content, to: settings.out, protecting: protected, clock: ProgressReporter.now)
        return ReportRun(content: content, outcome: outcome)
    }

    /// The shards' merged extent, and the empty-windows warning it may call for (SPEC §7).
    private static func withExtent(
        _ content: ReportContent, _ extent: DataExtent?,
        progress: ProgressReporter
    ) -> ReportContent {
        var out = content
        out.extent = .known(extent)
        if let warning = out.emptyWindowsWarning { progress.warn(warning) }
        return out
    }

    /// Step 0, on the driver before any task: the report folder `mergeReport` will write is
    /// refused now, not after the whole job (exit 1, SPEC §8).
    public static func checkOut(_ out: String, protecting files: [String]) throws {
        try ReportFolder.checkReplaceable(out, protecting: files)
    }

    /// A shard of precision 1…12, and no finer than a geohash grid's cells (a shard would split a
    /// cell); any precision for an H3 grid, whose cells belong to the shard holding their centre.
    private static func checkShardPrecision(_ shardPrecision: Int, grid: GridSystem) throws {
        if let problem = grid.problem { throw JobError(.usage, "--grid: \(problem)") }
        let finest = grid.geohashPrecision ?? Geohash.maxPrecision
        guard (1...finest).contains(shardPrecision) else {
            let what = grid.geohashPrecision == nil ? "" : " (the grid precision)"
            throw JobError(.usage, "--shard-precision must be within 1…\(finest)\(what)")
        }
    }

    /// Every step must use one as-of: `latest` would be each shard's own newest incident.
    private static func refuseLatest(_ query: QuerySettings) throws {
        if query.asOf == .latest {
            throw JobError(.usage, "--as-of latest is not available to the scale-out steps: give the instant itself")
        }
    }
}
