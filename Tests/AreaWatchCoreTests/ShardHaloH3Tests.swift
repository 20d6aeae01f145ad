import Glibc
import Testing

@testable import AreaWatchCore

/// SPEC §15 and §18's halo on H3 grids against brute force: an incident counts in its own cell
/// (in-cell counts) and in every cell whose centre is within the radius (radius counts); each such
/// cell belongs to the shard holding its centre, and that shard must be among the shards
/// `ShardHalo` lists, the shard of the incident's own cell first. The cells are found without the
/// halo's geometry: every cell of the globe at resolutions 2 and 3 (where a cell's circumradius
/// exceeds the radius, so its centre is often in another shard than its incidents), and H3's own
/// box search (polygonToCells) around the point at resolutions 7 and 9.
@Suite("Shard halo on H3 grids (SPEC §15, §18)")
struct ShardHaloH3Tests {
    typealias Point = (lat: Double, lon: Double)

    /// Random points, shard corners and edges (exactly on them and beside them), the antimeridian
    /// near Fiji, and both poles.
    static func points(shardPrecision: Int, count: Int, seed: UInt64, polar: Bool) -> [Point] {
        var rng = SplitMix64(seed: seed)
        var out: [Point] = [
            (-17.8, 179.95), (-17.8, -179.95), (-16.5, 180), (-16.5, -180), (0, 180), (60, 179.999), (0, 0)
        ]
        if polar { out += [(90, 0), (-90, 0), (89.99, 45), (-89.9, -135)] }
        let h = GeohashCell.latSpan(shardPrecision), w = GeohashCell.lonSpan(shardPrecision)
        let band = polar ? 90.0 : 70.0
        for _ in 0..<count {
            let row = Double(Int.random(in: 1..<Int(180 / h), using: &rng))
            let column = Double(Int.random(in: 0..<Int(360 / w), using: &rng))
            let jitter = [0, 1e-9, -1e-9, 0.003, -0.003, rng.uniform(-h, h)]
            let lat = -90 + row * h + jitter.randomElement(using: &rng)!
            let lon = -180 + column * w + jitter.randomElement(using: &rng)!
            out.append((min(band, max(-band, lat)), min(180, max(-180, lon))))
            out.append((rng.uniform(-band, band), rng.uniform(-180, 180)))
        }
        return out
    }

