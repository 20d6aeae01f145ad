import AreaWatchCore
import CZlib
import Glibc

/// The column snapshot beside a store, `<store>.columns` (docs/FORMATS.md): read in one go and
/// used only when intact and stamped with the store's current state; written whole to a
/// temporary file and renamed over the old one.
///
/// Not synced to disk: after a power cut the file may be empty or torn, which its length and
/// checksum reveal, and the store (which is synced) rebuilds it. A snapshot is never the only
/// copy of anything.
public enum ColumnSnapshotFile {
    /// What reading found.
    public enum Outcome: Sendable {
        case valid(ColumnSnapshot)
        case missing
        /// Present but not usable: stale, damaged, from another store or another version.
        case invalid(String)
    }

    public static func path(forStore store: String) -> String { store + ".columns" }

    /// zlib's CRC-32 (the library is already linked for gzip), several times cheaper than SHA-256
    /// over the whole snapshot. The checksum guards against damage, not forgery (whoever can
    /// write the snapshot can write the store beside it), so a cryptographic hash buys nothing.
    public static let crc32: ColumnSnapshotFormat.Checksum = { running, bytes in
        bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return running }
            return UInt32(CZlib.crc32_z(UInt(running), base.assumingMemoryBound(to: UInt8.self), bytes.count))
        }
    }

    /// Reads the snapshot at `path` if its stamp is `stamp`. Reads the header first, so a stale
    /// snapshot costs 128 bytes, not the whole file. Never throws: every problem is `.invalid`.
    public static func read(path: String, expecting stamp: StoreStamp) -> Outcome {
        // O_NONBLOCK: a FIFO in its place must not block the open; only regular files are read.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            return errno == ENOENT ? .missing : .invalid("cannot open (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .invalid("not a regular file") }
        let size = Int(info.st_size)
        var head = [UInt8](repeating: 0, count: ColumnSnapshotFormat.headerSize)
        var headBytes = head.mutableSpan
        var headRaw = headBytes.mutableBytes
        guard readFully(fd, into: &headRaw, at: 0) else {
            return .invalid("shorter than its header (\(size) bytes)")
        }
        let header: ColumnSnapshotFormat.Header
        do {
            header = try ColumnSnapshotFormat.header(head.span.bytes)
        } catch {
            return .invalid("\(error)")
        }
        guard header.stamp == stamp else {
            return .invalid("stale: taken at \(header.stamp), the store is at \(stamp)")
        }
        // Rowids are distinct and at most the last one: more rows than that is no snapshot of
        // this store (and would have it allocate for them).
        guard header.rows <= max(stamp.lastIncidentRowid, 0) else {
            return .invalid("\(header.rows) rows, more than the store's last rowid \(stamp.lastIncidentRowid)")
        }
        guard header.fileLength == size else {
            return .invalid("\(size) bytes where the header says \(header.fileLength) (truncated or extended)")
        }
        do {
            // Each column is read straight into its array: no buffer of the whole file.
            let snapshot = try ColumnSnapshotFormat.decode(size: size, checksum: crc32) { offset, out in
                readFully(fd, into: &out, at: offset)
            }
            return .valid(snapshot)
        } catch {
            return .invalid("\(error)")
        }
    }

    /// `pread` until `out` is full; false at an early end of file or an error.
    private static func readFully(_ fd: Int32, into out: inout MutableRawSpan, at offset: Int) -> Bool {
        out.withUnsafeMutableBytes { out in
            var done = 0
            while done < out.count {
                let n = pread(fd, out.baseAddress! + done, out.count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// Writes `snapshot` to `path` atomically (temporary file, then rename). Only a process
    /// holding the store's lock writes, so temporary files left by a killed one are removed.
    /// Throws a description of the failure (a read-only folder, a full disk); the caller goes on
    /// without a snapshot.
    public static func write(_ snapshot: ColumnSnapshot, to path: String) throws(SnapshotWriteError) {
        removeLeftovers(of: path)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SnapshotWriteError(path: temporary, errno: errno) }
        var failure: Int32 = 0
        // The columns are written from their arrays, piece by piece: no copy of the file.
        ColumnSnapshotFormat.forEachPiece(snapshot, checksum: crc32) { piece in
            guard failure == 0 && piece.byteCount > 0 else { return }
            piece.withUnsafeBytes { piece in
                var done = 0
                while done < piece.count {
                    let n = Glibc.write(fd, piece.baseAddress! + done, piece.count - done)
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 {
                        failure = n < 0 ? errno : ENOSPC
                        break
                    }
                    done += n
                }
            }
        }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw SnapshotWriteError(path: path, errno: failure)
        }
    }

    /// Removes the snapshot (a store that no snapshot can follow).
    public static func remove(path: String) {
        unlink(path)
    }

    /// `<snapshot>.tmp-<pid>` files of earlier, killed writers.
    public static func removeLeftovers(of path: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".tmp-"
        for name in DirectoryListing.names(of: folder) {
            if name.hasPrefix(prefix), name.dropFirst(prefix.count).allSatisfy(\.isNumber) {
                unlink((folder.hasSuffix("/") ? folder : folder + "/") + name)
            }
        }
    }
}

/// A snapshot that could not be written (reported as a note; the store is unaffected).
public struct SnapshotWriteError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public var description: String { "\(path): \(String(cString: strerror(errno)))" }
}
