import AreaWatchCore
import AreaWatchQuery
import Synchronization

/// The widget tiles (SPEC §8): `tiles/{z}/{x}/{y}.json`, XYZ (OSM scheme), plus `tilejson.json`.
/// See docs/FORMATS.md for the exact layout.
public enum WidgetTiles {
    /// One cell as a tile carries it: its worst spot when merged.
    struct Entry: Sendable {
        /// The cell (a merged cell's parent) in its tile's grid system.
        var id: GridCellID
        var system: GridSystem
        /// The cell's id text: the tile's key for it (a geohash, or an H3 index's 15 digits).
        var key: String
        var rCurrent: Int
        var rPrevious: Int
        var safetyClass: SafetyClass
        /// SPEC §12's `change` of the cell (`rise`, `fall` or `none`); see `change(of:)`.
        var change: String

        /// The geohash cell of an entry of a geohash grid (the vector tiles draw those).
        var cell: GeohashCell { GeohashCell(prefix: id.raw, precision: system.geohashPrecision ?? 0) }

        init(
            id: GridCellID, system: GridSystem, key: String, rCurrent: Int, rPrevious: Int,
            safetyClass: SafetyClass, change: String
        ) {
            (self.id, self.system, self.key) = (id, system, key)
            (self.rCurrent, self.rPrevious, self.safetyClass, self.change) = (rCurrent, rPrevious, safetyClass, change)
        }

        /// An entry of a geohash grid.
        init(cell: GeohashCell, key: String, rCurrent: Int, rPrevious: Int, safetyClass: SafetyClass, change: String) {
            self.init(
                id: GridCellID(raw: cell.prefix), system: .geohash(precision: cell.precision), key: key,
                rCurrent: rCurrent, rPrevious: rPrevious, safetyClass: safetyClass, change: change)
        }
    }

    /// One non-empty tile: its cells in its zoom's grid (coarser below the highest zoom), in the
    /// cell order.
    struct Tile: Sendable {
        var id: TileID
        var system: GridSystem
        var cells: [Entry]

        /// The number the version digest takes for the tile's grid: a geohash precision, as it
        /// always was; 100 + R for H3, which no precision equals.
        var gridNumber: Int {
            switch system {
            case .geohash(let p): p
            case .h3(let r): 100 + r
            }
        }
    }

    /// The cell precision of tiles at zoom `z`: the report's precision at the highest zoom,
    /// one less for the next two zooms down, two less for the two after, never below 1.
    public static func precision(zoom z: Int, maxZoom: Int, reportPrecision p: Int) -> Int {
        max(1, p - (maxZoom - z + 1) / 2)
    }

    /// The grid of tiles at zoom `z` (SPEC §18): geohash as `precision(zoom:…)`; H3 the report's
    /// resolution R at the highest zoom and (3·d + 1) / 4 coarser d zooms below it, never below 0.
    /// An H3 resolution is √7 ≈ 2.65 times as wide as the next and a zoom 2 times, so three
    /// resolutions per four zooms keep a tile's cells about as many at every zoom.
    public static func grid(zoom z: Int, maxZoom: Int, report system: GridSystem) -> GridSystem {
        switch system {
        case .geohash(let p): .geohash(precision: precision(zoom: z, maxZoom: maxZoom, reportPrecision: p))
        case .h3(let r): .h3(resolution: max(0, r - (3 * (maxZoom - z) + 1) / 4))
        }
    }

    /// Every non-empty tile, sorted by (z, x, y), with its cells in geohash order: the one source
    /// of the JSON tiles and of the vector tiles of grid.pmtiles.
    /// A merged cell carries the `change` of its worst spot (the first of its cells with the
    /// largest `r_current`), as it carries that spot's class; a withheld change is "none".
    static func build(_ grid: GridResult, changes: [ChangeSignificance?], zooms: ClosedRange<Int>) -> [Tile] {
        var tiles: [Tile] = []
        for z in zooms {
            let system = Self.grid(zoom: z, maxZoom: zooms.upperBound, report: grid.system)
            var byTile: [TileID: [Entry]] = [:]
            var k = 0
            // Cells are in the cell order, so the cells merging into one parent are adjacent.
            while k < grid.cells.count {
                let parent = grid.system.parent(of: grid.cells[k].id, in: system)
                var rCurrent = 0, rPrevious = 0, worst = k
                while k < grid.cells.count && grid.system.parent(of: grid.cells[k].id, in: system) == parent {
                    if grid.cells[k].rCurrent > grid.cells[worst].rCurrent { worst = k }
                    rCurrent = max(rCurrent, grid.cells[k].rCurrent)
                    rPrevious = max(rPrevious, grid.cells[k].rPrevious)
                    k += 1
                }
                let centre = system.centre(of: parent)
                let tile = TileID(lat: centre.lat, lon: centre.lon, zoom: z)
                byTile[tile, default: []].append(
                    Entry(
                        id: parent, system: system, key: system.text(of: parent), rCurrent: rCurrent,
                        rPrevious: rPrevious, safetyClass: grid.parameters.thresholds.classify(rCurrent),
                        change: (changes[worst]?.change ?? .none).rawValue))
            }
            for tile in byTile.keys.sorted() { tiles.append(Tile(id: tile, system: system, cells: byTile[tile]!)) }
        }
        return tiles
    }

