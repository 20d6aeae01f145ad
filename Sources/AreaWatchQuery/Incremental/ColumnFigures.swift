import AreaWatchCore

/// The report's figures besides the grid — the totals (years, months, windows) and the
/// `--max-cells` estimate — from the columns in one linear pass, without an index: what an
/// incremental night (SPEC §20) needs when the grid comes from the grid count state, so that it
/// does not sort every stored incident for figures a pass can count.
///
/// Invariant: equal to `IncidentIndex.totals()` and `GridCellEstimate.cells(_:grid:)` over an
/// index of the same columns and parameters. Both are order-free: counts, and a sum of whole
/// numbers over the same groups (each group's box a union of the same points).
public struct ColumnFigures: Sendable {
    public var totals: Totals
    public var estimatedCells: Double

    public init(columns: IncidentColumns, parameters: QueryParameters, grid: GridSystem, threads: Int = 2) {
        let windows = parameters.windows
        let allowed = parameters.allowedCategories(in: columns)
        let finest = grid.geohashPrecision ?? Geohash.maxPrecision
        let radiusDegrees = parameters.radius / (Haversine.earthRadius * Haversine.radiansPerDegree)
        var group = finest
        while group > 1 && GeohashCell.latSpan(group) < radiusDegrees { group -= 1 }
        let shift = UInt64(64 - 5 * group)
        let chunks = IncidentIndex.chunks(columns.count, threads)
        let parts = Concurrency.map(chunks.count) { c in
            var part = Part()
            for i in chunks[c] where parameters.passes(columns, i, allowedCategories: allowed) {
                let t = columns.time[i]
                let membership = windows.membership(t)
                guard membership != .future else {
                    part.future += 1
                    continue
                }
                part.months.add(month: MonthSeries.number(of: t))
                guard membership != .older else { continue }
                if membership == .current { part.current += 1 } else { part.previous += 1 }
                let (lat, lon) = (columns.lat[i], columns.lon[i])
                part.groups[Geohash.code(lat: lat, lon: lon) >> shift, default: GeoBox.empty].include(
                    lat: lat, lon: lon)
            }
            return part
        }
        var all = Part()
        for part in parts { all.merge(part) }
        totals = all.totals
        estimatedCells = GridCellEstimate.cells(
            groups: Array(all.groups.values), radiusDegrees: radiusDegrees, grid: grid)
    }

    /// One chunk's counts.
    private struct Part {
        var months = MonthCounter()
        var current = 0, previous = 0, future = 0
        /// Geohash group of the windowed incidents → the box around them.
        var groups: [UInt64: GeoBox] = [:]

        mutating func merge(_ other: Part) {
            months.add(other.months)
            current += other.current
            previous += other.previous
            future += other.future
            groups.merge(other.groups) { a, b in
                var box = a
                box.include(lat: b.minLat, lon: b.minLon)
                box.include(lat: b.maxLat, lon: b.maxLon)
                return box
            }
        }

        /// SPEC §7's totals as the index counts them: the years present (of the incidents not in
        /// the future), their counts and months, the windows, older ones and future ones.
        var totals: Totals {
            var years: [Int] = [], yearCounts: [Int] = []
            for (k, n) in months.counts.enumerated() where n > 0 {
                let year = MonthSeries.year(ofMonth: months.first + k)
                if years.last != year {
                    years.append(year)
                    yearCounts.append(0)
                }
                yearCounts[yearCounts.count - 1] += n
            }
            let count = yearCounts.reduce(0, +)
            return Totals(
                years: years, yearCounts: yearCounts, current: current, previous: previous,
                older: count - current - previous, excludedFuture: future,
                months: months.series)
        }
    }
}

extension GeoBox {
    static let empty = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
}

extension GridCellEstimate {
    /// The estimate from the boxes of the groups of windowed incidents (any order): each group's
    /// cells summed, capped by the cells of the box around them all; 0 without a group.
    static func cells(groups: [GeoBox], radiusDegrees: Double, grid: GridSystem) -> Double {
        func count(_ box: GeoBox) -> Double {
            switch grid {
            case .geohash(let precision): cells(in: box, radiusDegrees: radiusDegrees, precision: precision)
            case .h3(let resolution): h3Cells(in: box, radiusDegrees: radiusDegrees, resolution: resolution)
            }
        }
        guard var extent = groups.first else { return 0 }
        var total = 0.0
        for box in groups {
            total += count(box)
            extent.include(lat: box.minLat, lon: box.minLon)
            extent.include(lat: box.maxLat, lon: box.maxLon)
        }
        return min(total, count(extent))
    }
}
