import Glibc

/// A cell boundary on the sphere written as planar longitude/latitude polygons (RFC 7946 and WKT;
/// SPEC §18): each part a closed ring, counter-clockwise in the lon/lat plane, every longitude in
/// −180…180.
///
/// - A ring that stays on one side of the antimeridian is one part, as given.
/// - A ring that crosses it is split there into two parts (RFC 7946 §3.1.9), one ending on +180
///   and one on −180, sharing the crossing latitudes.
/// - A ring around a pole (its longitudes wind once round the globe) is one part closed along
///   ±180 and the pole: …, (180, lat), (180, ±90), (−180, ±90), (−180, lat), …, as GIS
///   antimeridian tools write a polar cap.
///
/// Where an edge meets ±180 its latitude is taken on the great circle through the edge's ends
/// (H3's edges are great-circle arcs), not by straight interpolation in degrees.
public enum CellPolygons {
    public typealias Ring = [(lon: Double, lat: Double)]

    /// The parts of a ring given as H3 gives it: (lat, lon) vertices in order, not closed.
    public static func parts(of ring: [(lat: Double, lon: Double)]) -> [Ring] {
        let n = ring.count
        guard n >= 3 else { return [] }
        // Edges whose longitudes jump by more than 180° cross the antimeridian.
        let crossings = (0..<n).filter { abs(ring[($0 + 1) % n].lon - ring[$0].lon) > 180 }
        if crossings.isEmpty {
            return [counterClockwise(ring.map { (lon: $0.lon, lat: $0.lat) } + [(lon: ring[0].lon, lat: ring[0].lat)])]
        }
        var winding = 0.0
        for k in 0..<n { winding += wrapped(ring[(k + 1) % n].lon - ring[k].lon) }
        if abs(winding) > 180 {
            return [polarCap(ring, crossing: crossings[0], northern: ring.map(\.lat).reduce(0, +) > 0)]
        }
        return split(ring, crossings: crossings)
    }

    /// The ring's vertices between crossings, each run closed with its crossing points on ±180.
    private static func split(_ ring: [(lat: Double, lon: Double)], crossings: [Int]) -> [Ring] {
        let n = ring.count
        var parts: [Ring] = []
        for (k, start) in crossings.enumerated() {
            let end = crossings[(k + 1) % crossings.count]
            // Vertices start+1 … end (cyclically), all on one side of the antimeridian.
            var run: [(lat: Double, lon: Double)] = []
            var i = (start + 1) % n
            while true {
                run.append(ring[i])
                if i == end { break }
                i = (i + 1) % n
            }
            let side: Double = run[0].lon >= 0 ? 180 : -180
            let entry = crossingLatitude(ring[start], ring[(start + 1) % n])
            let exit = crossingLatitude(ring[end], ring[(end + 1) % n])
            var part: Ring = [(side, entry)]
            part += run.map { (lon: $0.lon, lat: $0.lat) }
            part += [(side, exit), (side, entry)]
            parts.append(counterClockwise(part))
        }
        return parts
    }

    /// One polygon round the pole: from the crossing, every vertex, back to the crossing on the
    /// other side of the antimeridian, then along it to the pole and across.
    private static func polarCap(_ ring: [(lat: Double, lon: Double)], crossing: Int, northern: Bool) -> Ring {
        let n = ring.count
        let latitude = crossingLatitude(ring[crossing], ring[(crossing + 1) % n])
        let first = ring[(crossing + 1) % n]
        let startSide: Double = first.lon >= 0 ? 180 : -180
        let pole: Double = northern ? 90 : -90
        var part: Ring = [(startSide, latitude)]
        for k in 1...n { part.append((ring[(crossing + k) % n].lon, ring[(crossing + k) % n].lat)) }
        part += [(-startSide, latitude), (-startSide, pole), (startSide, pole), (startSide, latitude)]
        return counterClockwise(part)
    }

    /// Latitude where the great circle through two points (on either side of the antimeridian)
    /// meets it: tan φ = (tan φ1 · sin(λ − λ2) − tan φ2 · sin(λ − λ1)) / sin(λ1 − λ2) at λ = 180°.
    static func crossingLatitude(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        let rad = Double.pi / 180
        let lon1 = a.lon < 0 ? a.lon + 360 : a.lon, lon2 = b.lon < 0 ? b.lon + 360 : b.lon
        let denominator = sin((lon1 - lon2) * rad)
        guard abs(denominator) > 1e-15 else { return (a.lat + b.lat) / 2 }
        let t = (tan(a.lat * rad) * sin((180 - lon2) * rad) - tan(b.lat * rad) * sin((180 - lon1) * rad)) / denominator
        return atan(t) / rad
    }

    /// A longitude difference in (−180, 180].
    private static func wrapped(_ d: Double) -> Double {
        d > 180 ? d - 360 : (d <= -180 ? d + 360 : d)
    }

    /// The closed ring in counter-clockwise order (positive shoelace area in the lon/lat plane).
    static func counterClockwise(_ closed: Ring) -> Ring {
        var twiceArea = 0.0
        for k in 0..<(closed.count - 1) {
            twiceArea += closed[k].lon * closed[k + 1].lat - closed[k + 1].lon * closed[k].lat
        }
        return twiceArea >= 0 ? closed : closed.reversed()
    }
}
