import AreaWatchStore
import Glibc

/// The run lock of a store (SPEC §9): `flock` on `<store>.lock`, taken without waiting, so a
/// second writer exits at once with status 4. The kernel drops it when the process dies, so a
/// killed run never leaves a stale lock behind.
public final class StoreLock {
    private let fd: Int32
    public let path: String

    public init(storePath: String) throws {
        path = storePath + ".lock"
        IncidentStore.makeParentFolders(of: path)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw JobError(.inputOrStore, "\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(fd)
            throw JobError(
                busy ? .locked : .inputOrStore,
                busy
                    ? "\(storePath): another areawatch run or ingest is using this store (lock \(path) is held)"
                    : "\(path): cannot lock: \(String(cString: strerror(errno)))")
        }
        // Who holds it, for a human looking at the file.
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { write(fd, $0, strlen($0)) }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
