import CAreaWatchSystem
import Glibc

/// Tables' pages laid into a closed SQLite file that SQLite wrote (`SQLiteTablePages`): each
/// table's root page rewritten, its other pages appended after the file's last page, and the
/// header's page count set to the new end; then the file's writeback is started. Refused unless
/// the file is one this can extend safely: no reserved bytes, no free pages, no auto-vacuum, the
/// header's page count valid and equal to the file's size.
enum SQLiteFilePages {
    static func append(_ tables: [(pages: SQLiteTablePages, root: Int)], toFile path: String) throws {
        guard tables.contains(where: { $0.pages.count > 0 }) else { return }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "cannot open it to write its tables (\(errnoText()))") }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        guard pread(fd, &header, 100, 0) == 100 else { throw failure(path, "cannot read its header") }
        let rawSize = Int(field(header, 16, 2))
        let pageSize = rawSize == 1 ? 65536 : rawSize
        var pageCount = Int(field(header, 28, 4))
        var info = stat()
        guard fstat(fd, &info) == 0, header[20] == 0, field(header, 32, 4) == 0, field(header, 36, 4) == 0,
            field(header, 52, 4) == 0, field(header, 24, 4) == field(header, 92, 4),
            Int(info.st_size) == pageCount * pageSize
        else { throw failure(path, "its layout is not one whose tables can be appended") }
        for (pages, root) in tables {
            precondition(pages.pageSize == pageSize, "records laid out for another page size")
            guard let tree = pages.finish(firstNew: pageCount + 1) else { continue }
            var offset = pageCount * pageSize
            try pages.forEachRunBlock { block in
                try write(block, at: offset, fd: fd, path: path)
                offset += block.count
            }
            try tree.rootPage.withUnsafeBytes { try write($0, at: (root - 1) * pageSize, fd: fd, path: path) }
            pageCount += tree.newPages
        }
        var count = UInt32(pageCount).bigEndian
        try withUnsafeBytes(of: &count) { try write($0, at: 28, fd: fd, path: path) }
        // The file's pages start for the disk now, so that the report's one sync at publication
        // does not wait for all of them.
        _ = aw_start_writeback(fd, 0, 0)
    }

    private static func field(_ header: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        header[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, fd: Int32, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure(path, "cannot write its tables (\(errnoText()))") }
            done += n
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    private static func failure(_ path: String, _ message: String) -> StoreError {
        StoreError(path: path, code: .error, message: message)
    }
}
