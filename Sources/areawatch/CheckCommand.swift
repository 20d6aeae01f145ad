import AreaWatchCore
import AreaWatchJobs
import ArgumentParser

extension AreaWatch {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the store: SQLite's integrity check and SpatiaLite's spatial index check.")

        @OptionGroup var store: StoreOptions

        func run() throws {
            let problems = try CheckJob.run(storePath: store.db)
            let name = TerminalText.escaped(store.db)
            if problems.isEmpty {
                print("\(name): ok (integrity check and spatial index check passed)")
                return
            }
            for p in problems { print("\(name): \(TerminalText.escaped(p))") }
            throw JobError(.inputOrStore, "\(store.db): \(problems.count) problem(s) found")
        }
    }
}
