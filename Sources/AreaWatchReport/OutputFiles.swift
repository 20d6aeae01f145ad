import AreaWatchCore
import CAreaWatchSystem
import Dispatch
import Glibc
import Synchronization

/// Failure writing a report.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    static func errno(_ path: String, _ action: String) -> ReportError {
        ReportError(path: path, message: "\(action): \(String(cString: strerror(Glibc.errno)))")
    }

    public var description: String { "\(path): \(message)" }
}

/// A file written through a 1 MiB buffer: outputs are streamed, never built whole in memory.
/// Files are only ever written inside a report's work folder, so an existing file (one of the
/// spare folder's, `SpareFolder`) is written over in place and cut to its new length at `finish`
/// rather than truncated first: its inode and blocks are reused.
public final class BufferedFile {
    public let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// The length the file had when opened (0 for a new one).
    private let previousLength: Int64
    public private(set) var bytesWritten: Int64 = 0

    /// `capacity`: bytes buffered before a write (small for the many small tile files).
    public init(path: String, capacity: Int = 1 << 20) throws {
        self.path = path
        self.capacity = capacity
        var fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0 && (errno == EACCES || errno == EPERM) && unlink(path) == 0 {
            // A spare's file this user may not write (another user's report): a new one instead.
            fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw ReportError.errno(path, "cannot create") }
        self.fd = fd
        var info = stat()
        previousLength = fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
        buffer.reserveCapacity(capacity + 4096)
    }

    deinit {
        close(fd)
    }

    /// The buffer to append to; call `flushIfFull` after larger appends.
    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        try flushIfFull()
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        try flushIfFull()
    }

    /// Appends with direct access to the buffer (no intermediate array).
    public func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        try flushIfFull()
    }

    private func flushIfFull() throws {
        if buffer.count >= capacity { try flush() }
    }

    public func flush() throws {
        try buffer.withUnsafeBytes { try BufferedFile.writeAll($0, to: fd, path: path) }
        // A large file's pages start for the disk as they are written, so the one `syncfs` at
        // publication waits for the last few only (measured: docs/PERFORMANCE.md).
        if capacity >= 1 << 20 { _ = aw_start_writeback(fd, bytesWritten, Int64(buffer.count)) }
        bytesWritten += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// `write(2)` until every byte is written (short writes and EINTR retried).
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReportError.errno(path, "cannot write")
            }
            offset += n
        }
    }

    /// Flushes and cuts off what a longer previous content left; durability comes from one
    /// `syncfs` when the folder is published.
    public func finish() throws {
        try flush()
        try cutToLength()
    }

    private func cutToLength() throws {
        if previousLength > bytesWritten && ftruncate(fd, off_t(bytesWritten)) != 0 {
            throw ReportError.errno(path, "cannot truncate")
        }
    }

    /// Writes a whole small file.
    public static func write(_ text: String, to path: String) throws {
        let file = try BufferedFile(path: path)
        try file.write(text)
        try file.finish()
    }

    /// Writes bytes already whole in memory straight to a new file (no copy into a buffer).
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try BufferedFile(path: path, capacity: 0)
        try bytes.withUnsafeBytes { try writeAll($0, to: file.fd, path: path) }
        file.bytesWritten = Int64(bytes.count)
        try file.cutToLength()
    }
}

/// A report folder written beside its final name and published in one atomic step (SPEC §8):
/// a crash at any moment leaves either the previous folder or the new one under the final name.
///
/// New content goes to `.NAME.tmp-PID` in the same parent, marker file first; publishing swaps
/// it with the old folder by `renameat2(RENAME_EXCHANGE)` (or renames it when there is no old
/// folder). The old content is then kept as `.NAME.spare`, which the next run takes as its work
/// folder and writes over (`SpareFolder`); it is never under the final name and may be deleted at
/// any time. Only a folder `ReportFolder` allows is replaced, checked when the work starts and
/// again just before the swap. Leftovers of crashed runs (`.NAME.tmp-*` of dead processes) are
/// removed first. Every folder this removes is checked to hold nothing but report files first
/// (`removeTree`): publishing never deletes what areawatch did not write.
public struct AtomicDirectory: Sendable {
    public let finalPath: String
    public let workPath: String
    private let sparePath: String
    /// The previous report's folder being written over; nil when the work folder started empty.
    private let spare: SpareFolder?
    /// Paths the folder, its spare and its work folders must not hold (checked again at the swap).
    private let protected: [String]