    /// Writes `tiles` (from `build`) as `tiles/{z}/{x}/{y}.json` plus `tiles/tilejson.json`.
    static func write(
        _ tiles: [Tile], grid: GridResult, zooms: ClosedRange<Int>, disclosure: Disclosure, attribution: String,
        dataBounds: TileSetMeta.DataBounds = .unknown, version: String, publicURL: String? = nil,
        into directory: AtomicDirectory
    ) throws -> (tiles: Int, bytes: Int64) {
        let asOf = UTCTime.iso8601(grid.parameters.asOf)
        let radius = NumberFormat.compact(grid.parameters.radius)
        var folders = Set<String>()
        for t in tiles where folders.insert("tiles/\(t.id.z)/\(t.id.x)").inserted {
            _ = try directory.file("tiles/\(t.id.z)/\(t.id.x)/.")
        }
        let written = Mutex<Int64>(0)
        try FileFanOut.forEachRange(tiles.count) { range in
            var bytes: Int64 = 0
            for t in tiles[range] {
                let tile = t.id, cells = t.cells
                // A geohash tile names its precision, as it always has; an H3 tile its grid.
                let gridMember =
                    t.system.geohashPrecision.map { "\"precision\":\($0)" } ?? "\"grid\":\"\(t.system)\""
                let file = try BufferedFile(
                    path: directory.path("tiles/\(tile.z)/\(tile.x)/\(tile.y).json"), capacity: 1 << 16)
                try file.append { out in
                    out.append(
                        contentsOf:
                            "{\"as_of\":\"\(asOf)\",\(gridMember),\"radius_m\":\(radius),\"cells\":{".utf8)
                    for (i, e) in cells.enumerated() {
                        out.append(contentsOf: i > 0 ? ",\"".utf8 : "\"".utf8)
                        out.append(contentsOf: e.key.utf8)
                        out.append(contentsOf: "\":[".utf8)
                        if let v = disclosure.show(e.rCurrent) {
                            NumberFormat.appendInteger(v, to: &out)
                        } else {
                            out.append(contentsOf: "null".utf8)
                        }
                        out.append(44)
                        if let v = disclosure.show(e.rPrevious) {
                            NumberFormat.appendInteger(v, to: &out)
                        } else {
                            out.append(contentsOf: "null".utf8)
                        }
                        out.append(contentsOf: ",\"".utf8)
                        out.append(contentsOf: e.safetyClass.rawValue.utf8)
                        out.append(contentsOf: "\",\"".utf8)
                        out.append(contentsOf: e.change.utf8)
                        out.append(contentsOf: "\"]".utf8)
                    }
                    out.append(contentsOf: "}}\n".utf8)
                }
                try file.finish()
                bytes += file.bytesWritten
            }
            written.withLock { $0 += bytes }
        }
        let count = tiles.count
        let bytes = written.withLock { $0 }
        let json = tileJSON(
            grid, zooms: zooms, disclosure: disclosure, attribution: attribution,
            dataBounds: dataBounds, version: version, publicURL: publicURL
        ).serialized(pretty: true)
        try BufferedFile.write(json, to: try directory.file("tiles/tilejson.json"))
        return (count, bytes + Int64(json.utf8.count))
    }

    /// The extent of the reported cells (the whole Web Mercator square when there is none).
    static func bounds(_ grid: GridResult) -> GeoBox {
        guard !grid.cells.isEmpty else {
            return GeoBox(minLat: -85.051129, minLon: -180, maxLat: 85.051129, maxLon: 180)
        }
        var box = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
        for c in grid.cells {
            guard case .geohash = c.system else {
                for v in c.system.boundary(of: c.id) {
                    (box.minLat, box.maxLat) = (min(box.minLat, v.lat), max(box.maxLat, v.lat))
                    (box.minLon, box.maxLon) = (min(box.minLon, v.lon), max(box.maxLon, v.lon))
                }
                continue
            }
            let b = c.cell.bounds
            box.minLat = min(box.minLat, b.minLat)
            box.maxLat = max(box.maxLat, b.maxLat)
            box.minLon = min(box.minLon, b.minLon)
            box.maxLon = max(box.maxLon, b.maxLon)
        }
        return box
    }

    /// The name, description and version the TileJSON and the archive's metadata share.
    static let name = "areawatch safety grid"

    /// The tile set's TileJSON `version`, `1.N.0`: N is a 32-bit FNV-1a digest of every tile as
    /// written (its z/x/y, precision and cells' published values), so the version changes when
    /// any tile does, and a cache keyed on it is dropped then (TileJSON: changes across tiles
    /// change the minor version). The major version is the tile format's.
    static func version(_ tiles: [Tile], disclosure: Disclosure) -> String {
        var h = FNV1a()
        for t in tiles {
            for v in [t.id.z, t.id.x, t.id.y, t.gridNumber, t.cells.count] { h.combine(v) }
            for e in t.cells {
                h.combine(e.key)
                h.combine(disclosure.show(e.rCurrent) ?? -1)
                h.combine(disclosure.show(e.rPrevious) ?? -1)
                h.combine(e.safetyClass.rawValue)
                h.combine(e.change)
            }
        }
        return "1.\(UInt32(truncatingIfNeeded: h.value ^ (h.value >> 32))).0"
    }

