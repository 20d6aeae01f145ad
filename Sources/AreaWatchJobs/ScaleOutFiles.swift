import AreaWatchCore
import AreaWatchIngest
import AreaWatchReport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `read(2)`, named apart from `ExchangeFile.read`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Whole-file reads and writes of the scale-out exchange files, and the two small formats only
/// the jobs use (docs/FORMATS.md "Scale-out exchange files").
enum ExchangeFile {
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw JobError(.inputOrStore, "\(path): cannot open (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JobError(.inputOrStore, "\(path): cannot stat") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw JobError(.inputOrStore, "\(path): read failed at byte \(done)") }
            done += n
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try BufferedFile.write(bytes, to: path)
    }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw JobError(.inputOrStore, "\(path): cannot create folder (\(String(cString: strerror(errno))))")
        }
    }

    /// The names in a folder ending in `suffix`, sorted.
    static func list(_ folder: String, suffix: String) throws -> [String] {
        guard let entries = DirectoryListing.entries(of: folder) else {
            throw JobError(.inputOrStore, "\(folder): cannot open folder")
        }
        return entries.map(\.name).filter { $0.hasSuffix(suffix) }.sorted()
    }
}

/// `AWINP` files: one input file's ingest report as the canonical stage saw it (records, accepted,
/// rejects by reason); inserted, updated and duplicates come from the de-duplication stage.
enum InputReportFile {
    static let magic = "AWINP001"

    static func encode(fileIndex: Int, _ r: FileIngestReport) -> [UInt8] {
        var w = BinaryWriter()
        for b in magic.utf8 { w.u8(b) }
        w.u32(UInt32(fileIndex))
        w.string(r.file)
        w.string(r.sha256)
        w.string(r.format)
        w.i64(Int64(r.records))
        w.i64(Int64(r.accepted))
        w.i64(Int64(r.rejected))
        let reasons = r.rejectsByReason.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }
        w.u32(UInt32(reasons.count))
        for (reason, n) in reasons {
            w.string(reason)
            w.i64(Int64(n))
        }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8], name: String) throws -> (fileIndex: Int, summary: InputSummaryParts) {
        var r = BinaryReader(bytes, name: name)
        try r.expectMagic(magic)
        let index = Int(try r.u32())
        var s = InputSummaryParts(path: try r.string(), sha256: try r.string(), format: try r.string())
        s.records = Int(try r.i64())
        s.accepted = Int(try r.i64())
        s.rejected = Int(try r.i64())
        for _ in 0..<Int(try r.u32()) {
            let reason = try r.string()
            s.rejectsByReason[reason] = Int(try r.i64())
        }
        return (index, s)
    }
}

/// What the merge learns of one input file before it becomes an `InputSummary`.
struct InputSummaryParts {
    var path: String
    var sha256: String
    var format: String
    var records = 0
    var accepted = 0
    var rejected = 0
    var rejectsByReason: [String: Int] = [:]
}

/// `AWCNT` files: per input file, the inserts, updates and duplicates a de-duplication task saw
/// among its keys; the merge adds them up over the tasks.
enum WriteCountsFile {
    static let magic = "AWCNT001"

    static func encode(_ counts: [Int: (inserted: Int, updated: Int, duplicates: Int)]) -> [UInt8] {
        var w = BinaryWriter()
        for b in magic.utf8 { w.u8(b) }
        w.u32(UInt32(counts.count))
        for (index, c) in counts.sorted(by: { $0.key < $1.key }) {
            w.u32(UInt32(index))
            w.i64(Int64(c.inserted))
            w.i64(Int64(c.updated))
            w.i64(Int64(c.duplicates))
        }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8], name: String) throws -> [Int: (inserted: Int, updated: Int, duplicates: Int)] {
        var r = BinaryReader(bytes, name: name)
        try r.expectMagic(magic)
        var counts: [Int: (inserted: Int, updated: Int, duplicates: Int)] = [:]
        for _ in 0..<Int(try r.u32()) {
            let index = Int(try r.u32())
            counts[index] = (Int(try r.i64()), Int(try r.i64()), Int(try r.i64()))
        }
        return counts
    }
}
