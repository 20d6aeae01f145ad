import AreaWatchCore
import Foundation

/// A location answered from the widget tiles alone, as the widget service does (SPEC §8).
public struct TileAnswer: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var asOf: String
    public var radius: Double
    /// The cell at the tiles' highest zoom holding the location.
    public var geohash: String
    public var tile: String
    /// nil when withheld by the minimum cell count.
    public var current: Int?
    public var previous: Int?
    public var safetyClass: SafetyClass
    /// The cell is in a tile (false: no incident nearby, safe with counts 0).
    public var found: Bool

    public var delta: Int? {
        guard let current, let previous else { return nil }
        return current - previous
    }

    public var label: String { safetyClass.label }

    public var text: String? {
        guard let current, let previous else { return nil }
        return YearOverYear(current: current, previous: previous).text
    }
}

/// Reads `tiles/tilejson.json` and one tile of the highest zoom.
public enum TileLookup {
    public static func answer(tiles directory: String, lat: Double, lon: Double) throws -> TileAnswer {
        let tileJSONPath = directory + "/tilejson.json"
        guard let meta = try readJSON(tileJSONPath),
              let maxZoom = meta["maxzoom"] as? Int,
              let areawatch = meta["areawatch"] as? [String: Any],
              let precision = areawatch["precision"] as? Int,
              let asOf = areawatch["as_of"] as? String else {
            throw ReportError(path: tileJSONPath, message: "not an areawatch TileJSON (maxzoom and areawatch.precision expected)")
        }
        let radius = (areawatch["radius_m"] as? NSNumber)?.doubleValue ?? 1000
        let thresholds = (areawatch["thresholds"] as? [NSNumber]).flatMap {
            $0.count == 2 ? Thresholds(medium: $0[0].doubleValue, dangerous: $0[1].doubleValue) : nil
        } ?? .standard
        // The tile that lists the cell is the one holding the cell's centre, not the location.
        let cell = GeohashCell(lat: lat, lon: lon, precision: precision)
        let centre = cell.centre
        let tile = TileID(lat: centre.lat, lon: centre.lon, zoom: maxZoom)
        // With disclosure control a missing cell means "fewer than K", as a withheld count does
        // (docs/PRIVACY.md); without it, no incident nearby.
        let withheld = ((areawatch["min_cell_count"] as? Int) ?? 1) > 1
        var answer = TileAnswer(lat: lat, lon: lon, asOf: asOf, radius: radius, geohash: cell.string, tile: tile.description,
                                current: withheld ? nil : 0, previous: withheld ? nil : 0, safetyClass: .safe, found: false)
        let tilePath = "\(directory)/\(tile.z)/\(tile.x)/\(tile.y).json"
        guard FileManager.default.fileExists(atPath: tilePath) else { return answer }
        guard let content = try readJSON(tilePath), let cells = content["cells"] as? [String: Any] else {
            throw ReportError(path: tilePath, message: "not an areawatch tile")
        }
        guard let entry = cells[cell.string] as? [Any], entry.count == 3 else { return answer }
        answer.found = true
        answer.current = (entry[0] as? NSNumber)?.intValue
        answer.previous = (entry[1] as? NSNumber)?.intValue
        answer.safetyClass = (entry[2] as? String).flatMap(SafetyClass.init(rawValue:))
            ?? thresholds.classify(answer.current ?? 0)
        return answer
    }

    private static func readJSON(_ path: String) throws -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReportError(path: path, message: "cannot read")
        }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
