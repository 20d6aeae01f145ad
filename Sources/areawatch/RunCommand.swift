import AreaWatchJobs
import ArgumentParser

extension AreaWatch {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The nightly job: ingest new inbox files, then rebuild reports and tiles (TOML config).")

        @Option(help: "The job's TOML configuration.")
        var config = "areawatch.toml"

        @OptionGroup var output: OutputOptions

        func run() throws {
            let progress = ProgressReporter(quiet: output.quiet)
            let configuration = try RunConfig.load(path: config)
            let result = try RunJob.run(configuration, progress: progress)
            print(IngestTable.render(result.ingest))
            print(ReportOutput.text(result.report, out: configuration.out))
            if let failure = result.failure { throw failure }
        }
    }
}
