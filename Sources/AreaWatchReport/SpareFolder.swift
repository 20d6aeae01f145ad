import CAreaWatchSystem
import Glibc
import Synchronization

/// The folder a replaced report leaves beside the final name (`.NAME.spare`), taken as the next
/// report's work folder. A file both reports have is written over in place and cut to its new
/// length (`BufferedFile`), so the run allocates no inode and frees no block for it. Why: on ext4
/// without a journal every new inode costs a scan past each inode freed in the last minutes
/// (`recently_deleted`), and re-running a report spent more time creating its ~1,300 tile files
/// than computing the grid (docs/PERFORMANCE.md). Whatever the new report does not write is
/// removed before it is published, so the folder published is exactly what a fresh one would be.
final class SpareFolder: Sendable {
    /// Plain files (one link each) found when the spare was taken, relative to the work folder;
    /// the marker is not among them (it is always rewritten).
    private let files: [String]
    /// Folders found when the spare was taken, each after its parent.
    private let folders: [String]
    private let written = Mutex<Set<String>>([])

    private init(files: [String], folders: [String]) {
        self.files = files
        self.folders = folders
    }

    static func path(parent: String, name: String) -> String {
        parent + "/." + name + ".spare"
    }

    /// Renames the spare to `work` when it is one areawatch left — a folder, not a link, holding
    /// the marker and nothing but what a report writes (`ReportFolder.isReportFile`) — and lists
    /// it. A spare holding anything else (the user's files, a store) is not taken: it is left
    /// where it is, untouched. Anything in it that must not be written through is unlinked: a
    /// symbolic link, or a file with other links (a backup made with hard links would otherwise
    /// see its copy change); under a report file's name, so no data goes with it. Nil when there
    /// is no spare to take; throws when one was taken but could not be made safe (the caller
    /// then starts from an empty folder).
    static func take(_ spare: String, as work: String) throws -> SpareFolder? {
        var info = stat()
        guard lstat(spare, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR,
            lstat(spare + "/" + ReportFolder.markerName, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
            ReportFolder.isReportWork(spare), rename(spare, work) == 0
        else { return nil }
        // What was renamed must still be that folder (not a link put there in between).
        guard lstat(work, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            unlink(work)
            return nil
        }
        let (folders, others) = AtomicDirectory.tree(work)
        if ReportFolder.firstForeignEntry(folders: folders, others: others) != nil {
            // Something was put into the spare between the check and the rename: given back.
            if aw_rename_noreplace(work, spare) != 0 {
                throw ReportError(path: work, message: "the spare report folder changed while it was taken; left here")
            }
            return nil
        }
        // The marker first, so that the folder is never without one for longer than a write.
        try keepMarkerSafe(in: work)
        var files: [String] = []
        for child in others where child != ReportFolder.markerName {
            let full = work + "/" + child
            var entry = stat()
            if lstat(full, &entry) == 0, (entry.st_mode & S_IFMT) == S_IFREG, entry.st_nlink == 1 {
                files.append(child)
            } else if unlink(full) != 0 && errno != ENOENT {
                throw ReportError.errno(full, "cannot remove from the spare report folder")
            }
        }
        return SpareFolder(files: files, folders: folders)
    }

    /// A marker with other links (or not a plain file) is replaced by a new one, not written
    /// through (the work folder's marker is written over right after).
    private static func keepMarkerSafe(in work: String) throws {
        let marker = work + "/" + ReportFolder.markerName
        var entry = stat()
        guard lstat(marker, &entry) != 0 || (entry.st_mode & S_IFMT) != S_IFREG || entry.st_nlink != 1 else { return }
        guard unlink(marker) == 0 || errno == ENOENT else { throw ReportError.errno(marker, "cannot remove") }
        try ReportFolder.writeMarker(into: work)
    }

    /// Records a file or folder (relative to the work folder) the new report writes.
    func noteWritten(_ relative: String) {
        _ = written.withLock { $0.insert(relative) }
    }

    /// Removes what the new report did not write: its files, then its folders, deepest first.
    func removeUnwritten(in work: String) throws {
        let written = self.written.withLock { $0 }
        var kept = Set<Substring>()
        for path in written {
            var prefix = Substring(path)
            while kept.insert(prefix).inserted, let slash = prefix.lastIndex(of: "/") { prefix = prefix[..<slash] }
        }
        for file in files where !written.contains(file) {
            guard unlink(work + "/" + file) == 0 || errno == ENOENT else {
                throw ReportError.errno(work + "/" + file, "cannot remove")
            }
        }
        for folder in folders.reversed() where !kept.contains(Substring(folder)) {
            guard rmdir(work + "/" + folder) == 0 else { throw ReportError.errno(work + "/" + folder, "cannot remove") }
        }
    }
}
