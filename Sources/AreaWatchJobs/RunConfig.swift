import Glibc
import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import TOMLKit

/// The nightly job's configuration (`areawatch run --config FILE`), read from TOML. Relative
/// paths are relative to the config file's folder. The `[ingest]`, `[query]` and `[report]`
/// tables hold the command line's options under their names in snake case (ConfigArguments);
/// docs/CONFIG.md lists every key.
public struct RunConfig: Sendable {
    public var storePath: String
    public var inboxFolder: String
    /// Glob patterns (relative to the inbox folder) of the files to ingest.
    public var include: [String]
    public var reading: ReadingSettings
    /// `[[inbox.files]]`: reading options of the files matching each pattern, first match wins.
    public var fileReadings: [(pattern: String, reading: ReadingSettings)]
    public var policy: IngestPolicy
    public var query: QuerySettings
    /// `out` is the top-level key.
    public var report: ReportSettings

    public var out: String { report.out }
    public var rejectsPath: String { policy.rejectsPath(storePath: storePath) }

    public static func load(path: String) throws -> RunConfig {
        guard let text = readText(path) else { throw JobError(.inputOrStore, "\(path): cannot read the config file") }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw JobError(.usage, "\(path): line \(error.source.begin.line), column \(error.source.begin.column): invalid TOML")
        }
        let base = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return try RunConfig(table: table, base: base, file: path)
    }

    init(table: TOMLTable, base: String, file: String) throws {
        func fail(_ message: String) -> JobError { JobError(.usage, "\(file): \(message)") }
        for key in table.keys where !["store", "out", "inbox", "ingest", "query", "report"].contains(key) {
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

        let inbox = try section("inbox")
        for key in inbox?.keys ?? [] where !["folder", "include", "files"].contains(key) { throw fail("unknown key \"\(key)\" in [inbox]") }
        inboxFolder = resolve(try string(inbox, "folder") ?? "inbox")
        include = try inbox?["include"].map { value in
            guard let array = value.array, let patterns = Optional(array.compactMap(\.string)), patterns.count == array.count else {
                throw fail("include must be an array of strings")
            }
            return patterns
        } ?? ["*"]

        // [ingest] holds the reading options and the ingest policy side by side.
        let ingest = try section("ingest")
        let readingKeys = Set(ConfigArguments.optionKinds(of: ReadingSettings.self).keys)
        let policyKeys = Set(ConfigArguments.optionKinds(of: IngestPolicy.self).keys)
        let ingestKeys = ingest?.keys ?? []
        let readingArguments = try ConfigArguments.arguments(
            ingest, as: ReadingSettings.self, context: "\(file) [ingest]",
            skipping: Set(ingestKeys.filter { policyKeys.contains(ConfigArguments.normalized($0)) }))
        reading = try ConfigArguments.parse(readingArguments, as: ReadingSettings.self, context: "\(file) [ingest]")
        // [[inbox.files]]: the [ingest] reading options, then the table's own (later ones win).
        var fileReadings: [(pattern: String, reading: ReadingSettings)] = []
        if let files = inbox?["files"] {
            guard let tables = files.array else { throw fail("[[inbox.files]] must be tables") }
            for (k, element) in tables.enumerated() {
                let context = "\(file) [[inbox.files]] #\(k + 1)"
                guard let t = element.table else { throw fail("[[inbox.files]] must be tables") }
                guard let pattern = t["pattern"]?.string else { throw JobError(.usage, "\(context): missing \"pattern\" (a glob)") }
                let own = try ConfigArguments.arguments(t, as: ReadingSettings.self, context: context, skipping: ["pattern"])
                fileReadings.append((pattern, try ConfigArguments.parse(readingArguments + own, as: ReadingSettings.self, context: context)))
            }
        }
        self.fileReadings = fileReadings
        var policy = try ConfigArguments.parse(ingest, as: IngestPolicy.self, context: "\(file) [ingest]",
                                               skipping: Set(ingestKeys.filter { readingKeys.contains(ConfigArguments.normalized($0)) }))
        policy.rejects = policy.rejects.map(resolve)
        self.policy = policy
        query = try ConfigArguments.parse(try section("query"), as: QuerySettings.self, context: "\(file) [query]")
        var report = try ConfigArguments.parse(try section("report"), as: ReportSettings.self, context: "\(file) [report]",
                                               skipping: ["out"])
        report.out = out
        self.report = report.resolvingPaths(resolve)
    }

    /// The reading options of an inbox file (a path returned by `inboxFiles`).
    public func reading(forInboxFile path: String) -> ReadingSettings {
        let relative = path.hasPrefix(inboxFolder + "/") ? String(path.dropFirst(inboxFolder.count + 1)) : path
        return fileReadings.first { fnmatch($0.pattern, relative, FNM_PATHNAME) == 0 }?.reading ?? reading
    }

    private static func readText(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The inbox files matching `include`, sorted by relative path.
    public func inboxFiles() throws -> [String] {
        var found: [String] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? inboxFolder : inboxFolder + "/" + relative
            guard let dir = opendir(path) else { return }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names.sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard stat(inboxFolder + "/" + child, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    walk(child)
                } else if include.contains(where: { fnmatch($0, child, FNM_PATHNAME) == 0 }) {
                    found.append(inboxFolder + "/" + child)
                }
            }
        }
        var info = stat()
        guard stat(inboxFolder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw JobError(.inputOrStore, "\(inboxFolder): the inbox folder does not exist")
        }
        walk("")
        return found.sorted()
    }
}
