#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bounds of the haversine term `a` between a point and every point of a lat/lon box, used to
/// prune R-tree nodes (lower bound) and to accept whole nodes (upper bound).
///
/// Both work on the sphere, not on degrees, so they hold across the antimeridian (sin² of half
/// the longitude difference is periodic) and near the poles.
public enum SphericalBounds {
    @inline(__always)
    static func hav(_ radians: Double) -> Double {
        let s = sin(radians / 2)
        return s * s
    }

    /// A lower bound of `a` from (lat, lon) to any point of the box (0 when inside).
    @inline(__always)
    public static func minHalfChord(lat: Double, lon: Double, cosLat: Double, box: GeoBox) -> Double {
        let rad = Haversine.radiansPerDegree
        if lon >= box.minLon && lon <= box.maxLon {
            if lat < box.minLat { return hav((box.minLat - lat) * rad) }
            if lat > box.maxLat { return hav((lat - box.maxLat) * rad) }
            return 0
        }
        // West or east of the box: the nearest point lies on the meridian edge with the
        // smaller longitude gap (for a fixed latitude, `a` grows with sin²(Δλ/2)).
        let h = min(hav((box.minLon - lon) * rad), hav((box.maxLon - lon) * rad))
        func along(_ lat2: Double) -> Double {
            hav((lat2 - lat) * rad) + cosLat * cos(lat2 * rad) * h
        }
        let cosDLon = 1 - 2 * h
        if cosDLon > 0 {
            // The closest point of the whole meridian: tan φ* = tan φ / cos Δλ.
            let vertex = atan(tan(lat * rad) / cosDLon) / rad
            if vertex > box.minLat && vertex < box.maxLat { return along(vertex) }
        }
        // Otherwise `a` is unimodal along the edge with its peak inside: an endpoint is nearest.
        return min(along(box.minLat), along(box.maxLat))
    }

    /// An upper bound of `a` from (lat, lon) to every point of the box, or nil when the box is too
    /// large for the corner argument (an edge more than 60° from the point, or wider than 120°).
    ///
    /// For a fixed latitude `a` grows with the longitude gap, so the farther meridian edge holds
    /// the maximum; along it `a(φ) = hav(φ−φ1) + cos φ1 cos φ · S` is convex when
    /// cos(φ−φ1)/2 ≥ S, which the 60° limits guarantee, so the maximum is at a corner.
    @inline(__always)
    public static func maxHalfChord(lat: Double, lon: Double, cosLat: Double, box: GeoBox) -> Double? {
        let rad = Haversine.radiansPerDegree
        let s = max(hav((box.minLon - lon) * rad), hav((box.maxLon - lon) * rad))
        guard s <= 0.25, box.maxLon - box.minLon <= 120,
              abs(box.minLat - lat) <= 60, abs(box.maxLat - lat) <= 60 else { return nil }
        let aMin = hav((box.minLat - lat) * rad) + cosLat * cos(box.minLat * rad) * s
        let aMax = hav((box.maxLat - lat) * rad) + cosLat * cos(box.maxLat * rad) * s
        return max(aMin, aMax)
    }
}
