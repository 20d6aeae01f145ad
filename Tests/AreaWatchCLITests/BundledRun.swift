import AreaWatchTestSupport
import Foundation
import Testing

/// The bundled nightly job, as `make run` runs it, in a scratch folder: the repository's
/// `areawatch.toml` copied verbatim beside a link named `datasets` to the bundled datasets, so
/// its relative paths put the store and the report folder in the scratch folder. It runs twice
/// (the second run must ingest nothing and rewrite the same reports). Built once, shared by the
/// tests that read it; nobody writes into it after it is built.
final class BundledRun: Sendable {
    let dir: String
    let config: String
    let store: String
    let out: String
    let rejects: String
    let first: CommandResult
    let second: CommandResult
    /// The report folder after the first run (the second run replaced it).
    let firstReport: [String: [UInt8]]
    /// The report folder after the second run.
    let report: [String: [UInt8]]

    private static let shared = Result { try BundledRun() }

    static func get() throws -> BundledRun { try shared.get() }

    private init() throws {
        let scratch = try TempDir("areawatch-cli-bundled", keepUntilExit: true)
        dir = scratch.path
        config = dir + "/areawatch.toml"
        try copyItem(packageRoot + "/areawatch.toml", config)
        try FileManager.default.createSymbolicLink(
            atPath: dir + "/datasets", withDestinationPath: packageRoot + "/datasets")
        // The repository ships reports/ (with its README); the store goes into it.
        try scratch.folder("reports")
        store = dir + "/reports/areawatch.db"
        out = dir + "/reports/calderdale"
        rejects = dir + "/reports/areawatch-rejects.csv"
        first = try areawatch(["run", "--config", config])
        try #require(first.status == 0, "first run: \(first)")
        firstReport = try readTree(out)
        second = try areawatch(["run", "--config", config])
        try #require(second.status == 0, "second run: \(second)")
        report = try readTree(out)
    }

    func file(_ relative: String) throws -> [UInt8] {
        try #require(report[relative], "the report has no \(relative)")
    }

    func text(_ relative: String) throws -> String { String(decoding: try file(relative), as: UTF8.self) }
}

/// Inputs read once by the independent model.
enum Model {
    private static let allIncidents = Result { try BundledModel.all() }
    static func all() throws -> [ModelIncident] { try allIncidents.get() }

    private static let policeFiles = Result { try Datasets.police.map { try BundledModel.police($0) } }
    static func police() throws -> [PoliceFile] { try policeFiles.get() }

    private static let watchmeExports = Result { try Datasets.watchme.map { try BundledModel.watchme($0) } }
    static func watchme() throws -> [BundledModel.WatchMeExport] { try watchmeExports.get() }

    static let asOf = Civil.parseISO(Datasets.asOf)!
}

/// summary.json without its `timings_s` member (the one member allowed to differ between runs).
func summaryWithoutTimings(_ bytes: [UInt8]) throws -> JSON {
    let json = try JSON.parse(bytes)
    return .object(json.members.filter { $0.0 != "timings_s" })
}

/// Compares two report folders file by file: every file byte-identical, except summary.json,
/// which must be identical once `timings_s` is left out. Returns the differences.
func reportDifferences(_ a: [String: [UInt8]], _ b: [String: [UInt8]]) -> [String] {
    var differences: [String] = []
    let names = Set(a.keys).union(b.keys).sorted()
    for name in names {
        guard let x = a[name] else {
            differences.append("only in the second: \(name)")
            continue
        }
        guard let y = b[name] else {
            differences.append("only in the first: \(name)")
            continue
        }
        if name == "summary.json" {
            let sx = try? summaryWithoutTimings(x), sy = try? summaryWithoutTimings(y)
            if sx == nil || sx != sy { differences.append("summary.json differs beyond timings_s") }
        } else if x != y {
            differences.append("\(name) differs")
        }
    }
    return differences
}
