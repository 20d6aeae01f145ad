import Glibc

/// The cells whose centre lies within the radius of a location (SPEC §7.2's first condition,
/// seen from one incident), for each grid system. Both searches enumerate a superset that is
/// provably complete and then keep exactly the centres `RadiusTest` accepts, the test every
/// other "within" decision uses.
extension H3 {
    /// Every cell of `resolution` whose centre is within the radius of (lat, lon), ascending.
    ///
    /// Completeness: the cells that meet the closed disc of the radius around the location form a
    /// set connected through shared edges (a connected disc covered by closed cells; three H3
    /// cells meet at each vertex, so cells that touch share an edge), and it holds the location's
    /// own cell. Grid distance changes by at most one per shared edge, so if a cell beyond
    /// gridDisk(k) met the disc, some cell at distance exactly k would too. A cell meets the disc
    /// only if its centre is within radius + ρ of the location, ρ being the distance from its
    /// centre to its farthest vertex (its edges are great-circle arcs). So once every ring-k cell
    /// is farther than that, gridDisk(k) holds every cell whose centre is within the radius; k
    /// grows until it is. The first k, from H3's average edge length, is only a guess that
    /// usually suffices: the check, not the guess, makes the result complete.
    public static func cells(
        withCentreWithin test: RadiusTest, ofLat lat: Double, lon: Double,
        resolution: Int
    ) -> [H3Cell] {
        cellsAndCentres(withCentreWithin: test, ofLat: lat, lon: lon, resolution: resolution).map(\.cell)
    }

    /// `cells(withCentreWithin:…)` with each cell's centre (the grid needs both); `geometry` keeps
    /// the centres and circumradii it computes for the next call (the grid's searches overlap).
    public static func cellsAndCentres(
        withCentreWithin test: RadiusTest, ofLat lat: Double, lon: Double,
        resolution: Int, geometry: H3Geometry = H3Geometry()
    )
        -> [(cell: H3Cell, centre: H3Geometry.Centre)]
    {
        guard test.threshold >= 0 else { return [] }
        let origin = cell(lat: lat, lon: lon, resolution: resolution)
        let edge = averageEdgeLength(resolution: resolution)
        // Rings of a regular hexagon lattice are at least 1.5 edges apart; 1.2 leaves room for
        // H3's distortion, and the location may be up to an edge from its own centre.
        var k = max(1, Int(((test.radius + 2 * edge) / (1.2 * edge)).rounded(.up)))
        while true {
            let disk = diskWithDistances(origin, k)
            let complete = disk.allSatisfy {
                $0.distance < k || farFromDisc($0.cell, lat: lat, lon: lon, radius: test.radius, geometry: geometry)
            }
            if complete {
                let here = UnitVector(lat: lat, lon: lon), band = test.chordBand
                var within: [(cell: H3Cell, centre: H3Geometry.Centre)] = []
                for (cell, _) in disk {
                    let c = geometry.centre(of: cell)
                    let q = here.quarterChordSquared(to: c.vector)
                    if q <= band.certainlyWithin
                        || (q <= band.certainlyBeyond && test.contains(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon))
                    {
                        within.append((cell, c))
                    }
                }
                return within.sorted { $0.cell < $1.cell }
            }
            k += k / 2 + 1
        }
    }

    /// Whether a cell cannot meet the disc of `radius` around (lat, lon): its centre is farther
    /// than radius + its circumradius, with a margin far above the haversine's rounding.
    static func farFromDisc(_ cell: H3Cell, lat: Double, lon: Double, radius: Double, geometry: H3Geometry) -> Bool {
        let c = geometry.centre(of: cell)
        let reach = radius + geometry.circumradius(of: cell)
        return Haversine.distance(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon) > reach + 1e-6 * reach + 1e-3
    }
}

extension H3Cell {
    /// The distance in metres (SPEC §7's haversine) from the cell's centre to its farthest
    /// boundary vertex: every point of the cell is within it (its edges are great-circle arcs).
    public var circumradius: Double {
        let c = centre
        return boundary.map { Haversine.distance(lat1: c.lat, lon1: c.lon, lat2: $0.lat, lon2: $0.lon) }.max() ?? 0
    }
}

