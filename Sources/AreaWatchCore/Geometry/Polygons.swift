import Glibc

/// A polygon with holes: the first ring is the exterior, the rest are holes. Rings are
/// `[lon, lat]` positions as in GeoJSON; the closing position may or may not repeat the first.
public struct GeoPolygon: Sendable, Equatable {
    public var rings: [[(lon: Double, lat: Double)]]

    public init(rings: [[(lon: Double, lat: Double)]]) {
        self.rings = rings
    }

    public static func == (a: GeoPolygon, b: GeoPolygon) -> Bool {
        a.rings.count == b.rings.count
            && zip(a.rings, b.rings).allSatisfy { x, y in
                x.count == y.count && zip(x, y).allSatisfy { $0.lon == $1.lon && $0.lat == $1.lat }
            }
    }

    public var bounds: GeoBox {
        var box = GeoBox(minLat: .infinity, minLon: .infinity, maxLat: -.infinity, maxLon: -.infinity)
        for p in rings.first ?? [] {
            box.minLat = min(box.minLat, p.lat)
            box.maxLat = max(box.maxLat, p.lat)
            box.minLon = min(box.minLon, p.lon)
            box.maxLon = max(box.maxLon, p.lon)
        }
        return box
    }

    /// Inside the exterior ring and outside every hole. Edges are straight in longitude/latitude
    /// (RFC 7946 §3.1.1); points exactly on an edge follow the even-odd crossing rule.
    public func contains(lat: Double, lon: Double) -> Bool {
        guard let exterior = rings.first, GeoPolygon.ringContains(exterior, lat: lat, lon: lon) else { return false }
        for hole in rings.dropFirst() where GeoPolygon.ringContains(hole, lat: lat, lon: lon) { return false }
        return true
    }

    static func ringContains(_ ring: [(lon: Double, lat: Double)], lat: Double, lon: Double) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.lat > lat) != (b.lat > lat) {
                let crossLon = a.lon + (lat - a.lat) / (b.lat - a.lat) * (b.lon - a.lon)
                if lon < crossLon { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Area on the sphere of radius `Haversine.earthRadius`, in square metres: the exterior
    /// minus the holes, each ring by the spherical-excess sum Σ(λ2 − λ1)(2 + sin φ1 + sin φ2)·R²/2.
    public var sphericalArea: Double {
        guard let exterior = rings.first else { return 0 }
        var area = GeoPolygon.ringArea(exterior)
        for hole in rings.dropFirst() { area -= GeoPolygon.ringArea(hole) }
        return max(0, area)
    }

    static func ringArea(_ ring: [(lon: Double, lat: Double)]) -> Double {
        guard ring.count > 2 else { return 0 }
        let rad = Haversine.radiansPerDegree
        var sum = 0.0
        for i in 0..<ring.count {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += (b.lon - a.lon) * rad * (2 + sin(a.lat * rad) + sin(b.lat * rad))
        }
        return abs(sum * Haversine.earthRadius * Haversine.earthRadius / 2)
    }
}

/// A named area: one Polygon or the parts of a MultiPolygon.
public struct NamedArea: Sendable, Equatable {
    public var id: String
    public var polygons: [GeoPolygon]

    public init(id: String, polygons: [GeoPolygon]) {
        self.id = id
        self.polygons = polygons
    }

    public func contains(lat: Double, lon: Double) -> Bool {
        polygons.contains { $0.contains(lat: lat, lon: lon) }
    }

    public var sphericalArea: Double { polygons.reduce(0) { $0 + $1.sphericalArea } }

    public var bounds: GeoBox {
        var box = GeoBox(minLat: .infinity, minLon: .infinity, maxLat: -.infinity, maxLon: -.infinity)
        for b in polygons.map(\.bounds) {
            box.minLat = min(box.minLat, b.minLat)
            box.maxLat = max(box.maxLat, b.maxLat)
            box.minLon = min(box.minLon, b.minLon)
            box.maxLon = max(box.maxLon, b.maxLon)
        }
        return box
    }
}

/// A named point of interest (SPEC §7.4).
public struct PointOfInterest: Sendable, Equatable {
    public var name: String
    public var lat: Double
    public var lon: Double

    public init(name: String, lat: Double, lon: Double) {
        self.name = name
        self.lat = lat
        self.lon = lon
    }
}
