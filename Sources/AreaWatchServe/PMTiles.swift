import AreaWatchFormats
import NIOCore

/// A PMTiles version 3 archive read whole from memory with the one PMTiles codec: the header,
/// the root directory and the leaf directories (compressed with the header's internal
/// compression), flattened once at load into one sorted entry list, so a bad archive is refused
/// when the report is loaded, not per request.
public struct PMTilesArchive: Sendable {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let message: String
        public var description: String { "\(path): \(message)" }
    }

    public let header: PMTiles.Header
    /// The JSON metadata, decompressed.
    public let metadata: [UInt8]
    /// The archive's bytes; a tile is served as a slice of them.
    private let buffer: ByteBuffer
    private let entries: [PMTiles.Entry]

    /// Leaf directories nest at most this deep (the reference readers stop at 3 levels; a deeper
    /// chain, or a cycle, is a broken or hostile archive).
    static let maxDepth = 4
    /// A directory or the metadata decompresses to at most this (far above any real archive's).
    static let maxDecompressed = 64 << 20

    public init(bytes: [UInt8], path: String) throws {
        try self.init(buffer: ByteBuffer(bytes: bytes), path: path)
    }

    public init(buffer: ByteBuffer, path: String) throws {
        // A slice starts at index 0, so the view's indices are the file's offsets.
        self.buffer = buffer.slice()
        let bytes = self.buffer.readableBytesView
        let fail = { (message: String) in Failure(path: path, message: message) }
        let h: PMTiles.Header
        do { h = try PMTiles.Header(decoding: bytes) } catch { throw fail(error.message) }
        header = h
        for (name, offset, length) in [
            ("root directory", h.rootOffset, h.rootLength),
            ("metadata", h.metadataOffset, h.metadataLength),
            ("leaf directories", h.leafOffset, h.leafLength),
            ("tile data", h.tileDataOffset, h.tileDataLength)
        ] {
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else {
                throw fail("\(name): bytes \(offset)+\(length) are beyond the end of the file (\(bytes.count) bytes)")
            }
        }
        let packing = h.internalCompression
        guard packing == PMTiles.Compression.none.rawValue || packing == PMTiles.Compression.gzip.rawValue else {
            throw fail("internal compression \(packing) is not supported (none or gzip)")
        }
        let sections = Sections(bytes: bytes, packing: packing, fail: fail)
        metadata = try sections.read(h.metadataOffset, h.metadataLength, "metadata")
        var walk = DirectoryWalk(header: h, sections: sections, fail: fail)
        try walk.visit(h.rootOffset, h.rootLength, depth: 0, what: "root directory")
        entries = walk.flat
    }

    /// The archive's sections, decompressed as the header says.
    private struct Sections {
        let bytes: ByteBufferView
        let packing: UInt8
        let fail: (String) -> Failure

        func read(_ offset: UInt64, _ length: UInt64, _ what: String) throws -> [UInt8] {
            let raw = bytes[Int(offset)..<Int(offset + length)]
            if raw.isEmpty { return [] }
            if packing == PMTiles.Compression.none.rawValue { return Array(raw) }
            do { return try Gzip.inflate(raw, limit: PMTilesArchive.maxDecompressed) } catch {
                throw fail("\(what) at byte \(offset): \(error.message)")
            }
        }
    }

    /// The root directory and its leaves flattened into one list of tile runs, checked as they
    /// are read: runs inside the tile data, ascending and not overlapping, leaves inside the leaf
    /// section and nested at most `maxDepth` deep.
    private struct DirectoryWalk {
        let header: PMTiles.Header
        let sections: Sections
        let fail: (String) -> Failure
        var flat: [PMTiles.Entry] = []

        mutating func visit(_ offset: UInt64, _ length: UInt64, depth: Int, what: String) throws {
            let h = header
            guard depth <= PMTilesArchive.maxDepth else {
                throw fail("leaf directories nested deeper than \(PMTilesArchive.maxDepth) levels")
            }
            let entries: [PMTiles.Entry]
            do { entries = try PMTiles.decodeDirectory(try sections.read(offset, length, what)) } catch let e
                as PMTiles.DirectoryError
            {
                throw fail("\(what) at byte \(offset): \(e.message)")
            }
            for e in entries {
                if e.runLength > 0 {
                    guard e.offset <= h.tileDataLength, e.length <= h.tileDataLength - e.offset else {
                        throw fail("tile \(e.tileID) (bytes \(e.offset)+\(e.length)) lies beyond the tile data")
                    }
                    if let last = flat.last, last.tileID &+ last.runLength > e.tileID {
                        throw fail("tile \(e.tileID) out of order or overlapping in \(what) at byte \(offset)")
                    }
                    flat.append(e)
                } else {
                    guard e.offset <= h.leafLength, e.length <= h.leafLength - e.offset else {
                        throw fail("leaf directory (bytes \(e.offset)+\(e.length)) lies beyond the leaf directories")
                    }
                    try visit(h.leafOffset + e.offset, e.length, depth: depth + 1, what: "leaf directory")
                }
            }
        }
    }

    /// The tile's stored bytes (compressed as `header.tileCompression` says), nil when absent.
    public func tile(z: Int, x: Int, y: Int) -> ByteBufferView? {
        guard let id = PMTiles.tileID(z: z, x: x, y: y) else { return nil }
        // The last entry whose first tile ID is ≤ id, then whether id falls in its run.
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].tileID <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let e = entries[low - 1]
        guard id - e.tileID < e.runLength else { return nil }
        let start = Int(header.tileDataOffset + e.offset)
        return buffer.readableBytesView[start..<start + Int(e.length)]
    }
}
