/// The space-time cube of SPEC §13: locations (cells of one grid, ascending `GridCellID.raw`:
/// geohash order at a fixed precision, H3 index order; SPEC §18) × N monthly steps, x = incidents
/// inside the cell in the step. Zeros are observations too.
public struct HotSpotCube: Sendable {
    public let grid: GridSystem
    public let steps: Int
    /// The locations' cell ids (`GridCellID.raw`: a geohash prefix or an H3 index), strictly ascending.
    public let cells: [UInt64]
    /// counts[l·N + (s − 1)]: location-major, one row of N steps per location.
    public let counts: [Int32]

    /// Neighbour slots per location: a geohash cell's 8 adjacent cells, or an H3 cell's at most 6.
    static let slots = 8

    public init(grid: GridSystem, steps: Int, cells: [UInt64], counts: [Int32]) {
        precondition(grid.problem == nil && steps >= 2)
        precondition(counts.count == cells.count * steps, "a count per location and step")
        precondition(zip(cells, cells.dropFirst()).allSatisfy { $0 < $1 }, "cells strictly ascending")
        self.grid = grid
        self.steps = steps
        self.cells = cells
        self.counts = counts
    }

    /// The index of a cell among the locations (binary search).
    public func location(of prefix: UInt64) -> Int? {
        var lo = 0, hi = cells.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if cells[mid] < prefix { lo = mid + 1 } else { hi = mid }
        }
        return lo < cells.count && cells[lo] == prefix ? lo : nil
    }

    /// The locations among each location's adjacent cells, −1 for none; 8 slots per location.
    /// Geohash: the 8 adjacent cells (longitude wraps across the antimeridian, nothing beyond a
    /// pole). H3: gridDisk(cell, 1) without the cell itself, 6 cells or 5 for a pentagon (SPEC §18).
    public func neighbours() -> [Int32] {
        var result = [Int32](repeating: -1, count: cells.count * Self.slots)
        for l in cells.indices {
            var slot = 0
            func add(_ neighbour: UInt64) {
                if let k = location(of: neighbour) {
                    result[l * Self.slots + slot] = Int32(k)
                    slot += 1
                }
            }
            switch grid {
            case .geohash(let precision):
                let cell = GeohashCell(prefix: cells[l], precision: precision)
                for neighbour in cell.neighbours { add(neighbour.prefix) }
            case .h3:
                for neighbour in grid.neighbours(of: GridCellID(raw: cells[l])) { add(neighbour.raw) }
            }
        }
        return result
    }
}

/// One location's emerging-hot-spot answer (a row of `ehsa.csv`).
public struct HotSpotLocation: Sendable {
    /// The location's cell, as a number of its grid system.
    public let id: GridCellID
    public let system: GridSystem
    public let label: HotSpotLabel
    public let trend: MannKendall
    /// |H| and |C|: steps whose bin is a significant hot / cold spot.
    public let hotSteps: Int
    public let coldSteps: Int
    /// Gi* z and BH q of the location's bins, step 1…N.
    public let z: [Double]
    public let q: [Double]
    /// Incidents of the location over the whole cube.
    public let incidents: Int

    /// The geohash cell of a location of a geohash cube (the outputs drawn on the geohash lattice).
    public var cell: GeohashCell {
        guard case .geohash(let precision) = system else { preconditionFailure("a geohash cell of an H3 cube") }
        return GeohashCell(prefix: id.raw, precision: precision)
    }

    /// The cell's centre in its grid system (a geohash cell's bounds midpoint, H3's cellToLatLng).
    public var centre: (lat: Double, lon: Double) { system.centre(of: id) }

    /// The cell's id text: its geohash, or the 15 hexadecimal digits of its H3 index.
    public var text: String { system.text(of: id) }

    public var zLast: Double { z[z.count - 1] }
    public var qLast: Double { q[q.count - 1] }
}

/// The cube-wide numbers behind the z scores.
public struct HotSpotSummary: Sendable, Hashable {
    /// n = N·|L| bins, x̄, S = √(Σx²/n − x̄²).
    public let bins: Int
    public let mean: Double
    public let standardDeviation: Double
    public let hotBins: Int
    public let coldBins: Int
}

