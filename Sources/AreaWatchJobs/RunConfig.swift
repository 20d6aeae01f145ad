import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Glibc
import TOMLKit

/// The nightly job's configuration (`areawatch run --config FILE`), read from TOML. Relative
/// paths are relative to the config file's folder. The `[ingest]`, `[query]` and `[report]`
/// tables hold the command line's options under their names in snake case (ConfigArguments);
/// docs/CONFIG.md lists every key.
public struct RunConfig: Sendable {
    public var storePath: String
    public var inboxFolder: String
    /// Glob patterns (relative to the inbox folder) of the files to ingest.
    public var include: [InboxPattern]
    /// `[inbox] follow_links_outside`: follow links whose target lies outside the inbox folder.
    public var followLinksOutside: Bool
    /// `incremental = true`: the grid (and the points of interest, areas and a breakdown by
    /// category) from the grid count state of the night before plus the night's delta when they
    /// match (SPEC §20), the default; false: recomputed every night, no state written.
    public var incremental: Bool
    public var reading: ReadingSettings
    /// `[[inbox.files]]`: reading options of the files matching each pattern, first match wins.
    public var fileReadings: [(pattern: InboxPattern, reading: ReadingSettings)]
    public var policy: IngestPolicy
    public var query: QuerySettings
    /// `out` is the top-level key.
    public var report: ReportSettings

    public var out: String { report.out }
    public var rejectsPath: String { policy.rejectsPath(storePath: storePath) }

