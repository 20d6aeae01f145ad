import AreaWatchCore
import AreaWatchJobs
import ArgumentParser

extension AreaWatch {
    /// Stage measurements for `make bench`; not part of the user-facing interface.
    struct Benchmark: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure parse, index, point query, grid, report and E-test stages (prints JSON).",
            shouldDisplay: false)

        enum Stage: String, ExpressibleByArgument {
            case parse, query, etest
        }

        @Argument(help: "parse, query or etest")
        var stage: Stage

        @OptionGroup var source: SourceOptions
        @OptionGroup var query: QuerySettings

        @Option var precision = 7
        @Option var points = 100_000
        @Option var threads = Concurrency.processorCount
        @Flag var compareStrategies = false
        @Option var reportFolder: String?

        func run() throws {
            let progress = ProgressReporter(quiet: true)
            switch stage {
            case .parse:
                print(
                    try BenchmarkJob.parse(files: source.input, options: source.reading.ingestOptions).serialized(
                        pretty: true),
                    terminator: "")
            case .query:
                print(
                    try BenchmarkJob.query(
                        source: source.source, parameters: query.parameters(), precision: precision,
                        points: points, threads: threads, compareStrategies: compareStrategies,
                        reportFolder: reportFolder, progress: progress
                    ).serialized(pretty: true),
                    terminator: "")
            case .etest:
                print(BenchmarkJob.eTest().serialized(pretty: true), terminator: "")
            }
        }
    }
}
