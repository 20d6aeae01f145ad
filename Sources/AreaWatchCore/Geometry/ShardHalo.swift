#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which geohash-prefix shards an incident is copied to in a sharded run (SPEC §15, §18): the shard
/// that owns its own grid cell, and every shard with any point within the radius of it (the halo).
///
/// A shard owns the grid cells whose centre it holds (`ShardRule`). A geohash cell's centre lies
/// inside its shard at least half a grid cell from its edges; an H3 cell's centre can lie anywhere
/// in the shard's box (inset 0). So a shard whose box of cell centres is farther than the radius
/// from the incident holds no cell the incident counts in (near a pole a geohash shard's box keeps
/// clear of the pole, which spares a copy to every shard around it). The test is conservative —
/// over-including costs a copy, under-including would change a count — so it uses a lower bound
/// of the distance on the sphere (`SphericalBounds.minHalfChord`, exact across the antimeridian and
/// near the poles) with a relative margin of 1e-6 on the haversine term. An H3 incident also goes
/// to the shard holding its own cell's centre, which at coarse resolutions can lie beyond the
/// radius (the cell's circumradius exceeds it): that shard counts it inside the cell.
public struct ShardHalo: Sendable {
    public let precision: Int
    public let grid: GridSystem
    public let radius: Double
    /// Which shard owns a cell, and which one an incident counts inside.
    public let rule: ShardRule
    /// The largest haversine term `a` a shard box may have and still be a halo shard.
    let limit: Double
    /// Half the latitude extent of the search, in degrees, with margin.
    let latReach: Double
    let latCount: Int64
    let lonCount: Int64
    let latSpan: Double
    let lonSpan: Double
    /// The margin between a shard's edges and its outermost cell centres: half a geohash grid
    /// cell, 0 for H3.
    let insetLat: Double
    let insetLon: Double

    /// Shards of a geohash grid of precision `gridPrecision`.
    public init(precision: Int, gridPrecision: Int, radius: Double) {
        self.init(precision: precision, grid: .geohash(precision: gridPrecision), radius: radius)
    }

    /// - Parameters:
    ///   - precision: the shards' geohash precision: at most a geohash grid's precision, any
    ///     (1…12) for an H3 grid.
    ///   - grid: the grid whose cells the shards own.
    public init(precision: Int, grid: GridSystem, radius: Double) {
        rule = ShardRule(precision: precision, grid: grid)
        self.precision = precision
        self.grid = grid
        if let gridPrecision = grid.geohashPrecision {
            insetLat = GeohashCell.latSpan(gridPrecision) / 2
            insetLon = GeohashCell.lonSpan(gridPrecision) / 2
        } else {
            insetLat = 0
            insetLon = 0
        }
        self.radius = max(0, radius)
        let angle = self.radius / Haversine.earthRadius
        let s = sin(min(angle, Double.pi) / 2)
        limit = s * s * (1 + 1e-6) + 1e-18
        latReach = angle / Haversine.radiansPerDegree * (1 + 1e-6) + 1e-9
        latCount = Int64(1) << Int64(GeohashCell.latBitCount(precision))
        lonCount = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
        latSpan = GeohashCell.latSpan(precision)
        lonSpan = GeohashCell.lonSpan(precision)
    }

    /// The shard an incident at a point counts inside: the one owning the point's grid cell.
    @inline(__always)
    public func home(lat: Double, lon: Double) -> GeohashCell {
        rule.home(lat: lat, lon: lon)
    }

    /// Half the longitude extent of the circle at latitudes up to `highest` (degrees, with
    /// margin), or nil when the circle may reach every longitude (it contains a pole, or nearly).
    @inline(__always)
    func lonReach(highest: Double) -> Double? {
        let rad = Haversine.radiansPerDegree
        guard highest < 89.999 else { return nil }
        // On a sphere, a circle of angular radius δ centred at latitude φ spans
        // asin(sin δ / cos φ) of longitude each side; φ is taken at the band's highest |latitude|.
        let ratio = sin(latReach * rad) / cos(highest * rad)
        guard ratio < 0.99 else { return nil }
        return asin(ratio) / rad * (1 + 1e-6) + 1e-9
    }

