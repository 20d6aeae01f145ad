import AreaWatchCore
import Glibc

/// Where an ingest puts the rejects it meets (SPEC §3): a rejects file written as it goes
/// (`RejectsWriter`), or the file's rejects held until they are committed with its records
/// (`RejectSpool`).
public protocol RejectRecorder: AnyObject {
    func add(source: String, record: String, id: String?, reason: RejectReason, excerpt: String) throws
}

/// A rejects file (SPEC §3): `source,record,id,reason,excerpt`.
///
/// Written beside its final name (`NAME.tmp-PID`) and renamed into place by `commit()`, so a
/// crashed command never leaves a half file under the name; a temporary file whose process has
/// ended is removed by the next writer (`removeOrphans`). Rejects of a file that turned out to
/// be an input error are dropped with `discardFile()`, because nothing of that file is kept.
public final class RejectsWriter: RejectRecorder {
    public let path: String
    private let temporaryPath: String
    private let file: UnsafeMutablePointer<FILE>
    private var pending: [UInt8] = []
    private var committedCount = 0
    private var committedOffset: off_t = 0
    public private(set) var count = 0

    public static let header = "source,record,id,reason,excerpt\n"

    public init(path: String) throws {
        self.path = path
        temporaryPath = RejectsWriter.temporaryPath(of: path, pid: getpid())
        RejectsWriter.makeParentFolders(of: path)
        guard let f = fopen(temporaryPath, "w") else {
            throw InputError(file: path, message: "cannot write the rejects file: \(String(cString: strerror(errno)))")
        }
        file = f
        fputs(RejectsWriter.header, file)
        fflush(file)
        committedOffset = ftello(file)
    }

    deinit {
        fclose(file)
        unlink(temporaryPath)
    }

    static func temporaryPath(of path: String, pid: Int32) -> String { path + ".tmp-\(pid)" }

    /// Every column is text a spreadsheet might evaluate (file names, locators such as a bare
    /// id, ids, raw excerpts), so each is made spreadsheet-safe; the excerpt's added `'` is
    /// documented in docs/FORMATS.md.
    public func add(source: String, record: String, id: String?, reason: RejectReason, excerpt: String) throws {
        try add(source: source, record: record, id: id, reason: reason.rawValue, excerpt: excerpt)
    }

    /// One row as the store keeps it (the reason as its SPEC code).
    public func add(source: String, record: String, id: String?, reason: String, excerpt: String) throws {
        for (i, field) in [source, record, id ?? "", reason, excerpt].enumerated() {
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

    /// Moves the file to its final name, its content on disk first.
    public func commit() throws {
        try flushPending()
        guard fflush(file) == 0, fsync(fileno(file)) == 0, rename(temporaryPath, path) == 0 else {
            throw InputError(file: path, message: "cannot write the rejects file: \(String(cString: strerror(errno)))")
        }
        RejectsWriter.syncFolder(of: path)
    }

    /// Temporary files of this rejects file (`NAME.tmp-PID`) left by processes that have ended
    /// (killed while writing it); a live process's file is left alone.
    public static func orphans(of path: String) -> [String] {
        let (folder, name) = split(path)
        let prefix = name + ".tmp-"
        var found: [String] = []
        for entryName in DirectoryListing.names(of: folder) {
            guard entryName.hasPrefix(prefix), let pid = Int32(entryName.dropFirst(prefix.count)),
                pid != getpid(), !ProcessLiveness.isAlive(pid)
            else { continue }
            found.append(folder + "/" + entryName)
        }
        return found.sorted()
    }

    /// Removes the orphans of `path` (see `orphans`).
    public static func removeOrphans(of path: String) {
        for orphan in orphans(of: path) { unlink(orphan) }
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// A rejects file may be named in a folder that does not exist yet: created, as `mkdir -p`.
    static func makeParentFolders(of path: String) {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (k, part) in parts.enumerated() {
            folder += (k == 0 ? "" : "/") + part
            if !folder.isEmpty { mkdir(folder, 0o755) }
        }
    }

    private static func syncFolder(of path: String) {
        let fd = open(split(path).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
