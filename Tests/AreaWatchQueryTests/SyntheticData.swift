import AreaWatchCore
import Foundation
import Testing

/// Seeded random incident sets for the brute-force comparisons.
enum DataKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Uniform over a mid-latitude box, some points exactly on cell edges.
    case uniform
    /// Dense hotspots (tens to hundreds of metres wide) plus scattered points.
    case hotspots
    /// Few distinct points, many incidents each (like data.police.uk's snapped coordinates).
    case snapped
    /// Both sides of ±180° longitude, including exactly 180 and −180.
    case antimeridian
    /// Around the north pole, including the pole itself.
    case pole
    /// The bundled Calderdale police sample (real data).
    case calderdale

    var testDescription: String { rawValue }

    static let synthetic: [DataKind] = [.uniform, .hotspots, .snapped, .antimeridian, .pole]
}

enum TestData {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let windows = ReferenceWindows(asOf: asOf)
    static let categories: [String?] = ["Burglary", "Vehicle crime", "Anti-social behaviour", nil]

    /// A time in a window picked at random, often exactly on a window bound.
    static func time(_ rng: inout SplitMix64) -> Int64 {
        let t = asOf, c1 = windows.currentStart, c2 = windows.previousStart
        switch rng.next() % 24 {
        case 0: return c1 // previous
        case 1: return c1 + 1 // current
        case 2: return c2 // older
        case 3: return c2 + 1 // previous
        case 4: return t // current
        case 5: return t + 1 // future
        case 6: return c2 - Int64(rng.next() % 100_000_000)
        case 7: return t + 1 + Int64(rng.next() % 10_000_000)
        case 8...15: return c1 + 1 + Int64(rng.next() % UInt64(t - c1))
        default: return c2 + 1 + Int64(rng.next() % UInt64(c1 - c2))
        }
    }

    static func incident(_ rng: inout SplitMix64, lat: Double, lon: Double) -> TestIncident {
        TestIncident(
            lat: lat, lon: lon, time: time(&rng), handled: [true, false, nil][Int(rng.next() % 3)],
            category: categories[Int(rng.next() % UInt64(categories.count))])
    }

    /// A coordinate snapped to a precision-6 cell edge (also an edge at 7 and 8).
    static func onEdge(_ value: Double, low: Double, span: Double) -> Double {
        low + ((value - low) / span).rounded(.down) * span
    }

    static func synthetic(_ kind: DataKind) -> [TestIncident] {
        var rng = SplitMix64(seed: 0x5EED_0000 + UInt64(DataKind.allCases.firstIndex(of: kind)!))
        var out: [TestIncident] = []
        let h6 = 180.0 / 32768, w6 = 360.0 / 32768
        switch kind {
        case .uniform:
            for k in 0..<400 {
                var lat = rng.uniform(45.0...45.06), lon = rng.uniform(7.6...7.7)
                if k % 10 == 0 { lat = onEdge(lat, low: -90, span: h6) }
                if k % 15 == 0 { lon = onEdge(lon, low: -180, span: w6) }
                out.append(incident(&rng, lat: lat, lon: lon))
            }
        case .hotspots:
            let centres = [
                (51.5072, -0.1276, 0.0008), (51.5155, -0.0922, 0.0025), (51.4975, -0.1357, 0.0004),
                (51.52, -0.16, 0.0015)
            ]
            for k in 0..<400 {
                if k % 8 == 7 {
                    out.append(incident(&rng, lat: rng.uniform(51.47...51.55), lon: rng.uniform(-0.2...(-0.05))))
                } else {
                    let c = centres[Int(rng.next() % UInt64(centres.count))]
                    out.append(incident(&rng, lat: c.0 + c.2 * rng.normal(), lon: c.1 + 1.6 * c.2 * rng.normal()))
                }
            }
        case .snapped:
            var points: [(Double, Double)] = []
            for k in 0..<30 {
                var lat = rng.uniform(-33.95...(-33.9)), lon = rng.uniform(151.17...151.24)
                if k % 3 == 0 {
                    lat = onEdge(lat, low: -90, span: h6)
                    lon = onEdge(lon, low: -180, span: w6)
                }
                points.append((lat, lon))
            }
            for _ in 0..<600 {
                // Zipf-like: the first points get most incidents.
                let r = rng.uniform(0...1)
                let p = points[min(points.count - 1, Int(Double(points.count) * r * r * r))]
                out.append(incident(&rng, lat: p.0, lon: p.1))
            }
        case .antimeridian:
            for lon in [180.0, -180.0, 179.99999, -179.99999] {
                out.append(incident(&rng, lat: -17.8, lon: lon))
                out.append(TestIncident(lat: -17.81, lon: lon, time: asOf - 1000, handled: true, category: "Burglary"))
            }
            for _ in 0..<400 {
                let lon = rng.uniform(179.95...180.05)
                out.append(incident(&rng, lat: rng.uniform(-17.85...(-17.75)), lon: lon > 180 ? lon - 360 : lon))
            }
        case .pole:
            // Exactly at the pole (different longitudes, one physical point), within a few
            // kilometres of it, then farther out (still > 85°).
            for lon in [0.0, 123.4, -180.0, 180.0] {
                out.append(TestIncident(lat: 90, lon: lon, time: asOf - 86_400, handled: true, category: "Burglary"))
            }
            for k in 0..<400 {
                let lat = k < 40 ? rng.uniform(89.97...90) : rng.uniform(85.0...89.97)
                out.append(incident(&rng, lat: lat, lon: rng.uniform(-180...180)))
            }
        case .calderdale:
            fatalError("not synthetic")
        }
        return out
    }

