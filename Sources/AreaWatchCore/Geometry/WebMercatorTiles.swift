import Glibc

/// An XYZ tile (OSM/Google scheme: x east from −180°, y south from the north edge).
public struct TileID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let z: Int
    public let x: Int
    public let y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// The tile holding a location at a zoom. Latitudes beyond Web Mercator's ±85.0511° fall in
    /// the first or last row.
    public init(lat: Double, lon: Double, zoom: Int) {
        let n = Double(1 << zoom)
        let clampedLat = min(max(lat, -WebMercator.maxLatitude), WebMercator.maxLatitude)
        let phi = clampedLat * Double.pi / 180
        let xf = ((lon + 180) / 360 * n).rounded(.down)
        let yf = ((1 - log(tan(phi) + 1 / cos(phi)) / Double.pi) / 2 * n).rounded(.down)
        let last = (1 << zoom) - 1
        self.init(z: zoom, x: min(max(Int(xf), 0), last), y: min(max(Int(yf), 0), last))
    }

    /// The tile's extent in degrees.
    public var bounds: GeoBox {
        GeoBox(
            minLat: WebMercator.latitude(row: y + 1, zoom: z), minLon: WebMercator.longitude(column: x, zoom: z),
            maxLat: WebMercator.latitude(row: y, zoom: z), maxLon: WebMercator.longitude(column: x + 1, zoom: z))
    }

    public var description: String { "\(z)/\(x)/\(y)" }

    public static func < (a: TileID, b: TileID) -> Bool { (a.z, a.x, a.y) < (b.z, b.x, b.y) }
}

public enum WebMercator {
    /// atan(sinh(π)): the latitude of the square map's edge.
    public static let maxLatitude = 85.05112877980659

    public static func longitude(column: Int, zoom: Int) -> Double {
        Double(column) / Double(1 << zoom) * 360 - 180
    }

    public static func latitude(row: Int, zoom: Int) -> Double {
        let n = Double.pi * (1 - 2 * Double(row) / Double(1 << zoom))
        return atan(sinh(n)) * 180 / Double.pi
    }
}