    /// - Parameter protected: paths that must not be inside the folder (store, inbox, rejects, inputs).
    public init(path: String, protecting protected: [String] = []) throws {
        let trimmed = ReportFolder.trimmed(path)
        finalPath = trimmed
        self.protected = protected
        try ReportFolder.checkReplaceable(trimmed, protecting: protected)
        let (parent, name) = AtomicDirectory.split(trimmed)
        try AtomicDirectory.makeDirectories(parent)
        AtomicDirectory.removeLeftovers(parent: parent, name: name)
        workPath = parent + "/." + name + ".tmp-\(getpid())"
        sparePath = SpareFolder.path(parent: parent, name: name)
        try AtomicDirectory.removeTree(workPath)
        spare = try AtomicDirectory.startWork(workPath, spare: sparePath)
        try ReportFolder.writeMarker(into: workPath)
    }

    /// The spare taken as the work folder, or a new empty one.
    private static func startWork(_ work: String, spare: String) throws -> SpareFolder? {
        do {
            if let taken = try SpareFolder.take(spare, as: work) { return taken }
        } catch {
            try removeTree(work)
        }
        guard mkdir(work, 0o755) == 0 else { throw ReportError.errno(work, "cannot create") }
        return nil
    }

    /// Path of a file inside the work folder; creates intermediate folders. A relative path
    /// ending in `/.` names a folder to create.
    public func file(_ relative: String) throws -> String {
        let path = self.path(relative)
        let (parent, _) = AtomicDirectory.split(path)
        try AtomicDirectory.makeDirectories(parent)
        return path
    }

    /// Path of a file in a folder of the work folder that the caller has already created.
    public func path(_ relative: String) -> String {
        let name = relative.hasSuffix("/.") ? String(relative.dropLast(2)) : relative
        // A new output must be added to `ReportFolder.topFiles`: a folder holding a file not
        // listed there is not replaced by the next report.
        assert(
            ReportFolder.isReportFile(name) || ReportFolder.isReportFolder(name),
            "\(name) is not a known report file")
        spare?.noteWritten(name)
        return workPath + "/" + relative
    }

