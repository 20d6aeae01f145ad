import Glibc

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
            abs(box.minLat - lat) <= 60, abs(box.maxLat - lat) <= 60
        else { return nil }
        let aMin = hav((box.minLat - lat) * rad) + cosLat * cos(box.minLat * rad) * s
        let aMax = hav((box.maxLat - lat) * rad) + cosLat * cos(box.maxLat * rad) * s
        return max(aMin, aMax)
    }
}

/// Cheap local decisions "certainly within / certainly beyond the radius" for points and boxes
/// near a query point, without trigonometry per test; anything not certain is left to the exact
/// test (`RadiusTest`, `SphericalBounds`).
///
/// Why: a point query in a dense city visits ~150 R-tree leaves on the circle's edge; the exact
/// haversine test (two sines, two cosines) per point and the spherical box bounds per node
/// dominated it. With x = Δφ and y = Δλ in radians, both at most 0.5° (0.0087 rad), and
/// C = cos φ1·cos φ2 ≥ 0.01:
///   sin(t) ∈ [t(1 − t²/6), t] and asin(z) ∈ [z, z(1 + z²/5)] give
///   d² / (R²·(x² + C·y²)) ∈ [1 − 1e-5, 1 + 1e-4];
/// C computed from Float cosines is off by at most ~1.2e-7, i.e. 1.2e-5 relative for C ≥ 0.01.
/// So a planar D² = R²(x² + C·y²) more than 1e-3 (relative) below r² is certainly inside, more
/// than 1e-3 above certainly outside. Boxes use the smallest and largest C and gaps over the box.
public struct LocalBounds: Sendable {
    public enum Decision { case inside, outside, straddles, unknown }

    let lat: Double
    let lon: Double
    let cosLat: Double
    let insideBelow: Double
    let outsideAbove: Double
    /// (R·π/180)²: squared metres per squared degree on the sphere.
    private static let scale: Double = {
        let k = Haversine.earthRadius * Haversine.radiansPerDegree
        return k * k
    }()
    private static let window = 0.5
    private static let minimumC = 0.01

    public init(lat: Double, lon: Double, cosLat: Double, radius: Double) {
        self.lat = lat
        self.lon = lon
        self.cosLat = cosLat
        let r2 = radius * radius / LocalBounds.scale
        insideBelow = r2 * (1 - 1e-3)
        outsideAbove = r2 * (1 + 1e-3)
    }

    @inline(__always)
    public func classify(lat pLat: Double, lon pLon: Double, cosLat pCos: Float) -> Decision {
        let x = pLat - lat, y = pLon - lon
        guard abs(x) <= LocalBounds.window, abs(y) <= LocalBounds.window else { return .unknown }
        let c = cosLat * Double(pCos)
        guard c >= LocalBounds.minimumC else { return .unknown }
        let d2 = x * x + c * y * y
        if d2 < insideBelow { return .inside }
        if d2 > outsideAbove { return .outside }
        return .unknown
    }

    /// For a box: `.inside` when every point is certainly within, `.outside` when none can be,
    /// `.straddles` when the cheap bounds are conclusive that it is neither.
    @inline(__always)
    public func classify(_ box: GeoBox, cosMinLat: Float, cosMaxLat: Float) -> Decision {
        let farLat = max(abs(box.minLat - lat), abs(box.maxLat - lat))
        let farLon = max(abs(box.minLon - lon), abs(box.maxLon - lon))
        guard farLat <= LocalBounds.window, farLon <= LocalBounds.window else { return .unknown }
        let c1 = Double(cosMinLat), c2 = Double(cosMaxLat)
        let cosMin = min(c1, c2), cosMax = (box.minLat <= 0 && box.maxLat >= 0) ? 1 : max(c1, c2)
        let cMin = cosLat * cosMin, cMax = cosLat * cosMax
        guard cMin >= LocalBounds.minimumC else { return .unknown }
        let nearLat = max(0, box.minLat - lat, lat - box.maxLat)
        let nearLon = max(0, box.minLon - lon, lon - box.maxLon)
        if nearLat * nearLat + cMin * nearLon * nearLon > outsideAbove { return .outside }
        if farLat * farLat + cMax * farLon * farLon < insideBelow { return .inside }
        return .straddles
    }
}
