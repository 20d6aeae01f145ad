import AreaWatchCore
import AreaWatchReport
import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Which report folder generation DIR names: DIR's device and inode, and its marker's inode and
/// modification time. A report published in DIR's place (renamed over it) changes the first two.
public struct FolderIdentity: Sendable, Hashable, CustomStringConvertible {
    var device: UInt64, inode: UInt64, markerInode: UInt64, markerModified: Int64

    /// DIR's identity as the path names it now; nil when DIR or its marker cannot be seen.
    static func current(_ path: String) -> FolderIdentity? {
        var dir = stat(), marker = stat()
        guard stat(path, &dir) == 0, stat(path + "/" + ReportFolder.markerName, &marker) == 0 else { return nil }
        return FolderIdentity(dir, marker)
    }

    init(_ dir: stat, _ marker: stat) {
        device = UInt64(dir.st_dev)
        inode = UInt64(dir.st_ino)
        markerInode = UInt64(marker.st_ino)
        markerModified = Int64(marker.st_mtim.tv_sec) * 1_000_000_000 + Int64(marker.st_mtim.tv_nsec)
    }

    public var description: String { String(format: "%llx-%llx-%llx", inode, markerInode, markerModified) }
}

public struct SnapshotError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String
    public var description: String { "\(path): \(message)" }
}

/// One report folder generation, read whole into memory, never changed afterwards: every
/// request is answered from one snapshot, so never from a mixture of two folders (SPEC §14).
/// Files are kept as `ByteBuffer`s that responses share (a slice, never a copy per request).
public final class ReportSnapshot: Sendable {
    public let identity: FolderIdentity
    /// `identity` as text, the first part of every ETag (formatted once, not per request).
    let generation: String
    /// The widget tiles' parameters; nil when the report was written without tiles.
    public let meta: TileSetMeta?
    public let minZoom: Int
    /// The report's `tiles/tilejson.json` members (sorted by name).
    public let tileJSON: [String: JSONValue]
    /// Every JSON tile's bytes, by z/x/y (slices of one buffer holding them all).
    let jsonTiles: [TileID: ByteBuffer]
    /// The cells of the highest zoom's tiles, for lookups.
    let cells: [TileID: [String: TileCell]]
    public let archive: PMTilesArchive?
    let reportHTML: ByteBuffer?
    let ehsa: ByteBuffer?
    let summary: ByteBuffer?
    /// The map's legend counts, from `cells`.
    let legendCounts: MapLegendCounts

    /// Reads DIR through one open descriptor, so every file comes from the same folder even if
    /// another is renamed into DIR's place meanwhile; `FolderIdentity` then tells the caller whether
    /// that happened (load again) before this snapshot is used.
    public init(folder path: String) throws {
        let dirFD = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else {
            throw SnapshotError(
                path: path, message: "cannot open the report folder: \(String(cString: strerror(errno)))")
        }
        defer { close(dirFD) }
        var dirStat = stat(), markerStat = stat()
        guard fstat(dirFD, &dirStat) == 0, fstatat(dirFD, ReportFolder.markerName, &markerStat, 0) == 0 else {
            throw SnapshotError(
                path: path, message: "not a report folder areawatch wrote (no \(ReportFolder.markerName) marker)")
        }
        identity = FolderIdentity(dirStat, markerStat)
        generation = identity.description
        let folder = FolderFiles(fd: dirFD, path: path)
        reportHTML = try folder.read("report.html")
        ehsa = try folder.read("ehsa.geojson")
        summary = try folder.read("summary.json")
        if let bytes = try folder.read("grid.pmtiles") {
            do {
                archive = try PMTilesArchive(buffer: bytes, path: path + "/grid.pmtiles")
            } catch let e as PMTilesArchive.Failure {
                throw SnapshotError(path: e.path, message: e.message)
            }
        } else {
            archive = nil
        }
        guard let tileJSONBytes = try folder.read("tiles/tilejson.json") else {
            meta = nil
            minZoom = 0
            tileJSON = [:]
            jsonTiles = [:]
            cells = [:]
            legendCounts = MapLegendCounts()
            return
        }
        let tileJSONData = Data(tileJSONBytes.readableBytesView)
        let meta = try TileSetMeta(tileJSON: tileJSONData, path: path + "/tiles/tilejson.json")
        self.meta = meta
        let object = (try? JSONSerialization.jsonObject(with: tileJSONData)) as? [String: Any] ?? [:]
        minZoom = min((object["minzoom"] as? Int) ?? meta.maxZoom, meta.maxZoom)
        tileJSON = object.compactMapValues { JSONValue(foundation: $0) }
        (jsonTiles, cells) = try Self.readTiles(folder, zooms: minZoom...meta.maxZoom, path: path)
        legendCounts = MapLegendCounts(cells: cells)
    }

