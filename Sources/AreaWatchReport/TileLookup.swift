import AreaWatchCore
import Foundation

/// A location answered from the widget tiles alone, as the widget service does (SPEC §8).
public struct TileAnswer: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var asOf: String
    public var radius: Double
    /// The cell at the tiles' highest zoom holding the location: its geohash, or its H3 index's
    /// 15 digits (SPEC §18).
    public var cell: String
    /// The name the answer gives the cell: `geohash` or `h3`.
    public var cellColumn = "geohash"
    public var tile: String
    /// nil when withheld by the minimum cell count.
    public var current: Int?
    public var previous: Int?
    public var safetyClass: SafetyClass
    /// The cell is in a tile (false: no incident nearby, safe with counts 0).
    public var found: Bool
    /// SPEC §12's `change` the tile carries for the cell (`none` when absent or withheld).
    public var change: ChangeDirection = .none
    /// SPEC §12's E-test p of `current` against `previous` (nil when a count is withheld).
    public var pChange: Double?
    /// SPEC §7.1: `none` when the location lies outside the box the tiles carry grown by the
    /// radius (no class, "No data for this location").
    public var coverage: Coverage = .data

    public var delta: Int? {
        guard let current, let previous else { return nil }
        return current - previous
    }

    /// The class, nil when there is no data for the location.
    public var shownClass: SafetyClass? { coverage == .none ? nil : safetyClass }
    public var label: String { shownClass?.label ?? Coverage.noDataLabel }

    public var text: String? {
        guard coverage == .data, let current, let previous else { return nil }
        return YearOverYear(current: current, previous: previous).text
    }
}

/// What a lookup needs from `tilejson.json` (its `maxzoom` and `areawatch` members).
public struct TileSetMeta: Sendable, Equatable {
    public var maxZoom: Int
    /// The report's grid: `areawatch.precision` (geohash) or `areawatch.grid` (`"h3:9"`).
    public var grid: GridSystem
    public var asOf: String
    public var radius: Double
    public var thresholds: Thresholds
    /// Disclosure control of the report (`--min-cell-count`): above 1, no cell means "fewer than K".
    public var minCellCount: Int
    /// `areawatch.data_bounds`: the box of the data (SPEC §8) that decides `coverage`; nil inside
    /// `.known` when the report had no incident. Tiles written before the member existed are
    /// `.unknown` and answer `data`, as they always did.
    public var dataBounds: DataBounds

    public typealias DataBounds = Recorded<GeoBox>
    /// Lengths in days of the current and previous windows (the E-test's exposures), read once
    /// with the TileJSON (the server answers every lookup from one `TileSetMeta`).
    public var windowDays: (current: Double, previous: Double) { (currentWindowDays, previousWindowDays) }
    private var currentWindowDays: Double
    private var previousWindowDays: Double

    public init(tileJSON data: Data, path: String) throws {
        guard let meta = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let maxZoom = meta["maxzoom"] as? Int, (0...30).contains(maxZoom),
            let areawatch = meta["areawatch"] as? [String: Any],
            let grid = Self.grid(areawatch),
            let asOf = areawatch["as_of"] as? String
        else {
            throw ReportError(
                path: path,
                message: "not an areawatch TileJSON (maxzoom and areawatch.precision or areawatch.grid expected)")
        }
        self.maxZoom = maxZoom
        self.grid = grid
        self.asOf = asOf
        minCellCount = (areawatch["min_cell_count"] as? Int) ?? 1
        dataBounds = TileSetMeta.dataBounds(areawatch["data_bounds"])
        (currentWindowDays, previousWindowDays) = TimeWindows(asOf: TimeParser.parse(asOf)?.seconds ?? 0).windowDays
        radius = (areawatch["radius_m"] as? NSNumber)?.doubleValue ?? 1000
        thresholds =
            (areawatch["thresholds"] as? [NSNumber]).flatMap {
                $0.count == 2 ? Thresholds(medium: $0[0].doubleValue, dangerous: $0[1].doubleValue) : nil
            } ?? .standard
    }

    /// A geohash grid's `precision` (1…12), or an H3 grid's `grid` (`"h3:R"`, R 0…15).
    private static func grid(_ areawatch: [String: Any]) -> GridSystem? {
        if let precision = areawatch["precision"] as? Int {
            return (1...Geohash.maxPrecision).contains(precision) ? .geohash(precision: precision) : nil
        }
        guard let text = areawatch["grid"] as? String, let grid = try? GridSystem(parsing: text),
            case .h3 = grid
        else { return nil }
        return grid
    }

    /// `[west, south, east, north]`, `null` (no data) or absent (tiles of an older version).
    private static func dataBounds(_ value: Any?) -> DataBounds {
        guard let value else { return .unknown }
        guard let edges = (value as? [NSNumber])?.map(\.doubleValue), edges.count == 4 else { return .known(nil) }
        return .known(GeoBox(minLat: edges[1], minLon: edges[0], maxLat: edges[3], maxLon: edges[2]))
    }