    /// Starts writing back, on a thread of its own, what is already dirty on the filesystem that
    /// will hold `path` (or its nearest existing parent folder), and returns at once. Publishing
    /// makes the report durable with `syncfs`, which writes back everything dirty on the
    /// filesystem, other programs' data included: started at the beginning of a job, that part
    /// is on disk while the job computes, and publishing waits for the report's own data only
    /// (another program's dirty pages would otherwise be written back inside publication's
    /// `syncfs`; docs/PERFORMANCE.md has the figures).
    /// Its own thread, not a Dispatch worker: the call blocks for as long as the disk takes.
    public static func startWritingBack(filesystemOf path: String) {
        var folder = path.isEmpty ? "." : path
        var info = stat()
        while stat(folder, &info) != 0 {
            let parent = split(folder).parent
            guard parent != folder else { return }
            folder = parent
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                let fd = Int32(truncatingIfNeeded: Int(bitPattern: argument) - 1)
                aw_sync_filesystem(fd)
                close(fd)
                return nil
            }, UnsafeMutableRawPointer(bitPattern: Int(fd) + 1))
        if started == 0 { pthread_detach(thread) } else { close(fd) }
    }

    /// Publishes the work folder under the final name, once everything in it is on disk.
    public func publish() throws {
        let (parent, _) = AtomicDirectory.split(finalPath)
        try spare?.removeUnwritten(in: workPath)
        let fd = open(workPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            aw_sync_filesystem(fd)
            close(fd)
        }
        var info = stat()
        if lstat(finalPath, &info) == 0 {
            // Files may have been put there while the report was computed.
            try ReportFolder.checkReplaceable(finalPath, protecting: protected)
            guard aw_exchange_paths(workPath, finalPath) == 0 else {
                throw ReportError.errno(finalPath, "cannot replace")
            }
            syncDirectory(parent)
            keepAsSpare()
        } else {
            guard rename(workPath, finalPath) == 0 else { throw ReportError.errno(finalPath, "cannot publish") }
            syncDirectory(parent)
        }
    }

    /// The work folder now holds the previous report: kept for the next run to write over when it
    /// carries the marker and nothing takes the spare's name (an earlier spare, or anything of
    /// the user's, is never replaced), removed otherwise. The new report is published by then:
    /// a previous report that cannot be removed stays as a leftover for the next run to remove.
    private func keepAsSpare() {
        var info = stat()
        if lstat(workPath + "/" + ReportFolder.markerName, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
            aw_rename_noreplace(workPath, sparePath) == 0
        {
            return
        }
        try? AtomicDirectory.removeTree(workPath)
    }

    /// Removes the work folder (a failed run publishes nothing).
    public func abandon() {
        try? AtomicDirectory.removeTree(workPath)
    }

    private func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
    }

    static func makeDirectories(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let (parent, _) = split(path)
        if parent != path && parent != "." && parent != "/" { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw ReportError.errno(path, "cannot create") }
    }

    /// Work folders of earlier runs that died before publishing, unless their process still runs;
    /// only those holding nothing but report files (`removeTree` leaves any other).
    static func removeLeftovers(parent: String, name: String) {
        let prefix = "." + name + ".tmp-"
        var stale: [String] = []
        for (entryName, _) in entries(of: parent) {
            guard entryName.hasPrefix(prefix), let pid = Int32(entryName.dropFirst(prefix.count)) else { continue }
            if pid == getpid() || !ProcessLiveness.isAlive(pid) { stale.append(parent + "/" + entryName) }
        }
        for path in stale { try? removeTree(path) }
    }

    /// The names in a folder (without `.` and `..`) and whether each is a folder.
    static func entries(of folder: String) -> [(name: String, isFolder: Bool)] {
        (DirectoryListing.entries(of: folder) ?? []).map { entry in
            var isFolder = entry.isFolder
            if entry.kindUnknown {
                var info = stat()
                isFolder = lstat(folder + "/" + entry.name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            }
            return (entry.name, isFolder)
        }
    }

    /// Everything below `root`, relative to it: the folders, each after its parent, and every
    /// other entry (files, links, anything that is not a folder).
    static func tree(_ root: String) -> (folders: [String], others: [String]) {
        var folders: [String] = [], others: [String] = []
        func walk(_ relative: String) {
            for (name, isFolder) in entries(of: relative.isEmpty ? root : root + "/" + relative) {
                let child = relative.isEmpty ? name : relative + "/" + name
                if isFolder {
                    folders.append(child)
                    walk(child)
                } else {
                    others.append(child)
                }
            }
        }
        walk("")
        return (folders, others)
    }

    /// Removes a report's work folder with everything in it: the files by several threads
    /// (`FileFanOut`), then the folders, deepest first. The report marker goes last: a folder
    /// whose removal is cut short stays recognisable. A folder holding anything a report does not
    /// write (`ReportFolder.isReportFile`), or a path that is not a folder, is left whole and the
    /// error names it: nothing areawatch did not write is ever deleted.
    static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ReportError(path: path, message: "not a report work folder; left in place")
        }
        let (folders, others) = tree(path)
        if let foreign = ReportFolder.firstForeignEntry(folders: folders, others: others) {
            throw ReportError(path: path, message: "holds \(foreign), which areawatch does not write; left in place")
        }
        let hasMarker = others.contains(ReportFolder.markerName)
        let files = others.filter { $0 != ReportFolder.markerName }.map { path + "/" + $0 }
        @Sendable func remove(_ file: String) throws {
            guard unlink(file) == 0 || errno == ENOENT else { throw ReportError.errno(file, "cannot remove") }
        }
        try FileFanOut.forEachRange(files.count) { range in
            for file in files[range] { try remove(file) }
        }
        func removeFolder(_ folder: String) throws {
            guard rmdir(folder) == 0 else { throw ReportError.errno(folder, "cannot remove") }
        }
        for folder in folders.reversed() { try removeFolder(path + "/" + folder) }
        if hasMarker { try remove(path + "/" + ReportFolder.markerName) }
        try removeFolder(path)
    }
}

/// Many small files made or removed by several threads at once. Creating or unlinking a small
/// file costs far more than formatting it (mostly the kernel's inode allocation and discards,
/// docs/PERFORMANCE.md), and that work proceeds in parallel across folders.
enum FileFanOut {
    /// Two ways per core: the work waits on the kernel more than on a core.
    static var ways: Int { Concurrency.parts(perCore: 2) }

    /// `body` over `count` items split into `ways` contiguous ranges on as many threads; the
    /// first error, in range order, is rethrown after every range has ended.
    static func forEachRange(
        _ count: Int, ways: Int = FileFanOut.ways,
        _ body: @Sendable (Range<Int>) throws -> Void
    ) throws {
        let k = max(1, min(ways, count))
        let errors = Mutex<[Int: any Error]>([:])
        DispatchQueue.concurrentPerform(iterations: k) { c in
            do { try body((count * c / k)..<(count * (c + 1) / k)) } catch {
                errors.withLock { $0[c] = error }
            }
        }
        if let first = errors.withLock({ $0.min { $0.key < $1.key }?.value }) { throw first }
    }
}
