import AreaWatchCore
import CZlib
import Glibc

/// The bytes of one input file, decompressed on the fly when it is gzip (a `.gz` name, or gzip's
/// magic bytes at the start). Reads in chunks: memory does not depend on the file's size.
public final class ByteSource {
    public let path: String
    public let isCompressed: Bool
    /// Size of the file on disk.
    public let fileSize: Int64
    /// Bytes of the file read so far (compressed bytes for gzip), for progress.
    public private(set) var fileBytesRead: Int64 = 0
    /// Content bytes (decompressed for gzip) handed out so far.
    public private(set) var contentBytesRead: Int64 = 0

    /// The open file, or -1 for an in-memory source.
    private let fd: Int32
    private let memory: [UInt8]
    private var memoryOffset = 0
    /// Most bytes one read of an in-memory source returns (short reads, as pipes and slow disks
    /// give them).
    private let readLimit: Int
    private var inflater: Inflater?
    /// Read after `memory` is used up: the rest of a file whose beginning is in `memory`.
    private let continuation: ByteSource?

    public convenience init(path: String) throws(InputError) {
        try self.init(path: path, decompress: true)
    }

    /// The file's bytes exactly as stored, never decompressed (for digests).
    public convenience init(rawPath path: String) throws(InputError) {
        try self.init(path: path, decompress: false)
    }

    private init(path: String, decompress: Bool) throws(InputError) {
        self.path = path
        // Non-blocking, so that opening a FIFO (or a terminal) cannot wait forever for a writer;
        // only regular files are read, with blocking reads again.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw InputError(file: path, message: ByteSource.reason(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let e = errno
            close(fd)
            throw InputError(file: path, message: ByteSource.reason(e))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "is not a regular file"
            throw InputError(file: path, message: "\(kind), not a CSV or JSON file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.fd = fd
        continuation = nil
        memory = []
        readLimit = .max
        fileSize = Int64(info.st_size)
        var magic: (UInt8, UInt8) = (0, 0)
        let got = withUnsafeMutableBytes(of: &magic) { pread(fd, $0.baseAddress, 2, 0) }
        let gzipMagic = got == 2 && magic.0 == 0x1F && magic.1 == 0x8B
        isCompressed = decompress && (gzipMagic || path.hasSuffix(".gz"))
        if isCompressed {
            do {
                inflater = try Inflater()
            } catch {
                close(fd)
                throw InputError(file: path, message: "cannot start gzip decompression")
            }
        }
    }

    /// Bytes already in memory, read as if they were the file `name` (fuzzing, tests); each read
    /// returns at most `readLimit` bytes. `gzipGraceBytes` lets tests reach the expansion limit
    /// with small inputs.
    public init(
        bytes: [UInt8], name: String, decompress: Bool = true, readLimit: Int = .max,
        gzipGraceBytes: Int64 = GzipExpansion.graceBytes
    ) {
        path = name
        fd = -1
        continuation = nil
        memory = bytes
        self.readLimit = max(1, readLimit)
        fileSize = Int64(bytes.count)
        isCompressed =
            decompress && ((bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B) || name.hasSuffix(".gz"))
        if isCompressed { inflater = try? Inflater(graceBytes: gzipGraceBytes) }
    }

    /// `prefix` (content already read and decompressed), then the rest of `source`: a reader can
    /// go back to streaming a file from a position another reader had reached.
    init(prefix: [UInt8], then source: ByteSource) {
        path = source.path
        fd = -1
        memory = prefix
        readLimit = .max
        continuation = source
        fileSize = source.fileSize
        isCompressed = source.isCompressed
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Fills up to `capacity` bytes of decompressed content; 0 at the end of the content.
    public func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(InputError) -> Int {
        let n = try readContent(into: buffer, capacity: capacity)
        contentBytesRead += Int64(n)
        return n
    }

    /// The file bytes that hold the first `contentOffset` bytes of content, for progress: the
    /// offset itself for a plain file; for gzip, estimated from the expansion so far (never
    /// more than the compressed bytes read). At most the file's size.
    public func fileBytes(coveringContent contentOffset: Int64) -> Int64 {
        guard isCompressed else { return min(max(0, contentOffset), fileSize) }
        guard contentBytesRead > 0 else { return 0 }
        let share = min(1, max(0, Double(contentOffset) / Double(contentBytesRead)))
        return min(fileSize, Int64(share * Double(fileBytesRead)))
    }

    private func readContent(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(InputError) -> Int {
        if let continuation {
            let n =
                memoryOffset < memory.count
                ? try readRaw(into: buffer, capacity: capacity)
                : try continuation.read(into: buffer, capacity: capacity)
            fileBytesRead = continuation.fileBytesRead
            return n
        }
        guard let inflater else { return try readRaw(into: buffer, capacity: capacity) }
        return try inflater.inflate(into: buffer, capacity: capacity, path: path) { [self] raw, n throws(InputError) in
            try readRaw(into: raw, capacity: n)
        }
    }

    private func readRaw(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(InputError) -> Int {
        if fd < 0 {
            let n = min(capacity, readLimit, memory.count - memoryOffset)
            if n > 0 {
                memory.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + memoryOffset, count: n) }
            }
            memoryOffset += n
            fileBytesRead += Int64(n)
            return n
        }
        while true {
            let n = Glibc.read(fd, buffer, capacity)
            if n >= 0 {
                fileBytesRead += Int64(n)
                return n
            }
            if errno == EINTR { continue }
            throw InputError(file: path, position: "byte \(fileBytesRead)", message: ByteSource.reason(errno))
        }
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES, EPERM: return "permission denied (unreadable file)"
        case EISDIR: return "is a directory, not a CSV or JSON file"
        default: return String(cString: strerror(code))
        }
    }
}

/// How far gzip input may expand (docs/RELIABILITY.md, "decompression bombs").
public enum GzipExpansion {
    /// Most decompressed bytes per compressed byte consumed. Deflate cannot exceed about 1032:1
    /// (a run of one byte); exports compress 5–20×, and even a file of one repeated row stays
    /// in the low hundreds, so only a crafted stream of near-maximal runs passes 1000.
    public static let maxRatio: Int64 = 1000
    /// Output allowed before the ratio is enforced: a small file may be a single run (a 40 MiB
    /// line of one byte is a few kB of gzip) and is cheap to read whole.
    public static let graceBytes: Int64 = 64 << 20
}

/// zlib inflate state for gzip input (one or more concatenated members).
private final class Inflater {
    private var stream = z_stream()
    private let inputCapacity = 1 << 18
    /// Compressed bytes read, consumed by zlib through `next_in`. Refilled only once empty and
    /// never beyond its first capacity, so it never moves under zlib's pointer.
    private var input: GrowableBuffer<UInt8>
    private var inputEnded = false
    private var memberEnded = false
    /// Compressed bytes consumed and decompressed bytes produced, over all members.
    private var compressedOffset: Int64 = 0
    private var decompressedOffset: Int64 = 0
    private let graceBytes: Int64

