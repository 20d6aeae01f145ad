import AreaWatchCore
import AreaWatchFormats
import AreaWatchQuery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// grid.pmtiles (SPEC §14, docs/FORMATS.md): the widget tiles of SPEC §8 as vector tiles in one
/// PMTiles v3 archive. Built from the same `WidgetTiles.build` tiles as the JSON tiles, so every
/// cell has the JSON tile's values; `VectorTileCut` puts each cell, clipped, in every tile whose
/// buffered extent it overlaps.
enum GridArchive {
    /// Writes the archive to `path` (inside the report's work folder, which is published whole)
    /// and returns its size in bytes.
    @discardableResult
    static func write(
        _ tiles: [WidgetTiles.Tile], grid: GridResult, zooms: ClosedRange<Int>, disclosure: Disclosure,
        attribution: String, dataBounds: TileSetMeta.DataBounds = .unknown, version: String,
        to path: String
    ) throws -> Int64 {
        let bytes = archive(
            tiles, grid: grid, zooms: zooms, disclosure: disclosure, attribution: attribution,
            dataBounds: dataBounds, version: version)
        let file = try BufferedFile(path: path)
        try file.write(bytes)
        try file.finish()
        return file.bytesWritten
    }

    /// The archive's bytes: a function of the tiles and parameters alone (deterministic).
    static func archive(
        _ tiles: [WidgetTiles.Tile], grid: GridResult, zooms: ClosedRange<Int>, disclosure: Disclosure,
        attribution: String, dataBounds: TileSetMeta.DataBounds = .unknown, version: String,
        parts: Int = archiveParts
    ) -> [UInt8] {
        var builder = PMTiles.Builder()
        // Tile ids ascend with the zoom, and within a zoom along the Hilbert curve.
        let ordered = VectorTileCut.cut(tiles)
            .map { (id: PMTiles.tileID(z: $0.id.z, x: $0.id.x, y: $0.id.y)!, tile: $0) }
            .sorted { $0.id < $1.id }
        // Encoded and compressed in parts of about equal cells, on every core that is free: alone
        // on one thread it would end the report stage while the other cores idle.
        // Each tile is compressed on its own, so the bytes do not depend on the parts.
        let bounds = partBounds(cellCounts: ordered.map { $0.tile.pieces.count }, parts: parts)
        let compressed = Concurrency.map(bounds.count - 1) { part in
            let compressor = GzipCompressor()
            var encoder = CellLayerEncoder()
            encoder.cellKey = grid.system.cellColumn
            return ordered[bounds[part]..<bounds[part + 1]].map { entry in
                compressor.compress(encoder.encode(pieces: entry.tile.pieces, disclosure: disclosure))
            }
        }
        for (id, data) in zip(ordered.lazy.map(\.id), compressed.joined()) { builder.add(tileID: id, data: data) }
        let box = WidgetTiles.bounds(grid)
        var header = PMTiles.Header()
        header.minZoom = UInt8(zooms.lowerBound)
        header.maxZoom = UInt8(zooms.upperBound)
        header.minLonE7 = PMTiles.Header.e7(box.minLon)
        header.minLatE7 = PMTiles.Header.e7(box.minLat)
        header.maxLonE7 = PMTiles.Header.e7(box.maxLon)
        header.maxLatE7 = PMTiles.Header.e7(box.maxLat)
        header.centerZoom = UInt8(zooms.lowerBound)
        header.centerLonE7 = PMTiles.Header.e7((box.minLon + box.maxLon) / 2)
        header.centerLatE7 = PMTiles.Header.e7((box.minLat + box.maxLat) / 2)
        let meta = Array(
            metadata(
                grid, zooms: zooms, disclosure: disclosure, attribution: attribution,
                dataBounds: dataBounds, version: version
            ).serialized().utf8)
        return builder.archive(metadata: meta, header: header, compressor: GzipCompressor())
    }

    /// Parts the archive's tiles are encoded in: several per core, so the cores that free up first
    /// take more of them.
    static var archiveParts: Int { Concurrency.parts(perCore: 8) }

    /// `parts` + 1 ascending indices cutting `cellCounts` into runs of about equal sums (fewer
    /// when there are fewer tiles).
    static func partBounds(cellCounts: [Int], parts: Int) -> [Int] {
        let total = max(1, cellCounts.reduce(0, +))
        var bounds = [0]
        var sum = 0
        for (k, count) in cellCounts.enumerated() {
            sum += count
            if sum * parts >= total * bounds.count && bounds.count < parts && k + 1 < cellCounts.count {
                bounds.append(k + 1)
            }
        }
        bounds.append(cellCounts.count)
        return bounds
    }

    /// The archive's JSON metadata: TileJSON-style `vector_layers` plus what a widget needs to
    /// answer a location from the archive alone (as the TileJSON's `areawatch` member).
    static func metadata(
        _ grid: GridResult, zooms: ClosedRange<Int>, disclosure: Disclosure, attribution: String,
        dataBounds: TileSetMeta.DataBounds = .unknown, version: String
    ) -> JSONValue {
        let p = grid.parameters
        return .object([
            ("name", .string(WidgetTiles.name)),
            ("description", .string(WidgetTiles.description(p, grid: grid.system))),
            ("attribution", .string(attribution)),
            ("version", .string(version)),
            ("type", .string("overlay")),
            ("format", .string("pbf")),
            ("as_of", .string(UTCTime.iso8601(p.asOf))),
            ("vector_layers", WidgetTiles.vectorLayers(zooms: zooms, grid: grid.system)),
            (
                "areawatch",
                .object(
                    [
                        Summary.gridParameter(grid),
                        ("radius_m", .number(p.radius)),
                        ("thresholds", .array([.number(p.thresholds.medium), .number(p.thresholds.dangerous)])),
                        ("min_cell_count", .int(disclosure.minCellCount))
                    ] + WidgetTiles.dataBoundsMember(dataBounds))
            )
        ])
    }
}

/// Timing of grid.pmtiles alone (for `make bench`: the archive's share of the report stage).
public enum GridArchiveTiming {
    /// Builds the tiles and the archive of `grid` for `zooms` in memory; returns the wall and CPU
    /// seconds of this thread (CPU time is what a loaded machine does not distort) and the size.
    public static func measure(_ grid: GridResult, zooms: ClosedRange<Int>) -> (wall: Double, cpu: Double, bytes: Int) {
        let wall0 = now(CLOCK_MONOTONIC), cpu0 = now(CLOCK_THREAD_CPUTIME_ID)
        let tiles = WidgetTiles.build(grid, changes: grid.changeSignificance().map { $0 }, zooms: zooms)
        let bytes = GridArchive.archive(
            tiles, grid: grid, zooms: zooms, disclosure: Disclosure(), attribution: "areawatch benchmark",
            version: WidgetTiles.version(tiles, disclosure: Disclosure()))
        return (now(CLOCK_MONOTONIC) - wall0, now(CLOCK_THREAD_CPUTIME_ID) - cpu0, bytes.count)
    }

    /// CPU seconds of the whole process (every thread) so far.
    public static func processCPU() -> Double { now(CLOCK_PROCESS_CPUTIME_ID) }

    private static func now(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
