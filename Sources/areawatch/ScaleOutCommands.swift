import AreaWatchCore
import AreaWatchIngest
import AreaWatchJobs
import ArgumentParser

/// The engine steps of the scale-out job (SPEC §15), run by the Python glue in `spark/` on its
/// executors; hidden from `--help` because they read and write the machine exchange files of
/// docs/FORMATS.md, not anything an analyst opens.
extension AreaWatch {
    struct Canonical: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scale-out step 1: one input file → canonical records by key bucket, and its ingest report.",
            shouldDisplay: false)

        @Argument(help: "The input file.") var file: String
        @Option(help: "The file's name in the summary and messages (its URI when this is a local copy).") var name:
            String?
        @Option(help: "Its position among the job's input files (later files win).") var fileIndex: Int
        @Option(help: "Key buckets to spread the records over.") var keyBuckets = 1
        @Option(help: "The folder to write k#####.awr and input.awi into.") var out: String
        @OptionGroup var reading: ReadingSettings

        func run() throws {
            let report = try ScaleOutJobs.canonical(
                path: file, name: name, fileIndex: fileIndex, buckets: keyBuckets,
                options: reading.ingestOptions, folder: out)
            print("\(report.records) records, \(report.accepted) accepted, \(report.rejected) rejected")
        }
    }

    struct Dedup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scale-out step 2: one key bucket of every file → the winning records by shard, with the halo.",
            shouldDisplay: false)

        @Argument(help: "AWREC files of one key bucket.") var files: [String] = []
        @Option(help: "Geohash precision of the shards.") var shardPrecision = 4
        @OptionGroup var cells: ScaleOutGrid
        @Option(help: "The query radius in metres (the halo's width).") var radius = Decimal(1000)
        @Option(help: "The folder to write <shard>.awr and counts.awn into.") var out: String

        func run() throws {
            let o = try ScaleOutJobs.dedup(
                recordFiles: files, shardPrecision: shardPrecision, grid: try cells.system(),
                radius: radius.value, folder: out)
            print("\(o.records) records, \(o.keys) keys, \(o.copies) copies in \(o.shards) shards")
        }
    }

    struct ShardGrid: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shard-grid",
            abstract: "Scale-out step 3: each shard's records (own and halo) → the grid cells it owns.",
            shouldDisplay: false)

        @Option(name: .customLong("in"), help: "The folder of <shard>.<part>.awr files.") var input: String
        @OptionGroup var cells: ScaleOutGrid
        @OptionGroup var query: QuerySettings
        @Option(help: "The report's --min-cell-count (the published data box, SPEC §8).") var minCellCount = 1
        @Option(help: "Worker threads.") var threads = 1
        @Option(help: "The AWCEL file to write.") var out: String

        func run() throws {
            let (shards, cells) = try ScaleOutJobs.shardGrid(
                folder: input, grid: try cells.system(), query: query,
                minCellCount: max(1, minCellCount),
                threads: max(1, threads), out: out)
            print("\(cells) cells in \(shards) shards")
        }
    }

    struct MergeReport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-report",
            abstract: "Scale-out step 4: every shard's cells → the report folder, as `report --input` writes it.",
            shouldDisplay: false)

        @Option(help: "The folder holding the *.awi, *.awn and *.awc files.") var parts: String
        @OptionGroup var query: QuerySettings
        @OptionGroup var report: ReportSettings
        @OptionGroup var output: OutputOptions

        func run() throws {
            let result = try ScaleOutJobs.mergeReport(
                parts: parts, query: query, report: report,
                progress: ProgressReporter(quiet: output.quiet))
            print(ReportOutput.text(result, out: report.out))
        }
    }

    struct CheckOut: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-out",
            abstract: "Scale-out step 0: refuse the report folder before any work, as `report` would (SPEC §8).",
            shouldDisplay: false)

        @Option(help: "The report folder the job will write.") var out: String
        @OptionGroup var grid: ScaleOutGrid
        @Argument(help: "The job's input files (the folder must not hold them).") var files: [String] = []

        func run() throws {
            // The grid options too, so that a pair naming two grids is refused before any work.
            _ = try grid.system()
            try ScaleOutJobs.checkOut(out, protecting: files)
        }
    }
}

/// The grid of the `dedup` and `shard-grid` steps: `--grid geohash:P|h3:R`, or `--precision P`
/// (short for `--grid geohash:P`), geohash:7 without either, as `report` reads them (SPEC §18).
struct ScaleOutGrid: ParsableArguments {
    @Option(help: "The grid: geohash:P (P 1…12) or h3:R (R 0…15).", transform: GridSystem.option)
    var grid: GridSystem?
    @Option(help: "Geohash precision of the grid cells (1…12): short for --grid geohash:P.") var precision: Int?

    func system() throws -> GridSystem {
        if let grid, let precision, grid != .geohash(precision: precision) {
            throw JobError(.usage, "--grid \(grid) and --precision \(precision) name different grids: give one of them")
        }
        if let precision, !(1...Geohash.maxPrecision).contains(precision) {
            throw JobError(.usage, "--precision must be within 1…12")
        }
        return grid ?? .geohash(precision: precision ?? 7)
    }
}
