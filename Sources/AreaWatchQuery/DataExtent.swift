import AreaWatchCore

/// What the data holds once the filters are applied, at any time (older and future incidents
/// included): how many incidents, their time range and their box. `--as-of latest` (SPEC §7),
/// the empty-windows warning and the `coverage` of answers (SPEC §7.1) are decided from it.
public struct DataExtent: Sendable, Equatable {
    public var count: Int
    public var firstTime: Int64
    public var lastTime: Int64
    /// The smallest box holding every incident (the exact coordinates: for `query` only).
    public var box: GeoBox
    /// The box public outputs carry (the tiles, SPEC §8, §18): the union of the report grid's cells
    /// holding at least `--min-cell-count` incidents, so that it shows cell edges, never an
    /// incident's coordinate, and a cell of fewer than K incidents looks like nothing there (SPEC
    /// §10). A geohash cell adds its bounds, an H3 cell its `H3Cell.bounds`. nil when no cell
    /// qualifies.
    public var publishedBox: GeoBox?

    /// `init(columns:parameters:grid:…)` on the geohash grid of `cellPrecision`.
    public init?(
        columns: IncidentColumns, parameters: QueryParameters, cellPrecision: Int, minCellCount: Int = 1,
        shards: Set<GeohashCell>? = nil, threads: Int = 2
    ) {
        self.init(
            columns: columns, parameters: parameters, grid: .geohash(precision: cellPrecision),
            minCellCount: minCellCount, shards: shards, threads: threads)
    }

    /// The extent of the incidents of `columns` that pass `parameters`' filters (its as-of plays
    /// no part) and, with `shards`, whose home (`ShardRule.home`) is one of them; nil when there
    /// is none. `grid` and `minCellCount` define `publishedBox`.
    public init?(
        columns: IncidentColumns, parameters: QueryParameters, grid: GridSystem, minCellCount: Int = 1,
        shards: Set<GeohashCell>? = nil, threads: Int = 2
    ) {
        guard
            let extent = Self.measure(
                columns: columns, parameters: parameters, grid: grid, minCellCount: minCellCount,
                shards: shards, threads: threads
            ).extent
        else { return nil }
        self = extent
    }

    /// `init(columns:parameters:grid:…)`, and on an H3 grid without `shards` the cell of every
    /// row it located on the way (`ColumnCells`), for the grid to take instead of locating every
    /// incident again.
    public static func measure(
        columns: IncidentColumns, parameters: QueryParameters, grid: GridSystem, minCellCount: Int = 1,
        shards: Set<GeohashCell>? = nil, threads: Int = 2
    ) -> (extent: DataExtent?, cells: ColumnCells?) {
        let allowed = parameters.allowedCategories(in: columns)
        let rule = shards?.first.map { ShardRule(precision: $0.precision, grid: grid) }
        let geohashPrecision = grid.geohashPrecision
        // Geohash cells are counted only for K > 1 (below, the extreme incidents' cells give the
        // union of every occupied cell); H3 cells always.
        let countCells = minCellCount > 1 || geohashPrecision == nil
        let keepRows = geohashPrecision == nil && shards == nil
        var rowCells = [UInt64](repeating: 0, count: keepRows ? columns.count : 0)
        let chunks = IncidentIndex.chunks(columns.count, threads)
        let parts = rowCells.withUnsafeMutableBufferPointer { buffer in
            let rowCells = UnsafeMutableSendableBuffer(buffer)
            return Concurrency.map(chunks.count) { c -> (DataExtent?, [UInt64]) in
                var count = 0, first = Int64.max, last = Int64.min
                var box = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
                var cells: [UInt64] = []
                for i in chunks[c] where parameters.passes(columns, i, allowedCategories: allowed) {
                    let lat = columns.lat[i], lon = columns.lon[i], time = columns.time[i]
                    if let p = geohashPrecision {
                        if let shards, let rule,
                            !shards.contains(GeohashCell(lat: lat, lon: lon, precision: rule.precision))
                        {
                            continue
                        }
                        if countCells { cells.append(Geohash.code(lat: lat, lon: lon) >> UInt64(64 - 5 * p)) }
                    } else {
                        let id = grid.cell(lat: lat, lon: lon)
                        if let shards, let rule, !shards.contains(rule.owner(of: id)) { continue }
                        if keepRows { rowCells[i] = id.raw } else { cells.append(id.raw) }
                    }
                    count += 1
                    first = min(first, time)
                    last = max(last, time)
                    box.minLat = min(box.minLat, lat)
                    box.maxLat = max(box.maxLat, lat)
                    box.minLon = min(box.minLon, lon)
                    box.maxLon = max(box.maxLon, lon)
                }
                let part =
                    count == 0
                    ? nil
                    : DataExtent(count: count, firstTime: first, lastTime: last, box: box, publishedBox: nil)
                return (part, cells)
            }
        }
        var merged: DataExtent?
        for part in parts { merged.add(part.0) }
        guard var extent = merged else { return (nil, nil) }
        if countCells {
            // No H3 index is 0: the rows the filters leave out.
            let cells = keepRows ? rowCells.filter { $0 != 0 } : parts.flatMap(\.1)
            extent.publishedBox = DataExtent.box(ofCells: cells, grid: grid, minCount: minCellCount)
        } else if let p = geohashPrecision {
            let south = GeohashCell(lat: extent.box.minLat, lon: extent.box.minLon, precision: p).bounds
            let north = GeohashCell(lat: extent.box.maxLat, lon: extent.box.maxLon, precision: p).bounds
            extent.publishedBox = GeoBox(
                minLat: south.minLat, minLon: south.minLon,
                maxLat: north.maxLat, maxLon: north.maxLon)
        }
        return (extent, keepRows ? ColumnCells(grid: grid, raw: rowCells) : nil)
    }