    /// The largest `x` in [inside, outside] (or the smallest, when `inside > outside`) with
    /// `f(x) <= radius`, and the next Double beyond it: adjacent Doubles on either side of the
    /// radius. Needs f(inside) <= radius < f(outside).
    static func edge(inside: Double, outside: Double, radius: Double, _ f: (Double) -> Double) -> (Double, Double) {
        var lo = inside, hi = outside
        while true {
            let mid = lo / 2 + hi / 2
            if mid == lo || mid == hi { break }
            if f(mid) <= radius { lo = mid } else { hi = mid }
        }
        return (lo, hi)
    }

    /// Pairs of incidents on either side of the radius around cell centres of precision `p`,
    /// one Double apart: the first is exactly within `radius` of the centre, the second not.
    /// Half the pairs lie east or west of the centre (they decide where a row's run of centres
    /// ends), half north or south (which rows are reached). Around Paris.
    static func boundary(precision p: Int, radius: Double, pairs: Int = 40) -> (
        incidents: [TestIncident], centres: [(lat: Double, lon: Double)]
    ) {
        var rng = SplitMix64(seed: 0xB0_0000 + UInt64(p) * 100_000 + UInt64(radius))
        let delta = radius / Haversine.earthRadius * 180 / Double.pi
        var out: [TestIncident] = []
        var centres: [(lat: Double, lon: Double)] = []
        for k in 0..<pairs {
            let c = ReferenceGeohash.centre(
                row: ReferenceGeohash.row(lat: 48.85 + rng.uniform(-0.05...0.05), precision: p),
                column: ReferenceGeohash.column(lon: 2.35 + rng.uniform(-0.07...0.07), precision: p),
                precision: p)
            centres.append(c)
            let wide = 3 * delta / Foundation.cos(c.lat * Double.pi / 180)
            let pair: [(Double, Double)]
            switch k % 4 {
            case 0, 1:
                let lat = c.lat + rng.uniform(-0.7...0.7) * delta
                let sign = k % 4 == 0 ? 1.0 : -1.0
                let (a, b) = edge(inside: c.lon, outside: c.lon + sign * wide, radius: radius) {
                    Haversine.distance(lat1: lat, lon1: $0, lat2: c.lat, lon2: c.lon)
                }
                pair = [(lat, a), (lat, b)]
            default:
                // Some on the centre's meridian, where the row's own term decides alone (a = sin²(Δφ/2)).
                let offset = k % 8 >= 6 ? 0 : rng.uniform(-0.7...0.7) * delta / Foundation.cos(c.lat * Double.pi / 180)
                let lon = c.lon + offset
                let sign = k % 4 == 2 ? 1.0 : -1.0
                let (a, b) = edge(inside: c.lat, outside: c.lat + sign * 3 * delta, radius: radius) {
                    Haversine.distance(lat1: $0, lon1: lon, lat2: c.lat, lon2: c.lon)
                }
                pair = [(a, lon), (b, lon)]
            }
            for (lat, lon) in pair {
                out.append(
                    TestIncident(
                        lat: lat, lon: lon,
                        time: k % 3 == 0 ? windows.currentStart : asOf - Int64(rng.next() % 1_000_000),
                        handled: [true, false, nil][Int(rng.next() % 3)], category: nil))
            }
        }
        return (out, centres)
    }