    /// The coverage of a location by these tiles' data (SPEC §7.1).
    public func coverage(lat: Double, lon: Double) -> Coverage {
        guard case .known(let box) = dataBounds else { return .data }
        return Coverage.of(lat: lat, lon: lon, box: box, radius: radius)
    }
}

/// A value a report may not have recorded (older versions did not): `.known(nil)` is "recorded:
/// there is none".
public enum Recorded<Value: Sendable & Equatable>: Sendable, Equatable {
    case unknown
    case known(Value?)
}

/// One cell as a tile lists it: `[r_current, r_previous, class]` (nil values: withheld).
public struct TileCell: Sendable, Equatable {
    public var current: Int?
    public var previous: Int?
    public var safetyClass: SafetyClass?
    public var change: ChangeDirection?

    public init(current: Int?, previous: Int?, safetyClass: SafetyClass?, change: ChangeDirection? = nil) {
        self.current = current
        self.previous = previous
        self.safetyClass = safetyClass
        self.change = change
    }
}

/// Answers a location from the widget tiles: `answer(tiles:)` reads the files of one folder per
/// call (the CLI); `answer(meta:cell:)` takes the cells from wherever the caller keeps them (the
/// server keeps them in memory), so both give the same answer by the same code.
public enum TileLookup {
    public static func answer(tiles directory: String, lat: Double, lon: Double) throws -> TileAnswer {
        let tileJSONPath = directory + "/tilejson.json"
        let meta = try TileSetMeta(tileJSON: try read(tileJSONPath), path: tileJSONPath)
        return try answer(meta: meta, lat: lat, lon: lon) { tile, geohash in
            let tilePath = "\(directory)/\(tile.z)/\(tile.x)/\(tile.y).json"
            guard FileManager.default.fileExists(atPath: tilePath) else { return nil }
            return try cells(ofTile: try read(tilePath), path: tilePath)[geohash]
        }
    }

    /// The answer for (lat, lon); `cell` gives the entry of a cell (by its id text) in a tile of
    /// the highest zoom.
    public static func answer(
        meta: TileSetMeta, lat: Double, lon: Double,
        cell lookup: (TileID, String) throws -> TileCell?
    ) rethrows -> TileAnswer {
        // The tile that lists the cell is the one holding the cell's centre, not the location.
        let cell = meta.grid.cell(lat: lat, lon: lon)
        let centre = meta.grid.centre(of: cell)
        let key = meta.grid.text(of: cell)
        let tile = TileID(lat: centre.lat, lon: centre.lon, zoom: meta.maxZoom)
        // With disclosure control a missing cell means "fewer than K", as a withheld count does
        // (docs/PRIVACY.md); without it, no incident nearby.
        let withheld = meta.minCellCount > 1
        var answer = TileAnswer(
            lat: lat, lon: lon, asOf: meta.asOf, radius: meta.radius, cell: key,
            tile: tile.description, current: withheld ? nil : 0, previous: withheld ? nil : 0,
            safetyClass: .safe, found: false)
        answer.cellColumn = meta.grid.cellColumn
        answer.coverage = meta.coverage(lat: lat, lon: lon)
        guard let entry = try lookup(tile, key) else { return answer }
        answer.found = true
        answer.current = entry.current
        answer.previous = entry.previous
        answer.safetyClass = entry.safetyClass ?? meta.thresholds.classify(entry.current ?? 0)
        answer.change = entry.change ?? .none
        if let current = entry.current, let previous = entry.previous {
            let days = meta.windowDays
            answer.pChange = PoissonETest.pValue(k1: current, n1: days.current, k2: previous, n2: days.previous)
        }
        return answer
    }

    /// The cells of one JSON tile by id text (entries that are not `[n, n, class]` are skipped).
    public static func cells(ofTile data: Data, path: String) throws -> [String: TileCell] {
        guard let content = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cells = content["cells"] as? [String: Any]
        else {
            throw ReportError(path: path, message: "not an areawatch tile")
        }
        var result: [String: TileCell] = [:]
        result.reserveCapacity(cells.count)
        for (geohash, value) in cells {
            // [r_current, r_previous, class] and, since format 1.1, change.
            guard let entry = value as? [Any], entry.count == 3 || entry.count == 4 else { continue }
            result[geohash] = TileCell(
                current: (entry[0] as? NSNumber)?.intValue, previous: (entry[1] as? NSNumber)?.intValue,
                safetyClass: (entry[2] as? String).flatMap(SafetyClass.init(rawValue:)),
                change: entry.count == 4 ? (entry[3] as? String).flatMap(ChangeDirection.init(rawValue:)) : nil)
        }
        return result
    }

    private static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReportError(path: path, message: "cannot read")
        }
        return data
    }
}
