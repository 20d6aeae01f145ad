import AreaWatchCore
import AreaWatchIngest
import AreaWatchReport
import AreaWatchStore
import Glibc

/// The rejects file of a store (SPEC §3): made whole from the store's `rejects` table after each
/// `ingest` or `run`, so it holds every reject of every file the store holds, whatever the
/// command read this time, and a killed command never costs a reject (they are committed with
/// their file's records). Everything here runs under the store's lock.
enum StoreRejectsFile {
    /// Before the first file: a store made before the rejects table gets it, with the rejects an
    /// earlier version left (`RejectsImport`); temporary rejects files of ended processes are
    /// then removed (their rows are in the table, or were never committed).
    static func prepare(store: IncidentStore, path: String, progress: ProgressReporter) throws {
        if try !store.hasRejectsTables() {
            let imported = try RejectsImport.rows(rejectsPath: path, store: store)
            try store.addRejectsTables { add in
                for row in imported.rows { try add(row.sha256, row.reject) }
            }
            progress.log(
                "store: rejects table added"
                    + (imported.rows.isEmpty
                        ? "" : ", \(imported.rows.count) rejects kept from \(imported.files.joined(separator: ", "))"))
        }
        for orphan in RejectsWriter.orphans(of: path) {
            unlink(orphan)
            progress.log("removed \(orphan), left by an ended process (its rejects are in the store)")
        }
    }

    /// The rejects file is rewritten whole: it must not be an input, the store or a file areawatch
    /// keeps beside the store (paths compared with links resolved).
    static func checkPath(_ rejects: String, storePath: String?, inputs: [String]) throws {
        var taken = inputs
        if let storePath {
            taken += [storePath] + ["-wal", "-shm", "-journal", ".lock", ".columns", ".new"].map { storePath + $0 }
        }
        let target = ReportFolder.canonical(rejects)
        if let clash = taken.first(where: { ReportFolder.canonical($0) == target }) {
            throw JobError(
                .usage,
                "the rejects file \(rejects) would overwrite \(clash); "
                    + "give the rejects file a name of its own")
        }
    }

    /// Writes the file from the table (beside its name, then renamed) and records where it is;
    /// returns the rows written.
    static func write(from store: IncidentStore, to path: String) throws -> Int {
        let writer = try RejectsWriter(path: path)
        try store.forEachReject { reject in
            try writer.add(
                source: reject.source, record: reject.record, id: reject.id, reason: reject.reason,
                excerpt: reject.excerpt)
        }
        try writer.commit()
        try store.recordRejectsFilePath(path)
        return writer.count
    }
}

/// The rejects an earlier version left beside a store made before the rejects table: its rejects
/// file and the temporary files of its killed runs (`NAME.tmp-PID`, which nothing cleaned up and
/// which alone held the rejects of the files such a run committed). Only rows of files the store
/// holds are kept, each file's rows from one rejects file: the newest whose row count for it is
/// the `rejected` count its last ingest logged (else the newest holding any). Text is stored as
/// read, less the spreadsheet `'` the file added (FORMATS.md: ambiguous only for a value that
/// itself began with `'` and one of `= + - @`, tab or CR).
enum RejectsImport {
    struct Row {
        var sha256: String
        var reject: StoredReject
    }

    static func rows(rejectsPath: String, store: IncidentStore) throws -> (rows: [Row], files: [String]) {
        // The last ingest of each file path: its SHA-256 and logged reject count.
        var logged: [String: (sha256: String, rejected: Int)] = [:]
        for entry in try store.stats(categories: false).ingests { logged[entry.file] = (entry.sha256, entry.rejected) }
        let candidates = ([rejectsPath] + RejectsWriter.orphans(of: rejectsPath))
            .compactMap { path -> (path: String, modified: Int64)? in
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
                return (path, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
            }
            .sorted { $0.modified > $1.modified } // newest first
        var bySource: [String: (file: String, rows: [StoredReject], exact: Bool)] = [:]
        var order: [String] = []
        for candidate in candidates {
            var rows: [String: [StoredReject]] = [:]
            var sources: [String] = []
            for reject in RejectsFileReader.rows(path: candidate.path) where logged[reject.source] != nil {
                if rows[reject.source] == nil { sources.append(reject.source) }
                rows[reject.source, default: []].append(reject)
            }
            for source in sources {
                let exact = rows[source]!.count == logged[source]!.rejected
                if let chosen = bySource[source], chosen.exact || !exact { continue }
                if bySource[source] == nil { order.append(source) }
                bySource[source] = (candidate.path, rows[source]!, exact)
            }
        }
        var result: [Row] = []
        var files: Set<String> = []
        for source in order {
            let chosen = bySource[source]!
            files.insert(chosen.file)
            result += chosen.rows.map { Row(sha256: logged[source]!.sha256, reject: $0) }
        }
        return (result, files.sorted())
    }
}

/// Reads a rejects file as areawatch writes it (RFC 4180, header `source,record,id,reason,excerpt`),
/// a byte at a time through a buffer; a last record cut off by a kill is dropped, and so is a file
/// without that header.
enum RejectsFileReader {
    static func rows(path: String) -> [StoredReject] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false, afterQuote = false
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            for byte in chunk[0..<n] {
                if quoted {
                    if byte == 34 {
                        quoted = false
                        afterQuote = true
                    } else {
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case 34:
                    if afterQuote { field.append(34) } // "" inside quotes
                    quoted = true
                    afterQuote = false
                case 44:
                    record.append(String(decoding: field, as: UTF8.self))
                    field.removeAll(keepingCapacity: true)
                    afterQuote = false
                case 10:
                    if field.last == 13 && !afterQuote { field.removeLast() }
                    record.append(String(decoding: field, as: UTF8.self))
                    records.append(record)
                    record = []
                    field.removeAll(keepingCapacity: true)
                    afterQuote = false
                default:
                    field.append(byte)
                    afterQuote = false
                }
            }
        }
        guard records.first == ["source", "record", "id", "reason", "excerpt"] else { return [] }
        return records.dropFirst().compactMap { fields in
            guard fields.count == 5 else { return nil }
            let f = fields.map(unescaped)
            return StoredReject(source: f[0], record: f[1], id: f[2].isEmpty ? nil : f[2], reason: f[3], excerpt: f[4])
        }
    }

    /// A field less the `'` written before a leading `=`, `+`, `-`, `@`, tab or CR (SPEC §8).
    static func unescaped(_ field: String) -> String {
        let bytes = Array(field.utf8)
        guard bytes.count >= 2, bytes[0] == 39, [61, 43, 45, 64, 9, 13].contains(bytes[1]) else { return field }
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }
}