    /// Checks one point: every shard owning a cell the incident counts in is listed, once, the
    /// home shard first. Returns whether the home differs from the shard holding the point.
    static func check(
        _ p: Point, halo: ShardHalo, resolution: Int, test: RadiusTest,
        candidates: [(cell: H3Cell, centre: Point)]
    ) -> Bool {
        let listed = halo.shards(lat: p.lat, lon: p.lon)
        let own = H3.cell(lat: p.lat, lon: p.lon, resolution: resolution)
        let ownCentre = own.centre
        let home = GeohashCell(lat: ownCentre.lat, lon: ownCentre.lon, precision: halo.precision)
        #expect(listed.first == home, "(\(p.lat), \(p.lon)): the home shard first")
        #expect(Set(listed).count == listed.count, "a shard listed twice for (\(p.lat), \(p.lon))")
        let set = Set(listed)
        var counted = [(own, ownCentre)]
        for c in candidates where test.contains(lat1: p.lat, lon1: p.lon, lat2: c.centre.lat, lon2: c.centre.lon) {
            counted.append((c.cell, c.centre))
        }
        for (cell, centre) in counted {
            let shard = GeohashCell(lat: centre.lat, lon: centre.lon, precision: halo.precision)
            #expect(
                set.contains(shard),
                "(\(p.lat), \(p.lon)) r=\(test.radius) res \(resolution): cell \(cell) of shard \(shard) missing")
        }
        return home != GeohashCell(lat: p.lat, lon: p.lon, precision: halo.precision)
    }

    @Test("every shard owning a cell an incident counts in is listed (every cell of the globe, resolutions 2, 3)")
    func coversExhaustiveSearch() {
        var homeElsewhere = 0
        for resolution in [2, 3] {
            let all = H3.allCells(resolution: resolution).map { (cell: $0, centre: $0.centre) }
            for shardPrecision in 1...5 {
                for radius in [1_000.0, 20_000, 50_000] {
                    let test = RadiusTest(radius: radius)
                    let halo = ShardHalo(precision: shardPrecision, grid: .h3(resolution: resolution), radius: radius)
                    let seed = UInt64(0x4833_5A00 + resolution * 16 + shardPrecision)
                    for p in Self.points(shardPrecision: shardPrecision, count: 12, seed: seed, polar: true) {
                        // 1° of latitude is more than 111 km: only cells within reach can count.
                        let reach = radius / 111_000 + 0.01
                        let near = all.filter { abs($0.centre.lat - p.lat) <= reach }
                        if Self.check(p, halo: halo, resolution: resolution, test: test, candidates: near) {
                            homeElsewhere += 1
                        }
                    }
                }
            }
        }
        // The case the rule exists for: an incident whose cell's centre lies in another shard.
        #expect(homeElsewhere > 100)
    }

    /// H3's box search around a point, split at the antimeridian (the search takes no box across it).
    static func cellsNear(_ p: Point, radius: Double, resolution: Int) -> [(cell: H3Cell, centre: Point)] {
        let delta = radius / Haversine.earthRadius / Haversine.radiansPerDegree * 1.01 + 1e-6
        let reach = delta / cos(min(89, abs(p.lat) + delta) * Haversine.radiansPerDegree) * 1.01 + 1e-6
        let south = p.lat - delta, north = p.lat + delta
        func box(_ west: Double, _ east: Double) -> GeoBox {
            GeoBox(minLat: south, minLon: west, maxLat: north, maxLon: east)
        }
        var boxes = [box(max(-180, p.lon - reach), min(180, p.lon + reach))]
        if p.lon - reach < -180 { boxes.append(box(p.lon - reach + 360, 180)) }
        if p.lon + reach > 180 { boxes.append(box(-180, p.lon + reach - 360)) }
        return boxes.flatMap { H3.cells(withCentreInside: $0, resolution: resolution) }.map { ($0, $0.centre) }
    }

    @Test("every shard owning a cell an incident counts in is listed (H3's box search, resolutions 7, 9)")
    func coversBoxSearch() {
        for resolution in [7, 9] {
            for shardPrecision in 2...5 {
                for radius in [500.0, 1_000, 3_000] {
                    let test = RadiusTest(radius: radius)
                    let halo = ShardHalo(precision: shardPrecision, grid: .h3(resolution: resolution), radius: radius)
                    let seed = UInt64(0x4833_5B00 + resolution * 16 + shardPrecision)
                    for p in Self.points(shardPrecision: shardPrecision, count: 8, seed: seed, polar: false) {
                        let near = Self.cellsNear(p, radius: radius, resolution: resolution)
                        _ = Self.check(p, halo: halo, resolution: resolution, test: test, candidates: near)
                    }
                }
            }
        }
    }

    @Test("the shard rule: geohash cells by prefix, H3 cells by the shard holding the centre")
    func ownership() {
        let geohash = ShardRule(precision: 3, grid: .geohash(precision: 6))
        let cell = GridSystem.geohash(precision: 6).cell(lat: 53.72, lon: -1.86)
        #expect(geohash.owner(of: cell) == GeohashCell("gcw")!)
        #expect(geohash.home(lat: 53.72, lon: -1.86) == GeohashCell("gcw")!)
        // A resolution-2 cell (~160 km across) holding a point whose centre lies in another
        // precision-3 shard (~156 × 156 km): found by walking points until one turns up.
        let rule = ShardRule(precision: 3, grid: .h3(resolution: 2))
        var found = false
        for k in 0..<200 where !found {
            let lat = 50 + Double(k) * 0.05, lon = -2 + Double(k) * 0.07
            let own = H3.cell(lat: lat, lon: lon, resolution: 2)
            let centre = own.centre
            let owner = GeohashCell(lat: centre.lat, lon: centre.lon, precision: 3)
            #expect(rule.owner(of: GridCellID(raw: own.index)) == owner)
            #expect(rule.home(lat: lat, lon: lon) == owner)
            found = owner != GeohashCell(lat: lat, lon: lon, precision: 3)
        }
        #expect(found)
    }

    @Test("an H3 cell's bounds hold its vertices; across the antimeridian and at a pole, every longitude")
    func cellBounds() {
        var rng = SplitMix64(seed: 0x4833_5C01)
        for _ in 0..<300 {
            let r = rng.int(0...12)
            let cell = H3.cell(lat: rng.uniform(-90, 90), lon: rng.uniform(-180, 180), resolution: r)
            let b = cell.bounds
            let ring = cell.boundary
            #expect(ring.allSatisfy { b.contains(lat: $0.lat, lon: $0.lon) })
            // Not crossing: the box is exactly the vertices' box.
            if ring.map(\.lon).max()! - ring.map(\.lon).min()! <= 180, abs(b.maxLat) < 90, abs(b.minLat) < 90 {
                #expect(b.minLat == ring.map(\.lat).min()! && b.maxLon == ring.map(\.lon).max()!)
            }
        }
        let fiji = H3.cell(lat: -16.5, lon: 180, resolution: 5)
        let lons = fiji.boundary.map(\.lon)
        #expect(lons.contains { $0 > 0 } && lons.contains { $0 < 0 }, "the cell at 180° straddles it")
        #expect(fiji.bounds.minLon == -180 && fiji.bounds.maxLon == 180)
        let pole = H3.cell(lat: 90, lon: 0, resolution: 4).bounds
        #expect(pole.maxLat == 90 && pole.minLon == -180 && pole.maxLon == 180)
    }
}
