#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import TOMLKit

/// The nightly job's configuration (`areawatch run --config FILE`), read from TOML. Relative
/// paths are relative to the config file's folder. docs/CONFIG.md lists every key.
public struct RunConfig: Sendable {
    public var storePath: String
    public var out: String
    public var inboxFolder: String
    /// Glob patterns (relative to the inbox folder) of the files to ingest.
    public var include: [String]
    public var ingest: IngestOptions
    public var maxRejectRate: Double
    public var rejectsPath: String
    /// nil: the current time, truncated to the second.
    public var asOf: Int64?
    public var radius: Double
    public var thresholds: Thresholds
    public var categories: Set<String>
    public var handled: Bool?
    public var precision: Int
    public var tileZooms: ClosedRange<Int>?
    public var minCellCount: Int
    public var areasPath: String?
    public var areaIdProperty: String
    public var poiPath: String?
    public var groupBy: String?
    public var attribution: String

    private static let known: [String: Set<String>] = [
        "": ["store", "out", "inbox", "ingest", "query", "report"],
        "inbox": ["folder", "include"],
        "ingest": ["max_reject_rate", "rejects", "idless", "source", "max_record_bytes", "max_json_depth"],
        "query": ["as_of", "radius", "thresholds", "categories", "handled"],
        "report": ["precision", "tile_zooms", "min_cell_count", "areas", "area_id", "poi", "group_by", "attribution"],
    ]

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
        for key in table.keys where !(RunConfig.known[""]!.contains(key)) { throw fail("unknown key \"\(key)\"") }
        func section(_ name: String) throws -> TOMLTable? {
            guard let value = table[name] else { return nil }
            guard let t = value.table else { throw fail("[\(name)] must be a table") }
            for key in t.keys where !(RunConfig.known[name]!.contains(key)) { throw fail("unknown key \"\(key)\" in [\(name)]") }
            return t
        }
        func string(_ t: TOMLTable?, _ key: String) throws -> String? {
            guard let v = t?[key] else { return nil }
            guard let s = v.string else { throw fail("\(key) must be a string") }
            return s
        }
        func number(_ t: TOMLTable?, _ key: String) throws -> Double? {
            guard let v = t?[key] else { return nil }
            if let i = v.int { return Double(i) }
            guard let d = v.double else { throw fail("\(key) must be a number") }
            return d
        }
        func resolve(_ p: String) -> String { p.hasPrefix("/") || base == "." ? p : base + "/" + p }

        guard let store = try string(table, "store") else { throw fail("missing \"store\" (the store's path)") }
        guard let out = try string(table, "out") else { throw fail("missing \"out\" (the report folder)") }
        storePath = resolve(store)
        self.out = resolve(out)

        let inbox = try section("inbox")
        inboxFolder = resolve(try string(inbox, "folder") ?? "inbox")
        include = try inbox?["include"].map { value in
            guard let array = value.array, let patterns = Optional(array.compactMap(\.string)), patterns.count == array.count else {
                throw fail("include must be an array of strings")
            }
            return patterns
        } ?? ["*"]

        let ingestTable = try section("ingest")
        var options = IngestOptions()
        options.source = try string(ingestTable, "source")
        if let idless = try string(ingestTable, "idless") {
            guard let mode = IdlessMode(rawValue: idless) else { throw fail("idless must be \"snapshot\" or \"append\"") }
            options.idless = mode
        }
        if let n = try number(ingestTable, "max_record_bytes") { options.reader.maxRecordBytes = Int(n) }
        if let n = try number(ingestTable, "max_json_depth") { options.reader.maxJSONDepth = Int(n) }
        ingest = options
        maxRejectRate = try number(ingestTable, "max_reject_rate") ?? 1.0
        rejectsPath = try string(ingestTable, "rejects").map(resolve) ?? IngestSettings.defaultRejectsPath(storePath: storePath)

        let query = try section("query")
        if let text = try string(query, "as_of") {
            guard let t = TimeParser.parse(text) else { throw fail("as_of is not an ISO 8601 time") }
            asOf = t.seconds
        } else {
            asOf = nil
        }
        radius = try number(query, "radius") ?? 1000
        if let value = query?["thresholds"] {
            guard let array = value.array, array.count == 2,
                  let t = Thresholds(parsing: array.map { $0.int.map(String.init) ?? $0.double.map { "\($0)" } ?? "x" }.joined(separator: ",")) else {
                throw fail("thresholds must be two non-decreasing numbers, e.g. [5, 10]")
            }
            thresholds = t
        } else {
            thresholds = .standard
        }
        categories = Set(try query?["categories"].map { value -> [String] in
            guard let array = value.array else { throw fail("categories must be an array of strings") }
            return array.compactMap(\.string)
        } ?? [])
        if let value = query?["handled"] {
            guard let b = value.bool else { throw fail("handled must be true or false") }
            handled = b
        } else {
            handled = nil
        }

        let report = try section("report")
        precision = Int(try number(report, "precision") ?? 7)
        if let zooms = try string(report, "tile_zooms") {
            guard let range = RunConfig.parseZooms(zooms) else { throw fail("tile_zooms must look like \"10-14\"") }
            tileZooms = range
        } else {
            tileZooms = 10...14
        }
        minCellCount = Int(try number(report, "min_cell_count") ?? 1)
        areasPath = try string(report, "areas").map(resolve)
        areaIdProperty = try string(report, "area_id") ?? "name"
        poiPath = try string(report, "poi").map(resolve)
        groupBy = try string(report, "group_by")
        attribution = try string(report, "attribution") ?? "areawatch"
    }

    /// `"10-14"` or `"12"`.
    public static func parseZooms(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-").map { Int($0.trimmingCharacters()) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let lo = parts[0]!, hi = parts.last!!
        return lo <= hi ? lo...hi : nil
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

private extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f == " " { s.removeFirst() }
        while let l = s.last, l == " " { s.removeLast() }
        return String(s)
    }
}