    /// The Calderdale sample as ingested, loaded once.
    static let calderdale: Result<[TestIncident], any Error> = Result {
        testIncidents(of: try loadFiles(Paths.calderdaleFiles).columns)
    }

    static func incidents(_ kind: DataKind) throws -> [TestIncident] {
        kind == .calderdale ? try calderdale.get() : synthetic(kind)
    }

    /// Keeps the brute force and the engine (debug builds) within a budget: the distinct points
    /// of the windowed incidents are taken in order while the cells of their reference boxes add
    /// up to at most `budget`; then the first points are added up to `minimumPoints`, and when
    /// none is taken still the cheapest, each only when its box has at most `single` cells. Every incident at a taken point is kept, and every incident
    /// outside the windows (they cost nothing). `nearestTo` orders the points by distance to a
    /// place (for Calderdale: Halifax town centre, so a dense, real hotspot with all its
    /// duplicates stays whole); otherwise they keep their order in the data.
    static func withinBudget(
        _ rows: [TestIncident], radius: Double, precision: Int, budget: Int, single: Int,
        minimumPoints: Int = 0, nearestTo centre: (lat: Double, lon: Double)? = nil
    ) -> (rows: [TestIncident], boxCells: Int) {
        struct Key: Hashable {
            var lat: UInt64
            var lon: UInt64
        }
        var order: [Key] = []
        var seen: Set<Key> = []
        for r in rows {
            let w = windows.window(r.time)
            guard w == .current || w == .previous else { continue }
            let k = Key(lat: r.lat.bitPattern, lon: r.lon.bitPattern)
            if seen.insert(k).inserted { order.append(k) }
        }
        if let centre {
            func d(_ k: Key) -> Double {
                Haversine.distance(
                    lat1: centre.lat, lon1: centre.lon, lat2: Double(bitPattern: k.lat), lon2: Double(bitPattern: k.lon)
                )
            }
            order = order.map { ($0, d($0)) }.sorted { $0.1 < $1.1 }.map(\.0)
        }
        var taken: Set<Key> = []
        var used = 0
        var cheapest: (key: Key, cost: Int)?
        for k in order {
            let cost = ReferenceGrid.boxCellCount(
                lat: Double(bitPattern: k.lat), lon: Double(bitPattern: k.lon),
                radius: radius, precision: precision)
            if used + cost <= budget {
                used += cost
                taken.insert(k)
            }
            if cost < cheapest?.cost ?? .max { cheapest = (k, cost) }
        }
        // At least `minimumPoints` (the first in order) when each fits `single`.
        for k in order where taken.count < minimumPoints && !taken.contains(k) {
            let cost = ReferenceGrid.boxCellCount(
                lat: Double(bitPattern: k.lat), lon: Double(bitPattern: k.lon),
                radius: radius, precision: precision)
            if cost <= single {
                taken.insert(k)
                used += cost
            }
        }
        if taken.isEmpty, let cheapest, cheapest.cost <= single {
            taken.insert(cheapest.key)
            used = cheapest.cost
        }
        let kept = rows.filter { r in
            let w = windows.window(r.time)
            return !(w == .current || w == .previous)
                || taken.contains(Key(lat: r.lat.bitPattern, lon: r.lon.bitPattern))
        }
        return (kept, used)
    }
}
