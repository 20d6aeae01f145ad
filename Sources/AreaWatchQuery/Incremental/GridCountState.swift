import AreaWatchCore

/// Per cell of one grid system, exactly the counts a SPEC §7.2 grid is made of (in-cell and
/// within-radius counts of the two windows, handled, in-cell calendar years), kept so that a
/// night changes them by deltas instead of recounting every stored incident (issue 33).
///
/// Invariant: `result()` equals `IncidentIndex.grid(system)` over the incidents added and not
/// removed, at the current as-of, with the same query parameters. The state holds only incidents
/// that pass the parameters' filters (others are ignored on the way in).
///
/// Cells with only older incidents inside are kept (their calendar years count once a nearby
/// incident makes them reported) but not reported; a cell whose counts all reach zero is dropped.
public struct GridCountState: Sendable {
    public let system: GridSystem
    /// The query parameters; only the as-of changes (`apply`).
    public internal(set) var parameters: QueryParameters

    /// The counts of one cell.
    struct Counts: Sendable, Equatable {
        var nCurrent: Int32 = 0, nPrevious: Int32 = 0
        var rCurrent: Int32 = 0, rPrevious: Int32 = 0, handled: Int32 = 0
        /// (calendar year, incidents inside the cell), ascending year, no zero counts.
        var years: [Year] = []

        struct Year: Sendable, Equatable {
            var year: Int16
            var count: Int32
        }

        /// SPEC §7.2: some incident of either window inside the cell or within its centre's radius.
        var isReported: Bool { nCurrent + nPrevious > 0 || rCurrent + rPrevious > 0 }
        var isEmpty: Bool { !isReported && handled == 0 && years.isEmpty }

        /// False when a count would fall below zero: the incident was not held (nothing changes).
        mutating func addYear(_ year: Int16, _ sign: Int32) -> Bool {
            var k = 0
            while k < years.count && years[k].year < year { k += 1 }
            if k < years.count && years[k].year == year {
                guard years[k].count + sign >= 0 else { return false }
                years[k].count += sign
                if years[k].count == 0 { years.remove(at: k) }
            } else {
                guard sign > 0 else { return false }
                years.insert(Year(year: year, count: sign), at: k)
            }
            return true
        }
    }

    /// Cell id (geohash prefix or H3 index) → counts.
    var cells: [UInt64: Counts] = [:]
    /// Incidents per calendar year (filtered, not after the as-of): the grid's `years`.
    var yearTotals: [Int16: Int] = [:]
    /// The counts of the report's points of interest and areas, when it has them.
    var places = PlaceCounts()

    /// The state of `columns` at `parameters`, made from one full grid (`IncidentIndex.grid`).
    public init(columns: IncidentColumns, parameters: QueryParameters, system: GridSystem, threads: Int = 1) {
        let index = IncidentIndex(columns: columns, parameters: parameters, threads: threads, pointQueries: false)
        self.init(index: index, grid: index.grid(system, threads: threads))
    }

    /// The state from the index and grid already made of the incidents (the report's own). The
    /// incidents themselves are not kept: those an as-of step moves between windows are found by
    /// time range in the store when the step is taken (`crossingRanges`).
    public init(index: IncidentIndex, grid: GridResult) {
        self.system = grid.system
        self.parameters = index.parameters
        cells.reserveCapacity(grid.cells.count)
        for cell in grid.cells {
            cells[cell.id.raw] = Counts(
                rCurrent: Int32(cell.rCurrent), rPrevious: Int32(cell.rPrevious), handled: Int32(cell.handled))
        }
        let keys = CellKeys(system: system)
        for k in 0..<index.count {
            let key = keys.key(code: index.codes[k], lat: index.lat[k], lon: index.lon[k])
            let membership = WindowMembership(rawValue: index.membership[k])!
            _ = cells[key, default: Counts()].addInCell(membership: membership, year: index.year[k], sign: 1)
            yearTotals[index.year[k], default: 0] += 1
        }
    }

    /// The empty state (no incidents) at `parameters`.
    public init(parameters: QueryParameters, system: GridSystem) {
        self.system = system
        self.parameters = parameters
    }

    /// How many cells the state holds (reported or not).
    public var cellCount: Int { cells.count }

    /// Takes the counts of `places` from a full recompute's answers over the same incidents and
    /// parameters (nil: the report has none): the state then covers them too.
    public mutating func record(
        _ places: ReportPlaces, pointAnswers: [PointAnswer]?, areaResult: AreaResult?, breakdown: BreakdownResult?
    ) {
        self.places = PlaceCounts(
            places: places, pointAnswers: pointAnswers, areaResult: areaResult, breakdown: breakdown)
    }