    public init(count: Int, firstTime: Int64, lastTime: Int64, box: GeoBox, publishedBox: GeoBox?) {
        self.count = count
        self.firstTime = firstTime
        self.lastTime = lastTime
        self.box = box
        self.publishedBox = publishedBox
    }

    /// The union of the cells of `grid` (their raw ids) that occur at least `minCount` times.
    static func box(ofCells cells: [UInt64], grid: GridSystem, minCount: Int) -> GeoBox? {
        var sorted = cells
        sorted.sort()
        var box: GeoBox?
        var k = 0
        while k < sorted.count {
            var end = k + 1
            while end < sorted.count && sorted[end] == sorted[k] { end += 1 }
            if end - k >= minCount {
                box = GeoBox.union(box, grid.bounds(of: GridCellID(raw: sorted[k])))
            }
            k = end
        }
        return box
    }

    /// The data's time range as text, for messages: `FIRST to LAST`.
    public var timeRange: String { "\(UTCTime.iso8601(firstTime)) to \(UTCTime.iso8601(lastTime))" }

    /// SPEC §7's warning when both windows hold nothing while the data holds incidents (the usual
    /// cause: the default as-of, today, over last year's file); nil when a window holds any.
    public func emptyWindowsWarning(current: Int, previous: Int, asOf: Int64) -> String? {
        guard current == 0, previous == 0 else { return nil }
        return "no incident lies in the current or previous window (the two years to \(UTCTime.iso8601(asOf))), "
            + "but the data holds \(count) incident(s) from \(timeRange): "
            + "give --as-of latest, or an --as-of within a year after them"
    }
}

/// Every column row's cell on one H3 grid, 0 for a row the filters leave out (no H3 index is 0):
/// found once, while the extent is measured (`DataExtent.measure`), and taken by the grid.
public struct ColumnCells: Sendable {
    public let grid: GridSystem
    public let raw: [UInt64]
}

extension Optional where Wrapped == DataExtent {
    /// Merges another part's extent (the parts of one run, or the shards of a scale-out run).
    public mutating func add(_ other: DataExtent?) {
        guard let other else { return }
        guard var extent = self else {
            self = other
            return
        }
        extent.count += other.count
        extent.firstTime = min(extent.firstTime, other.firstTime)
        extent.lastTime = max(extent.lastTime, other.lastTime)
        extent.box = GeoBox.union(extent.box, other.box)
        if let published = other.publishedBox { extent.publishedBox = GeoBox.union(extent.publishedBox, published) }
        self = extent
    }
}

extension GeoBox {
    /// The smallest box holding both (`box` nil: `other` alone).
    public static func union(_ box: GeoBox?, _ other: GeoBox) -> GeoBox {
        guard let box else { return other }
        return GeoBox(
            minLat: min(box.minLat, other.minLat), minLon: min(box.minLon, other.minLon),
            maxLat: max(box.maxLat, other.maxLat), maxLon: max(box.maxLon, other.maxLon))
    }
}
