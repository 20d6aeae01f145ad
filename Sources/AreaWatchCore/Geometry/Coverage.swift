import Glibc

/// SPEC §7.1 `coverage`: whether the data can say anything about a location. A location outside
/// the box of every incident grown by the radius has no incident that could ever be counted
/// there, so "Safe Area" would be a guess: it is answered "No data for this location" instead.
public enum Coverage: String, Sendable, Hashable {
    case data
    case none

    /// The label of an answer whose coverage is `none` (its class is null).
    public static let noDataLabel = "No data for this location"

    /// `data` when (lat, lon) lies in `box` grown by `radius` metres (`GrownBox`), `none` when it
    /// lies outside or there is no box (no incident at all).
    public static func of(lat: Double, lon: Double, box: GeoBox?, radius: Double) -> Coverage {
        guard let box else { return .none }
        return GrownBox(box, radius: radius).contains(lat: lat, lon: lon) ? .data : .none
    }
}

/// A latitude/longitude box grown by a distance on the sphere of SPEC §7 (R = 6,371,008.8 m),
/// so that it holds every point within that distance of a point of the box:
/// - latitude: ± d, where d = radius / R in degrees (no point within the radius is farther in
///   latitude), clamped to ±90;
/// - longitude: ± asin(sin(radius / R) / cos φ) degrees, φ the box's latitude nearest a pole:
///   the exact longitude reach of a circle of the radius centred at φ, which only grows toward
///   the poles, so it covers every latitude of the box; when a circle at φ reaches a pole
///   (|φ| + d ≥ 90) every longitude is covered. The edges are inclusive and longitude wraps
///   across the antimeridian.
public struct GrownBox: Sendable, Hashable {
    public let south: Double
    public let north: Double
    /// West and east edges, possibly beyond ±180 (wrapped when tested); nil: every longitude.
    public let west: Double?
    public let east: Double?

    public init(_ box: GeoBox, radius: Double) {
        let angle = radius / Haversine.earthRadius
        let d = angle / Haversine.radiansPerDegree
        south = max(-90, box.minLat - d)
        north = min(90, box.maxLat + d)
        let poleward = max(abs(box.minLat), abs(box.maxLat))
        let reach = poleward + d >= 90 ? nil : asin(min(1, sin(angle) / cos(poleward * Haversine.radiansPerDegree)))
        if let reach, box.maxLon - box.minLon + 2 * reach / Haversine.radiansPerDegree < 360 {
            west = box.minLon - reach / Haversine.radiansPerDegree
            east = box.maxLon + reach / Haversine.radiansPerDegree
        } else {
            west = nil
            east = nil
        }
    }

    public func contains(lat: Double, lon: Double) -> Bool {
        guard lat >= south && lat <= north else { return false }
        guard let west, let east else { return true }
        return [lon, lon + 360, lon - 360].contains { $0 >= west && $0 <= east }
    }
}