    /// The digests of the points of interest and areas the state counts (0: none).
    public var pointsDigest: UInt64 { places.pointsDigest }
    public var areasDigest: UInt64 { places.areasDigest }
    public var breakdownDigest: UInt64 { places.breakdownDigest }

    /// The breakdown by category the state counts (`covers` a category breakdown).
    public func breakdownResult() -> BreakdownResult { places.breakdownResult(years: years) }

    /// The calendar years with incidents, ascending: the grid's, the areas' and the breakdown's.
    private var years: [Int] { yearTotals.filter { $0.value > 0 }.keys.sorted().map { Int($0) } }

    /// Whether the state counts exactly these points of interest and areas.
    public func covers(_ places: ReportPlaces) -> Bool { self.places.covers(places) }

    /// The widget answers at the points of interest the state counts (`covers(places)`).
    public func pointAnswers(_ places: [PointOfInterest]) -> [(poi: PointOfInterest, answer: PointAnswer)] {
        self.places.pointAnswers(places, parameters: parameters)
    }

    /// The rows of the areas the state counts (`covers(places)`), over the grid's calendar years.
    public func areaResult(_ areas: [NamedArea]) -> AreaResult {
        places.areaResult(areas, years: years, parameters: parameters)
    }

    /// The grid of the incidents held, at the current as-of: cells in ascending id, as
    /// `IncidentIndex.grid` lays them out.
    public func result() -> GridResult {
        let years = yearTotals.filter { $0.value > 0 }.keys.sorted()
        var slot: [Int16: UInt16] = [:]
        for (k, y) in years.enumerated() { slot[y] = UInt16(k) }
        let ids = cells.compactMap { $0.value.isReported ? $0.key : nil }.sorted()
        var out: [GridCell] = []
        out.reserveCapacity(ids.count)
        var entries: [(year: UInt16, count: UInt32)] = []
        for id in ids {
            let c = cells[id]!
            out.append(
                GridCell(
                    id: GridCellID(raw: id), system: system, nCurrent: Int(c.nCurrent), nPrevious: Int(c.nPrevious),
                    rCurrent: Int(c.rCurrent), rPrevious: Int(c.rPrevious), handled: Int(c.handled),
                    safetyClass: parameters.thresholds.classify(Int(c.rCurrent)),
                    yearStart: Int32(entries.count), yearCount: Int32(c.years.count)))
            for y in c.years { entries.append((slot[y.year]!, UInt32(y.count))) }
        }
        return GridResult(
            system: system, parameters: parameters, cells: out, years: years.map { Int($0) }, yearEntries: entries)
    }
}

extension GridCountState.Counts {
    /// One incident of `membership` and calendar `year` inside the cell, added (+1) or removed (−1).
    /// False when a count would fall below zero (the state does not hold what the store held).
    mutating func addInCell(membership: WindowMembership, year: Int16, sign: Int32) -> Bool {
        switch membership {
        case .current: nCurrent += sign
        case .previous: nPrevious += sign
        case .older: break
        case .future: return true
        }
        return nCurrent >= 0 && nPrevious >= 0 && addYear(year, sign)
    }

    /// The radius counts of some incidents around the cell, added (+1) or taken away (−1).
    /// False when a count would fall below zero.
    mutating func addRadius(_ radius: RadiusCell, sign: Int32) -> Bool {
        rCurrent += sign * Int32(radius.current)
        rPrevious += sign * Int32(radius.previous)
        handled += sign * Int32(radius.handled)
        return rCurrent >= 0 && rPrevious >= 0 && handled >= 0
    }
}

/// The cell id of a location in a grid system: a geohash code's prefix (the index's own codes),
/// or the H3 index of its cell.
struct CellKeys {
    let system: GridSystem
    private let shift: UInt64

    init(system: GridSystem) {
        self.system = system
        shift = UInt64(64 - 5 * (system.geohashPrecision ?? 0))
    }

    @inline(__always)
    func key(code: UInt64, lat: Double, lon: Double) -> UInt64 {
        switch system {
        case .geohash: code >> shift
        case .h3(let resolution): H3.cell(lat: lat, lon: lon, resolution: resolution).index
        }
    }

    @inline(__always)
    func key(lat: Double, lon: Double) -> UInt64 {
        if case .h3(let resolution) = system { return H3.cell(lat: lat, lon: lon, resolution: resolution).index }
        return Geohash.code(lat: lat, lon: lon) >> shift
    }
}