    init(graceBytes: Int64 = GzipExpansion.graceBytes) throws {
        self.graceBytes = graceBytes
        input = GrowableBuffer(capacity: inputCapacity)
        // 15 window bits + 16: gzip wrapper only (a `.gz` holding zlib or raw deflate is not gzip).
        let status = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw InputError(file: "", message: "zlib init failed")
        }
    }

    deinit {
        inflateEnd(&stream)
    }

    func inflate(
        into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, path: String,
        readRaw: (UnsafeMutablePointer<UInt8>, Int) throws(InputError) -> Int
    ) throws(InputError) -> Int {
        while true {
            if stream.avail_in == 0 && !inputEnded {
                input.removeAll()
                try input.appendUninitialized(maxCount: inputCapacity) { room throws(InputError) in
                    try readRaw(room.baseAddress!, room.count)
                }
                if input.isEmpty { inputEnded = true }
                stream.next_in = input.unsafeBaseAddress
                stream.avail_in = uInt(input.count)
            }
            if memberEnded {
                // Either another gzip member follows or the content is complete.
                if stream.avail_in == 0 {
                    if inputEnded { return 0 }
                    continue
                }
                inflateReset(&stream)
                memberEnded = false
            }
            if stream.avail_in == 0 && inputEnded {
                throw InputError(
                    file: path, position: "byte \(compressedOffset)",
                    message: "truncated gzip data (the file ends inside the compressed stream)")
            }
            stream.next_out = buffer
            stream.avail_out = uInt(capacity)
            let before = Int64(stream.avail_in)
            let result = CZlib.inflate(&stream, Z_NO_FLUSH)
            compressedOffset += before - Int64(stream.avail_in)
            switch result {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                memberEnded = true
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "corrupt data"
                throw InputError(
                    file: path, position: "byte \(compressedOffset)",
                    message: "not valid gzip data (\(detail))")
            }
            let produced = capacity - Int(stream.avail_out)
            decompressedOffset += Int64(produced)
            // A bomb is refused once it shows itself, before its cost grows with its output.
            if decompressedOffset > graceBytes && decompressedOffset > GzipExpansion.maxRatio * compressedOffset {
                throw InputError(
                    file: path, position: "decompressed byte \(decompressedOffset)",
                    message: "gzip data expands more than \(GzipExpansion.maxRatio) times "
                        + "(\(decompressedOffset) bytes from \(compressedOffset) compressed): refused as a decompression bomb"
                )
            }
            if produced > 0 { return produced }
        }
    }
}