    /// The JSON tiles, read into one buffer (a tile is a few hundred bytes: one allocation each
    /// would cost more than the tile), and the cells of the highest zoom's tiles.
    private static func readTiles(_ folder: FolderFiles, zooms: ClosedRange<Int>, path: String) throws
        -> ([TileID: ByteBuffer], [TileID: [String: TileCell]])
    {
        var pack = ByteBuffer()
        var places: [(TileID, Range<Int>)] = []
        for z in zooms {
            for xName in folder.names("tiles/\(z)") {
                guard let x = Int(xName), x >= 0, x < 1 << z else { continue }
                for yName in folder.names("tiles/\(z)/\(xName)") where yName.hasSuffix(".json") {
                    guard let y = Int(yName.dropLast(5)), y >= 0, y < 1 << z,
                        let place = try folder.append("tiles/\(z)/\(xName)/\(yName)", to: &pack)
                    else { continue }
                    places.append((TileID(z: z, x: x, y: y), place))
                }
            }
        }
        // Sliced once every tile is in: a slice taken earlier would make each append copy the pack.
        var tiles: [TileID: ByteBuffer] = [:]
        var cells: [TileID: [String: TileCell]] = [:]
        for (tile, place) in places {
            let bytes = pack.getSlice(at: place.lowerBound, length: place.count)!
            tiles[tile] = bytes
            if tile.z == zooms.upperBound {
                cells[tile] = try TileLookup.cells(
                    ofTile: Data(bytes.readableBytesView),
                    path: "\(path)/tiles/\(tile).json")
            }
        }
        return (tiles, cells)
    }

    /// The `lookup` answer for a location, from memory (the same code as `areawatch lookup`).
    public func answer(lat: Double, lon: Double) -> TileAnswer? {
        guard let meta else { return nil }
        return TileLookup.answer(meta: meta, lat: lat, lon: lon) { tile, geohash in cells[tile]?[geohash] }
    }

    public var asOf: String? { meta?.asOf }
}

/// Files of one folder read relative to its open descriptor (`openat`), never through its path.
struct FolderFiles {
    let fd: Int32
    let path: String
    /// A report file larger than this is refused rather than read into memory.
    static let maxFileBytes = 1 << 30

    /// The file's bytes in a buffer of their own; nil when it does not exist.
    func read(_ relative: String) throws -> ByteBuffer? {
        var buffer = ByteBuffer()
        return try append(relative, to: &buffer).map { _ in buffer }
    }

    /// Appends the file's bytes to `buffer`; nil when it does not exist, else where they are.
    func append(_ relative: String, to buffer: inout ByteBuffer) throws -> Range<Int>? {
        let f = openat(fd, relative, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard f >= 0 else {
            if errno == ENOENT { return nil }
            throw SnapshotError(
                path: path + "/" + relative, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(f) }
        var info = stat()
        guard fstat(f, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SnapshotError(path: path + "/" + relative, message: "not a regular file")
        }
        guard Int(info.st_size) <= Self.maxFileBytes else {
            throw SnapshotError(path: path + "/" + relative, message: "larger than \(Self.maxFileBytes) bytes")
        }
        let size = Int(info.st_size), start = buffer.writerIndex
        guard size > 0 else { return start..<start }
        _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out -> Int in
            var done = 0
            while done < size {
                let n = pread(f, out.baseAddress! + done, size - done, off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw SnapshotError(path: path + "/" + relative, message: "read cut short at byte \(done)")
                }
                done += n
            }
            return size
        }
        return start..<start + size
    }

    /// The entry names of a subfolder (empty when absent).
    func names(_ relative: String) -> [String] {
        let sub = openat(fd, relative, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard sub >= 0 else { return [] }
        return DirectoryListing.entries(ofDescriptor: sub)?.map(\.name) ?? []
    }
}