    public static func load(path: String) throws -> RunConfig {
        let text = try readText(path)
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw JobError(
                .usage, "\(path): line \(error.source.begin.line), column \(error.source.begin.column): invalid TOML")
        }
        let base = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return try RunConfig(table: table, base: base, file: path)
    }

    init(table: TOMLTable, base: String, file: String) throws {
        func fail(_ message: String) -> JobError { JobError(.usage, "\(file): \(message)") }
        for key in table.keys where !["store", "out", "incremental", "inbox", "ingest", "query", "report"].contains(key)
        {
            throw fail("unknown key \"\(key)\"")
        }
        func section(_ name: String) throws -> TOMLTable? {
            guard let value = table[name] else { return nil }
            guard let t = value.table else { throw fail("[\(name)] must be a table") }
            return t
        }
        func string(_ t: TOMLTable?, _ key: String) throws -> String? {
            guard let v = t?[key] else { return nil }
            guard let s = v.string else { throw fail("\(key) must be a string") }
            return s
        }
        func resolve(_ p: String) -> String { p.hasPrefix("/") || base == "." ? p : base + "/" + p }

        guard let store = try string(table, "store") else { throw fail("missing \"store\" (the store's path)") }
        guard let out = try string(table, "out") else { throw fail("missing \"out\" (the report folder)") }
        storePath = resolve(store)
        if let value = table["incremental"] {
            guard let flag = value.bool else { throw fail("incremental must be true or false") }
            incremental = flag
        } else {
            incremental = true
        }

        let inbox = try section("inbox")
        for key in inbox?.keys ?? [] where !["folder", "include", "files", "follow_links_outside"].contains(key) {
            throw fail("unknown key \"\(key)\" in [inbox]")
        }
        inboxFolder = resolve(try string(inbox, "folder") ?? "inbox")
        include =
            try inbox?["include"].map { value in
                guard let array = value.array, let patterns = Optional(array.compactMap(\.string)),
                    patterns.count == array.count
                else {
                    throw fail("include must be an array of strings")
                }
                guard !patterns.isEmpty else { throw fail("[inbox] include is empty: no file would ever be ingested") }
                return try patterns.map { try RunConfig.pattern($0, context: "\(file) [inbox] include") }
            } ?? [try RunConfig.pattern("*", context: file)]
        if let follow = inbox?["follow_links_outside"] {
            guard let flag = follow.bool else { throw fail("follow_links_outside must be true or false") }
            followLinksOutside = flag
        } else {
            followLinksOutside = false
        }

        // [ingest] holds the reading options and the ingest policy side by side.
        let ingest = try section("ingest")
        let readingKeys = Set(ConfigArguments.optionKinds(of: ReadingSettings.self).keys)
        let policyKeys = Set(ConfigArguments.optionKinds(of: IngestPolicy.self).keys)
        let ingestKeys = ingest?.keys ?? []
        let readingArguments = try ConfigArguments.arguments(
            ingest, as: ReadingSettings.self, context: "\(file) [ingest]",
            skipping: Set(ingestKeys.filter { policyKeys.contains(ConfigArguments.normalized($0)) }))
        reading = try ConfigArguments.parse(readingArguments, as: ReadingSettings.self, context: "\(file) [ingest]")
        self.fileReadings = try RunConfig.fileReadings(inbox?["files"], base: readingArguments, file: file)
        var policy = try ConfigArguments.parse(
            ingest, as: IngestPolicy.self, context: "\(file) [ingest]",
            skipping: Set(ingestKeys.filter { readingKeys.contains(ConfigArguments.normalized($0)) }))
        policy.rejects = policy.rejects.map(resolve)
        self.policy = policy
        query = try ConfigArguments.parse(try section("query"), as: QuerySettings.self, context: "\(file) [query]")
        var report = try ConfigArguments.parse(
            try section("report"), as: ReportSettings.self, context: "\(file) [report]",
            skipping: ["out"])
        report.out = out
        if let problem = report.areaPopulationProblem { throw JobError(.usage, "\(file) [report]: \(problem)") }
        self.report = report.resolvingPaths(resolve)
    }

    /// `[[inbox.files]]`: per table its pattern and the `[ingest]` reading options followed by the
    /// table's own (later ones win).
    private static func fileReadings(
        _ files: (any TOMLValueConvertible)?, base readingArguments: [String], file: String
    ) throws -> [(pattern: InboxPattern, reading: ReadingSettings)] {
        guard let files else { return [] }
        guard let tables = files.array else { throw JobError(.usage, "\(file): [[inbox.files]] must be tables") }
        return try tables.enumerated().map { k, element in
            let context = "\(file) [[inbox.files]] #\(k + 1)"
            guard let t = element.table else { throw JobError(.usage, "\(file): [[inbox.files]] must be tables") }
            guard let text = t["pattern"]?.string else {
                throw JobError(.usage, "\(context): missing \"pattern\" (a glob)")
            }
            let pattern = try RunConfig.pattern(text, context: context)
            let own = try ConfigArguments.arguments(
                t, as: ReadingSettings.self, context: context, skipping: ["pattern"])
            return (
                pattern, try ConfigArguments.parse(readingArguments + own, as: ReadingSettings.self, context: context)
            )
        }
    }

    /// A glob of the config, checked (a pattern that can never match is a usage error).
    private static func pattern(_ text: String, context: String) throws -> InboxPattern {
        do {
            return try InboxPattern(text)
        } catch {
            throw JobError(.usage, "\(context): \(error)")
        }
    }

    /// The reading options of an inbox file (a path returned by `inboxFiles`).
    public func reading(forInboxFile path: String) -> ReadingSettings {
        let relative = path.hasPrefix(inboxFolder + "/") ? String(path.dropFirst(inboxFolder.count + 1)) : path
        let names = relative.split(separator: "/").map(String.init)
        return fileReadings.first { $0.pattern.matches(names) }?.reading ?? reading
    }

    /// The config file's text. A folder, a FIFO or a device is refused (opened without blocking,
    /// so a FIFO given by mistake does not hang the job).
    private static func readText(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            if error == EISDIR { throw folderGiven(path) }
            throw cannotRead(path, error)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JobError(.inputOrStore, "\(path): cannot read the config file") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw folderGiven(path)
        default: throw JobError(.usage, "\(path): not a regular file; --config takes the job's TOML file")
        }
        guard info.st_size <= maxConfigBytes else {
            throw JobError(.usage, "\(path): larger than \(maxConfigBytes >> 20) MiB: not a job configuration")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            guard n > 0 else {
                if n < 0 && errno == EINTR { continue }
                if n == 0 { break }
                throw cannotRead(path, errno)
            }
            done += n
        }
        return String(decoding: bytes.prefix(done), as: UTF8.self)
    }

    private static let maxConfigBytes: Int = 16 << 20

    private static func cannotRead(_ path: String, _ error: Int32) -> JobError {
        JobError(.inputOrStore, "\(path): cannot read the config file (\(String(cString: strerror(error))))")
    }

    private static func folderGiven(_ path: String) -> JobError {
        JobError(
            .usage,
            "\(path): a folder, not a config file; --config takes the job's TOML file "
                + "(e.g. areawatch.toml)")
    }

    /// The inbox files matching `include`, sorted by path, and the entries a pattern matched
    /// that the walk did not take, each with its reason (InboxWalk).
    public func inboxFiles() throws -> (files: [String], skipped: [(path: String, reason: String)]) {
        var walk = InboxWalk(folder: inboxFolder, include: include, followLinksOutside: followLinksOutside)
        try walk.run()
        return (walk.files, walk.skipped.map { ($0.path, $0.reason) })
    }
}