    /// The cells layer as TileJSON 3.0.0's `vector_layers` declares it (the TileJSON and the
    /// archive's metadata share it; the JSON tiles carry the same fields per cell).
    public static func vectorLayers(zooms: ClosedRange<Int>, grid: GridSystem = .geohash(precision: 7)) -> JSONValue {
        let fields: [(String, JSONValue)] = CellLayerEncoder.Key.allCases.map { key in
            switch key {
            case .rCurrent, .rPrevious: return (key.name, .string("Number"))
            case .geohash: return (grid.cellColumn, .string("String"))
            case .safetyClass, .change: return (key.name, .string("String"))
            }
        }
        let cells =
            grid.geohashPrecision == nil
            ? "H3 cells (merged to a coarser resolution below the highest zoom)"
            : "Geohash cells (merged to a coarser precision below the highest zoom)"
        return .array([
            .object([
                ("id", .string(CellLayerEncoder.layerName)),
                (
                    "description",
                    .string(
                        cells + " with incidents within the radius of the centre in the current and previous year"
                    )
                ),
                ("minzoom", .int(zooms.lowerBound)),
                ("maxzoom", .int(zooms.upperBound)),
                ("fields", .object(fields))
            ])
        ])
    }
    static func description(_ p: QueryParameters, grid: GridSystem = .geohash(precision: 7)) -> String {
        let cell = grid.geohashPrecision == nil ? "H3 cell" : "geohash cell"
        return "Incidents within \(NumberFormat.compact(p.radius)) m of each \(cell) centre in the year to "
            + "\(UTCTime.iso8601(p.asOf)) and the year before, with safe/medium/dangerous classes. Aggregates only."
    }

    /// TileJSON 3.0.0, with the parameters a widget needs to read the tiles under `areawatch`.
    /// `publicURL`: the report folder's URL (`--public-url`); the tile URLs are absolute under it,
    /// and relative to tilejson.json without it.
    static func tileJSON(
        _ grid: GridResult, zooms: ClosedRange<Int>, disclosure: Disclosure, attribution: String,
        dataBounds: TileSetMeta.DataBounds = .unknown, version: String,
        publicURL: String? = nil
    ) -> JSONValue {
        let box = bounds(grid)
        let p = grid.parameters
        return .object([
            ("tilejson", .string("3.0.0")),
            ("tiles", .array([.string(publicURL.map { $0 + "/tiles/{z}/{x}/{y}.json" } ?? "{z}/{x}/{y}.json")])),
            ("vector_layers", vectorLayers(zooms: zooms, grid: grid.system)),
            ("name", .string(name)),
            ("description", .string(description(p, grid: grid.system))),
            ("version", .string(version)),
            ("attribution", .string(attribution)),
            ("scheme", .string("xyz")),
            ("minzoom", .int(zooms.lowerBound)),
            ("maxzoom", .int(zooms.upperBound)),
            (
                "bounds",
                .array([
                    .fixed(box.minLon, decimals: 6), .fixed(box.minLat, decimals: 6),
                    .fixed(box.maxLon, decimals: 6), .fixed(box.maxLat, decimals: 6)
                ])
            ),
            (
                "center",
                .array([
                    .fixed((box.minLon + box.maxLon) / 2, decimals: 6),
                    .fixed((box.minLat + box.maxLat) / 2, decimals: 6),
                    .int(zooms.lowerBound)
                ])
            ),
            (
                "areawatch",
                .object(
                    [
                        ("as_of", .string(UTCTime.iso8601(p.asOf))),
                        Summary.gridParameter(grid),
                        ("radius_m", .number(p.radius)),
                        ("thresholds", .array([.number(p.thresholds.medium), .number(p.thresholds.dangerous)])),
                        ("min_cell_count", .int(disclosure.minCellCount)),
                        (
                            "cell_format",
                            .string("cells: {\(grid.system.cellColumn): [r_current, r_previous, class, change]}")
                        )
                    ] + dataBoundsMember(dataBounds))
            )
        ])
    }

    /// `data_bounds`: `[west, south, east, north]` of the data (SPEC §8, exact cell edges), `null`
    /// when the report has no incident, absent when unknown. Lookups decide `coverage` from it.
    static func dataBoundsMember(_ bounds: TileSetMeta.DataBounds) -> [(String, JSONValue)] {
        guard case .known(let box) = bounds else { return [] }
        guard let box else { return [("data_bounds", .null)] }
        let edges = [box.minLon, box.minLat, box.maxLon, box.maxLat]
        return [("data_bounds", .array(edges.map { .number($0) }))]
    }
}