/// Emerging hot spot analysis (SPEC §13): Getis-Ord Gi* of every bin over the whole cube with
/// binary space-time weights (the location and its adjacent locations, in the step and the one
/// before), Benjamini–Hochberg over all bins, Mann-Kendall on each location's z series, labels.
public enum EmergingHotSpots {
    public static func analyse(_ cube: HotSpotCube, alpha: Double = 0.05)
        -> (locations: [HotSpotLocation], summary: HotSpotSummary)
    {
        let steps = cube.steps, count = cube.cells.count
        let bins = steps * count
        guard count > 0 else {
            return ([], HotSpotSummary(bins: 0, mean: 0, standardDeviation: 0, hotBins: 0, coldBins: 0))
        }
        let (spatial, degree, total, squares) = neighbourhoodSums(cube)

        // Gi* depends on (neighbourhood sum, W) alone: z, p and q per distinct key, BH over all n
        // bins by counting each key's bins (ties share a q whatever their order).
        let n = Double(bins)
        let mean = Double(total) / n
        let sd = (Double(squares) / n - mean * mean).squareRoot()
        @inline(__always) func key(_ l: Int, _ s: Int) -> Int {
            let sum = spatial[l * steps + s] + (s > 0 ? spatial[l * steps + s - 1] : 0)
            let w = (1 + degree[l]) * (s > 0 ? 2 : 1)
            return sum << 5 | w
        }
        var keyCounts: [Int: Int] = [:]
        for l in 0..<count { for s in 0..<steps { keyCounts[key(l, s), default: 0] += 1 } }
        func zScore(_ key: Int) -> Double {
            let sum = Double(key >> 5), w = Double(key & 31)
            guard sd > 0 else { return 0 }
            return (sum - mean * w) / (sd * ((n * w - w * w) / (n - 1)).squareRoot())
        }
        let distinct = keyCounts.keys.map { k -> (key: Int, z: Double, p: Double) in
            let z = zScore(k)
            return (k, z, NormalDistribution.twoSidedP(z))
        }.sorted { $0.p != $1.p ? $0.p < $1.p : $0.key < $1.key }
        // Merge equal p-values (e.g. z and −z) into one BH group.
        var groupP: [Double] = [], groupCount: [Int] = [], groupOf = [Int](repeating: 0, count: distinct.count)
        for (i, d) in distinct.enumerated() {
            if groupP.last != d.p {
                groupP.append(d.p)
                groupCount.append(0)
            }
            groupCount[groupCount.count - 1] += keyCounts[d.key]!
            groupOf[i] = groupP.count - 1
        }
        let groupQ = BenjaminiHochberg.adjust(distinct: groupP, counts: groupCount)
        var byKey: [Int: (z: Double, q: Double)] = [:]
        byKey.reserveCapacity(distinct.count)
        for (i, d) in distinct.enumerated() { byKey[d.key] = (d.z, groupQ[groupOf[i]]) }

        var locations: [HotSpotLocation] = []
        locations.reserveCapacity(count)
        var hotBins = 0, coldBins = 0
        for l in 0..<count {
            var z = [Double](repeating: 0, count: steps), q = z
            var hot = [Bool](repeating: false, count: steps), cold = hot
            var incidents = 0
            for s in 0..<steps {
                let value = byKey[key(l, s)]!
                z[s] = value.z
                q[s] = value.q
                hot[s] = value.q <= alpha && value.z > 0
                cold[s] = value.q <= alpha && value.z < 0
                incidents += Int(cube.counts[l * steps + s])
            }
            let trend = MannKendall(z)
            let hotSteps = hot.reduce(0) { $0 + ($1 ? 1 : 0) }
            let coldSteps = cold.reduce(0) { $0 + ($1 ? 1 : 0) }
            hotBins += hotSteps
            coldBins += coldSteps
            locations.append(
                HotSpotLocation(
                    id: GridCellID(raw: cube.cells[l]), system: cube.grid,
                    label: HotSpotLabel.classify(hot: hot, cold: cold, trendZ: trend.z, trendP: trend.p),
                    trend: trend, hotSteps: hotSteps, coldSteps: coldSteps, z: z, q: q, incidents: incidents))
        }
        return (
            locations,
            HotSpotSummary(
                bins: bins, mean: mean, standardDeviation: sd,
                hotBins: hotBins, coldBins: coldBins)
        )
    }

    /// spatial[l·N + s] = x of l and its adjacent locations in step s; degree = their number;
    /// the sum and the sum of squares of every bin's count.
    static func neighbourhoodSums(_ cube: HotSpotCube) -> (spatial: [Int], degree: [Int], total: Int, squares: Int) {
        let steps = cube.steps, count = cube.cells.count, bins = steps * count
        let neighbours = cube.neighbours()
        var spatial = [Int](repeating: 0, count: bins)
        var degree = [Int](repeating: 0, count: count)
        var total = 0, squares = 0
        cube.counts.withUnsafeBufferPointer { x in
            spatial.withUnsafeMutableBufferPointer { out in
                for l in 0..<count {
                    let row = l * steps
                    for s in 0..<steps {
                        let v = Int(x[row + s])
                        out[row + s] = v
                        total += v
                        squares += v * v
                    }
                    for slot in 0..<HotSpotCube.slots {
                        let k = Int(neighbours[l * HotSpotCube.slots + slot])
                        if k < 0 { break }
                        degree[l] += 1
                        let other = k * steps
                        for s in 0..<steps { out[row + s] += Int(x[other + s]) }
                    }
                }
            }
        }
        return (spatial, degree, total, squares)
    }
}
