import Glibc
import AreaWatchCore

/// The rejects file of an ingest (SPEC §3): `source,record,id,reason,excerpt`.
///
/// Written beside its final name and renamed into place by `commit()`, so a crashed ingest never
/// leaves a half file; rejects of a file that turned out to be an input error are dropped with
/// `discardFile()`, because nothing of that file is kept.
public final class RejectsWriter {
    public let path: String
    private let temporaryPath: String
    private let file: UnsafeMutablePointer<FILE>
    private var pending: [UInt8] = []
    private var committedCount = 0
    private var committedOffset: off_t = 0
    public private(set) var count = 0

    public init(path: String) throws {
        self.path = path
        temporaryPath = path + ".tmp-\(getpid())"
        guard let f = fopen(temporaryPath, "w") else {
            throw InputError(file: path, message: "cannot write the rejects file: \(String(cString: strerror(errno)))")
        }
        file = f
        let header = "source,record,id,reason,excerpt\n"
        fputs(header, file)
        fflush(file)
        committedOffset = ftello(file)
    }

    deinit {
        fclose(file)
        unlink(temporaryPath)
    }

    /// Every column is text a spreadsheet might evaluate (file names, locators such as a bare
    /// id, ids, raw excerpts), so each is made spreadsheet-safe; the excerpt's added `'` is
    /// documented in docs/FORMATS.md.
    func add(source: String, record: String, id: String?, reason: RejectReason, excerpt: String) throws {
        for (i, field) in [source, record, id ?? "", reason.rawValue, excerpt].enumerated() {
            if i > 0 { pending.append(44) }
            CSVText.appendTextField(field, to: &pending)
        }
        pending.append(10)
        count += 1
        if pending.count > 1 << 16 { try flushPending() }
    }

    private func flushPending() throws {
        guard !pending.isEmpty else { return }
        let written = pending.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == pending.count else {
            throw InputError(file: path, message: "cannot write the rejects file: \(String(cString: strerror(errno)))")
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Keeps the rejects written since the last file boundary.
    public func endFile() throws {
        try flushPending()
        fflush(file)
        committedCount = count
        committedOffset = ftello(file)
    }

    /// Forgets the rejects of the current file (its ingest failed as a whole).
    public func discardFile() {
        pending.removeAll(keepingCapacity: true)
        fflush(file)
        _ = ftruncate(fileno(file), committedOffset)
        fseeko(file, committedOffset, SEEK_SET)
        count = committedCount
    }

    /// Moves the file to its final name.
    public func commit() throws {
        try flushPending()
        fflush(file)
        fsync(fileno(file))
        guard rename(temporaryPath, path) == 0 else {
            throw InputError(file: path, message: "cannot write the rejects file: \(String(cString: strerror(errno)))")
        }
    }
}
