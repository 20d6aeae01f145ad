import ArgumentParser
import AreaWatchJobs
import AreaWatchStore

extension AreaWatch {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the store: SQLite's integrity check and SpatiaLite's spatial index check.")

        @OptionGroup var store: StoreOptions

        func run() throws {
            let problems = try IncidentStore(path: store.db, create: false).check()
            if problems.isEmpty {
                print("\(store.db): ok (integrity check and spatial index check passed)")
                return
            }
            for p in problems { print("\(store.db): \(p)") }
            throw JobError(.inputOrStore, "\(store.db): \(problems.count) problem(s) found")
        }
    }
}
