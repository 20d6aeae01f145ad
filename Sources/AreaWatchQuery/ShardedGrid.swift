import AreaWatchCore

/// One grid cell as a shard reports it to the merge (SPEC §15): every figure the grid writers
/// need, with its calendar-year counts by year value (a shard does not know the global year list).
public struct ShardCell: Sendable, Equatable {
    public var prefix: UInt64
    public var nCurrent: Int
    public var nPrevious: Int
    public var rCurrent: Int
    public var rPrevious: Int
    public var handled: Int
    /// (calendar year, incidents inside the cell), ascending by year, counts > 0.
    public var years: [(year: Int, count: Int)]

    public init(
        prefix: UInt64, nCurrent: Int, nPrevious: Int, rCurrent: Int, rPrevious: Int, handled: Int,
        years: [(year: Int, count: Int)]
    ) {
        self.prefix = prefix
        self.nCurrent = nCurrent
        self.nPrevious = nPrevious
        self.rCurrent = rCurrent
        self.rPrevious = rPrevious
        self.handled = handled
        self.years = years
    }

    public static func == (a: ShardCell, b: ShardCell) -> Bool {
        a.prefix == b.prefix && a.nCurrent == b.nCurrent && a.nPrevious == b.nPrevious && a.rCurrent == b.rCurrent
            && a.rPrevious == b.rPrevious && a.handled == b.handled
            && a.years.map(\.year) == b.years.map(\.year) && a.years.map(\.count) == b.years.map(\.count)
    }
}

/// A shard's share of the summary totals: the incidents that lie inside the shard (not its halo).
public struct ShardTotals: Sendable, Equatable {
    public var current = 0
    public var previous = 0
    public var excludedFuture = 0
    /// Calendar year → incidents (filters applied, not after the as-of).
    public var years: [Int: Int] = [:]
    /// Month number (`MonthSeries`) → incidents, the same incidents as `years`.
    public var months: [Int: Int] = [:]
    /// The shards' own incidents at any time (filters applied), for coverage and the
    /// empty-windows warning; set by the shard step, merged with `add`.
    public var extent: DataExtent?

    public init() {}

    /// The totals of the incidents of `columns` whose home (`ShardRule.home`: the shard owning
    /// their cell of `grid`) is one of `shards` (all of them when nil); the shards share one
    /// precision.
    public init(columns: IncidentColumns, parameters: QueryParameters, shards: Set<GeohashCell>?, grid: GridSystem) {
        let windows = parameters.windows
        let allowed = parameters.allowedCategories(in: columns)
        let rule = shards?.first.map { ShardRule(precision: $0.precision, grid: grid) }
        for i in 0..<columns.count where parameters.passes(columns, i, allowedCategories: allowed) {
            if let shards, let rule, !shards.contains(rule.home(lat: columns.lat[i], lon: columns.lon[i])) {
                continue
            }
            switch windows.membership(columns.time[i]) {
            case .future:
                excludedFuture += 1
                continue
            case .current: current += 1
            case .previous: previous += 1
            case .older: break
            }
            let (year, month) = UTCTime.yearMonth(of: columns.time[i])
            years[year, default: 0] += 1
            months[MonthSeries.number(year: year, month: month), default: 0] += 1
        }
    }

    public mutating func add(_ other: ShardTotals) {
        current += other.current
        previous += other.previous
        excludedFuture += other.excludedFuture
        for (year, n) in other.years { years[year, default: 0] += n }
        for (month, n) in other.months { months[month, default: 0] += n }
        extent.add(other.extent)
    }

    /// The summary's totals, as `IncidentIndex.totals()` gives them on one machine.
    public var totals: Totals {
        let sortedYears = years.keys.sorted()
        let counts = sortedYears.map { years[$0]! }
        let all = counts.reduce(0, +)
        return Totals(
            years: sortedYears, yearCounts: counts, current: current, previous: previous,
            older: all - current - previous, excludedFuture: excludedFuture,
            months: MonthSeries(sparse: months))
    }
}

extension GridResult {
    /// The cells owned by one of `shards` (of one precision; `ShardRule.owner`: the shard holding
    /// the cell's centre), as the merge needs them.
    public func cells(ownedBy shards: Set<GeohashCell>) -> [ShardCell] {
        guard let shardPrecision = shards.first?.precision else { return [] }
        let rule = ShardRule(precision: shardPrecision, grid: system)
        return cells.compactMap { c in
            guard shards.contains(rule.owner(of: c.id)) else { return nil }
            let counts = yearCounts(of: c)
            return ShardCell(
                prefix: c.id.raw, nCurrent: c.nCurrent, nPrevious: c.nPrevious, rCurrent: c.rCurrent,
                rPrevious: c.rPrevious, handled: c.handled,
                years: zip(years, counts).filter { $0.1 > 0 }.map { (year: $0.0, count: $0.1) })
        }
    }

    /// The grid made of the shards' cells, as one machine would have computed it: cells in the
    /// cell order of `system`, the class from `r_current`, the calendar years those of the whole run.
    ///
    /// - Parameter years: every calendar year present in the run (the merged totals' years);
    ///   a cell year outside it is a programming error.
    public init(merging shardCells: [ShardCell], system: GridSystem, parameters: QueryParameters, years: [Int]) {
        let sorted = shardCells.sorted { $0.prefix < $1.prefix }
        var slot = [Int: UInt16]()
        for (k, y) in years.enumerated() { slot[y] = UInt16(k) }
        var cells: [GridCell] = []
        cells.reserveCapacity(sorted.count)
        var entries: [(year: UInt16, count: UInt32)] = []
        for c in sorted {
            let start = entries.count
            for (year, count) in c.years { entries.append((slot[year]!, UInt32(count))) }
            cells.append(
                GridCell(
                    id: GridCellID(raw: c.prefix), system: system, nCurrent: c.nCurrent,
                    nPrevious: c.nPrevious,
                    rCurrent: c.rCurrent, rPrevious: c.rPrevious, handled: c.handled,
                    safetyClass: parameters.thresholds.classify(c.rCurrent),
                    yearStart: Int32(start), yearCount: Int32(entries.count - start)))
        }
        self.init(system: system, parameters: parameters, cells: cells, years: years, yearEntries: entries)
    }