/// Centres and circumradii of H3 cells, each computed once and kept: the H3 grid searches around
/// every occupied cell, and neighbouring searches ask for mostly the same cells. One per thread.
public final class H3Geometry {
    /// A cell's centre (cellToLatLng) in degrees and as a unit vector, for the chord test.
    public struct Centre: Sendable {
        public let lat: Double
        public let lon: Double
        public let vector: UnitVector
    }

    private var centres: [UInt64: Centre] = [:]
    private var circumradii: [UInt64: Double] = [:]

    public init() {}

    public func centre(of cell: H3Cell) -> Centre {
        if let known = centres[cell.index] { return known }
        let (lat, lon) = cell.centre
        let c = Centre(lat: lat, lon: lon, vector: UnitVector(lat: lat, lon: lon))
        centres[cell.index] = c
        return c
    }

    public func circumradius(of cell: H3Cell) -> Double {
        if let known = circumradii[cell.index] { return known }
        let r = cell.circumradius
        circumradii[cell.index] = r
        return r
    }
}

extension GeohashCell {
    /// Every cell of `precision` whose centre is within the radius of (lat, lon), in geohash order.
    ///
    /// Centres form a lattice of rows and columns; along one row the haversine term grows with the
    /// longitude gap, so the centres within the radius are one run of columns around the
    /// location. The run's ends come from inverting the haversine term and are widened by a
    /// margin above its rounding; `RadiusTest` then decides each centre.
    public static func cells(
        withCentreWithin test: RadiusTest, ofLat lat: Double, lon: Double,
        precision: Int
    ) -> [GeohashCell] {
        guard test.threshold >= 0 else { return [] }
        let h = latSpan(precision), w = lonSpan(precision)
        let rowCount = Int64(1) << Int64(latBitCount(precision))
        let columnCount = Int64(1) << Int64(lonBitCount(precision))
        let reach = test.threshold >= 1 ? 180 : 2 * asin(test.threshold.squareRoot()) / Haversine.radiansPerDegree
        let firstRow = max(0, Int64(((lat - reach + 90) / h).rounded(.down)) - 1)
        let lastRow = min(rowCount - 1, Int64(((lat + reach + 90) / h).rounded(.down)) + 1)
        guard firstRow <= lastRow else { return [] }
        let marginColumns = Int64((1e-6 / w).rounded(.up)) + 1
        var cells: [GeohashCell] = []
        for row in firstRow...lastRow {
            let rowLat = centreLatitude(row: row, precision: precision)
            let columns = columnRun(
                test: test, lat: lat, lon: lon, rowLat: rowLat, columnWidth: w,
                columnCount: columnCount, margin: marginColumns)
            for unwrapped in columns {
                let column = (unwrapped % columnCount + columnCount) % columnCount
                let centreLon = centreLongitude(column: column, precision: precision)
                if test.contains(lat1: lat, lon1: lon, lat2: rowLat, lon2: centreLon) {
                    cells.append(GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: precision))
                }
            }
        }
        return cells.sorted()
    }

    /// The columns (unwrapped: they may pass either end of the lattice) that may hold centres
    /// within the radius on the row at `rowLat`: all of them where the circle spans every longitude.
    private static func columnRun(
        test: RadiusTest, lat: Double, lon: Double, rowLat: Double, columnWidth w: Double,
        columnCount: Int64, margin: Int64
    ) -> ClosedRange<Int64> {
        let all: ClosedRange<Int64> = 0...(columnCount - 1)
        let sinHalfDLat = sin((rowLat - lat) * Haversine.radiansPerDegree / 2)
        let cosProduct = cos(lat * Haversine.radiansPerDegree) * cos(rowLat * Haversine.radiansPerDegree)
        let rest = test.threshold - sinHalfDLat * sinHalfDLat
        // A small negative rest may still be a rounding of zero: keep the row's nearest columns.
        let sinSquared = rest <= 0 ? 0 : (cosProduct <= 0 ? 2 : rest / cosProduct)
        guard sinSquared < 1 else { return all }
        let halfWidth = 2 * asin(sinSquared.squareRoot()) / Haversine.radiansPerDegree
        let first = Int64(((lon - halfWidth + 180) / w).rounded(.down)) - margin
        let last = Int64(((lon + halfWidth + 180) / w).rounded(.down)) + margin
        return last - first + 1 >= columnCount ? all : first...last
    }
}
