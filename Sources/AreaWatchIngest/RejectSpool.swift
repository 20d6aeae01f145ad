import AreaWatchCore
import CAreaWatchSystem
import Glibc

/// The rejects of the file being ingested, held until they are committed with its records (the
/// store's `rejects` table, written in the file's transaction: docs/SCHEMA.md). Up to 1 MiB is
/// kept in memory; beyond that rows go to an unnamed temporary file in `folder`
/// (`aw_open_unnamed_file`), so a file of millions of rejects costs no memory and a killed ingest
/// leaves nothing behind. Rows are length-prefixed: any text, of any length, reads back as written.
public final class RejectSpool: RejectRecorder {
    public struct Row: Sendable, Equatable {
        public var record: String
        public var id: String?
        public var reason: RejectReason
        public var excerpt: String
    }

    static let memoryLimit = 1 << 20
    private let folder: String
    private var fd: Int32 = -1
    /// Bytes of rows in the temporary file; the later rows are in `buffer`.
    private var spilled: Int64 = 0
    private var buffer: [UInt8] = []
    public private(set) var count = 0

    public init(folder: String) {
        self.folder = folder
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// `source` is the file being read: the same for every row, so not kept.
    public func add(source: String, record: String, id: String?, reason: RejectReason, excerpt: String) throws {
        appendText(record)
        buffer.append(id == nil ? 0 : 1)
        if let id { appendText(id) }
        buffer.append(UInt8(RejectReason.allCases.firstIndex(of: reason)!))
        appendText(excerpt)
        count += 1
        if buffer.count >= RejectSpool.memoryLimit { try spill() }
    }

    /// Forgets every row (the next file starts).
    public func removeAll() {
        buffer.removeAll(keepingCapacity: true)
        if fd >= 0 { _ = ftruncate(fd, 0) }
        spilled = 0
        count = 0
    }

    /// Every row, in the order added.
    public func forEach(_ body: (Row) throws -> Void) throws {
        var reader = Reader(fd: fd, fileBytes: spilled, tail: buffer)
        for _ in 0..<count {
            let record = try reader.text()
            let id = try reader.byte() == 0 ? nil : try reader.text()
            let reasonIndex = Int(try reader.byte())
            guard reasonIndex < RejectReason.allCases.count else { throw reader.damaged() }
            let excerpt = try reader.text()
            try body(Row(record: record, id: id, reason: RejectReason.allCases[reasonIndex], excerpt: excerpt))
        }
    }

    private func appendText(_ text: String) {
        var copy = text
        copy.withUTF8 { bytes in
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: bytes)
        }
    }

    private func spill() throws {
        if fd < 0 { fd = try RejectSpool.temporaryFile(in: folder) }
        try buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = pwrite(fd, raw.baseAddress! + offset, raw.count - offset, off_t(spilled) + off_t(offset))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw RejectSpool.failure(folder, "cannot write") }
                offset += n
            }
        }
        spilled += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// A file without a name in `folder`: nothing to clean up after any crash.
    static func temporaryFile(in folder: String) throws -> Int32 {
        let fd = aw_open_unnamed_file(folder)
        guard fd >= 0 else { throw failure(folder, "cannot create a temporary file for rejects") }
        return fd
    }

    static func failure(_ folder: String, _ action: String) -> InputError {
        InputError(file: folder, message: "\(action): \(String(cString: strerror(errno)))")
    }

    /// Reads rows back: the temporary file's bytes in chunks, then the in-memory tail.
    private struct Reader {
        let fd: Int32
        let fileBytes: Int64
        let tail: [UInt8]
        private var window: [UInt8] = []
        private var position = 0
        private var fileOffset: Int64 = 0
        private var tailRead = false

        init(fd: Int32, fileBytes: Int64, tail: [UInt8]) {
            self.fd = fd
            self.fileBytes = fileBytes
            self.tail = tail
        }

        func damaged() -> InputError {
            InputError(file: "rejects", message: "the rejects held for this file could not be read back")
        }

        /// Makes at least `n` unread bytes available.
        private mutating func need(_ n: Int) throws {
            while window.count - position < n {
                if position > 0 {
                    window.removeFirst(position)
                    position = 0
                }
                if fileOffset < fileBytes {
                    let want = Int(min(fileBytes - fileOffset, Int64(max(n, 1 << 20))))
                    let start = window.count
                    window.append(contentsOf: repeatElement(0, count: want))
                    let got = window.withUnsafeMutableBytes { raw in
                        pread(fd, raw.baseAddress! + start, want, off_t(fileOffset))
                    }
                    guard got > 0 else { throw damaged() }
                    window.removeLast(want - got)
                    fileOffset += Int64(got)
                } else if !tailRead {
                    window.append(contentsOf: tail)
                    tailRead = true
                } else {
                    throw damaged()
                }
            }
        }

        mutating func byte() throws -> UInt8 {
            try need(1)
            defer { position += 1 }
            return window[position]
        }

        mutating func text() throws -> String {
            try need(4)
            var length = 0
            for k in 0..<4 { length |= Int(window[position + k]) << (8 * k) }
            position += 4
            try need(length)
            defer { position += length }
            return String(decoding: window[position..<(position + length)], as: UTF8.self)
        }
    }
}