    /// Every shard the incident at (lat, lon) goes to, its home shard first, the rest in
    /// geohash order.
    public func shards(lat: Double, lon: Double) -> [GeohashCell] {
        let home = self.home(lat: lat, lon: lon)
        // The shard holding the point (its home too, but for an H3 cell whose centre is elsewhere).
        let holder = GeohashCell(lat: lat, lon: lon, precision: precision)
        let south = max(-90, lat - latReach), north = min(90, lat + latReach)
        let highest = max(abs(south), abs(north))
        let reach = lonReach(highest: highest)
        // Most incidents lie well inside their shard: the circle's box inside the holder's box,
        // so no other shard has a point within the radius.
        if let reach {
            let b = holder.bounds
            if south > b.minLat && north < b.maxLat && lon - reach > b.minLon && lon + reach < b.maxLon {
                return holder == home ? [home] : [home, holder]
            }
        }
        var out = [home]
        let rad = Haversine.radiansPerDegree
        let cosLat = cos(lat * rad)
        let firstRow = max(0, Int64(((south + 90) / latSpan).rounded(.down)) - 1)
        let lastRow = min(latCount - 1, Int64(((north + 90) / latSpan).rounded(.down)) + 1)
        var columns: [Int64]
        if let reach, 2 * reach / lonSpan + 3 < Double(lonCount) {
            let first = Int64(((lon - reach + 180) / lonSpan).rounded(.down)) - 1
            let last = Int64(((lon + reach + 180) / lonSpan).rounded(.down)) + 1
            columns = (first...last).map { (($0 % lonCount) + lonCount) % lonCount }
        } else {
            columns = Array(0..<lonCount)
        }
        var found: [GeohashCell] = []
        var seen = Set<UInt64>()
        for row in firstRow...lastRow {
            for column in columns where seen.insert(UInt64(row) << 32 | UInt64(column)).inserted {
                let cell = GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: precision)
                guard cell != home else { continue }
                let b = cell.bounds
                let centres = GeoBox(
                    minLat: b.minLat + insetLat, minLon: b.minLon + insetLon,
                    maxLat: b.maxLat - insetLat, maxLon: b.maxLon - insetLon)
                if SphericalBounds.minHalfChord(lat: lat, lon: lon, cosLat: cosLat, box: centres) <= limit {
                    found.append(cell)
                }
            }
        }
        found.sort()
        out.append(contentsOf: found)
        return out
    }
}

/// Which shard owns a grid cell in a sharded run (SPEC §15, §18): the geohash-prefix shard of
/// `precision` that holds the cell's centre; and the shard an incident counts inside: the owner of
/// its own cell. For a geohash grid, a cell lies inside one shard, so both are the shard holding
/// the point; for an H3 grid, a cell's centre can lie in another shard than some of its incidents.
public struct ShardRule: Sendable, Hashable {
    public let precision: Int
    public let grid: GridSystem

    public init(precision: Int, grid: GridSystem) {
        precondition(grid.problem == nil, "a valid grid")
        precondition(
            (1...Geohash.maxPrecision).contains(precision)
                && precision <= (grid.geohashPrecision ?? Geohash.maxPrecision),
            "a shard precision within 1…12, at most a geohash grid's precision")
        self.precision = precision
        self.grid = grid
    }

    /// The shard owning a cell of `grid`.
    @inline(__always)
    public func owner(of cell: GridCellID) -> GeohashCell {
        switch grid {
        case .geohash(let p): return GeohashCell(prefix: cell.raw, precision: p).parent(precision: precision)
        case .h3:
            let centre = H3Cell(validIndex: cell.raw).centre
            return GeohashCell(lat: centre.lat, lon: centre.lon, precision: precision)
        }
    }

    /// The shard an incident at a point counts inside: the owner of the point's cell.
    @inline(__always)
    public func home(lat: Double, lon: Double) -> GeohashCell {
        switch grid {
        case .geohash: GeohashCell(lat: lat, lon: lon, precision: precision)
        case .h3: owner(of: grid.cell(lat: lat, lon: lon))
        }
    }
}