    /// `init(merging:system:…)` for a geohash grid of `precision`.
    public init(merging shardCells: [ShardCell], precision: Int, parameters: QueryParameters, years: [Int]) {
        self.init(merging: shardCells, system: .geohash(precision: precision), parameters: parameters, years: years)
    }
}

/// `AWCEL` files: one shard's owned cells and totals (docs/FORMATS.md).
public enum ShardCellsFile {
    public static let magic = "AWCEL004"

    public static func encode(system: GridSystem, totals: ShardTotals, cells: [ShardCell]) -> [UInt8] {
        var w = BinaryWriter(capacity: 64 + cells.count * 56)
        for b in magic.utf8 { w.u8(b) }
        switch system {
        case .geohash(let p):
            w.u8(0)
            w.u8(UInt8(p))
        case .h3(let r):
            w.u8(1)
            w.u8(UInt8(r))
        }
        w.i64(Int64(totals.current))
        w.i64(Int64(totals.previous))
        w.i64(Int64(totals.excludedFuture))
        let years = totals.years.sorted { $0.key < $1.key }
        w.u32(UInt32(years.count))
        for (year, n) in years {
            w.i64(Int64(year))
            w.i64(Int64(n))
        }
        let months = totals.months.sorted { $0.key < $1.key }
        w.u32(UInt32(months.count))
        for (month, n) in months {
            w.i64(Int64(month))
            w.i64(Int64(n))
        }
        writeExtent(totals.extent, to: &w)
        w.u64(UInt64(cells.count))
        for c in cells {
            w.u64(c.prefix)
            for v in [c.nCurrent, c.nPrevious, c.rCurrent, c.rPrevious, c.handled] { w.u32(UInt32(v)) }
            w.u16(UInt16(c.years.count))
            for (year, n) in c.years {
                w.u16(UInt16(year))
                w.u32(UInt32(n))
            }
        }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8], name: String) throws -> (
        system: GridSystem, totals: ShardTotals, cells: [ShardCell]
    ) {
        var r = BinaryReader(bytes, name: name)
        try r.expectMagic(magic)
        let kind = try r.u8(), fineness = Int(try r.u8())
        let system: GridSystem = kind == 0 ? .geohash(precision: fineness) : .h3(resolution: fineness)
        guard kind <= 1, system.problem == nil else {
            throw BinaryReader.Malformed(description: "\(name): no grid system \(kind):\(fineness) at byte 8")
        }
        var totals = ShardTotals()
        totals.current = Int(try r.i64())
        totals.previous = Int(try r.i64())
        totals.excludedFuture = Int(try r.i64())
        for _ in 0..<Int(try r.u32()) {
            let year = Int(try r.i64())
            totals.years[year] = Int(try r.i64())
        }
        for _ in 0..<Int(try r.u32()) {
            let month = Int(try r.i64())
            totals.months[month] = Int(try r.i64())
        }
        totals.extent = try readExtent(&r)
        let count = try r.u64()
        guard count <= UInt64(bytes.count) else { throw BinaryReader.Malformed(description: "\(name): bad cell count") }
        var cells: [ShardCell] = []
        cells.reserveCapacity(Int(count))
        for _ in 0..<count {
            let prefix = try r.u64()
            let n = try (0..<5).map { _ in Int(try r.u32()) }
            let yearCount = Int(try r.u16())
            let years = try (0..<yearCount).map { _ in (year: Int(try r.u16()), count: Int(try r.u32())) }
            cells.append(
                ShardCell(
                    prefix: prefix, nCurrent: n[0], nPrevious: n[1], rCurrent: n[2], rPrevious: n[3],
                    handled: n[4], years: years))
        }
        guard r.atEnd else { throw BinaryReader.Malformed(description: "\(name): trailing bytes at \(r.offset)") }
        return (system, totals, cells)
    }

    /// The extent: a count (0: none), then the times, the box and the published box (a flag, then
    /// its four edges), coordinates as IEEE 754 bit patterns.
    private static func writeExtent(_ extent: DataExtent?, to w: inout BinaryWriter) {
        guard let e = extent else { return w.i64(0) }
        w.i64(Int64(e.count))
        w.i64(e.firstTime)
        w.i64(e.lastTime)
        func box(_ b: GeoBox) { for v in [b.minLat, b.minLon, b.maxLat, b.maxLon] { w.u64(v.bitPattern) } }
        box(e.box)
        w.u8(e.publishedBox == nil ? 0 : 1)
        if let published = e.publishedBox { box(published) }
    }

    private static func readExtent(_ r: inout BinaryReader) throws -> DataExtent? {
        let count = Int(try r.i64())
        guard count > 0 else { return nil }
        let first = try r.i64(), last = try r.i64()
        func box() throws -> GeoBox {
            let v = try (0..<4).map { _ in Double(bitPattern: try r.u64()) }
            return GeoBox(minLat: v[0], minLon: v[1], maxLat: v[2], maxLon: v[3])
        }
        let all = try box()
        let published = try r.u8() == 1 ? try box() : nil
        return DataExtent(count: count, firstTime: first, lastTime: last, box: all, publishedBox: published)
    }
}
