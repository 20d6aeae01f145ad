import AreaWatchCore

/// One named area's counts (SPEC §7.3).
public struct AreaStats: Sendable, Equatable {
    public var id: String
    public var nCurrent: Int
    public var nPrevious: Int
    /// Current-window incidents inside the area whose handled is true.
    public var handled: Int
    /// Incidents inside the area per year of `AreaResult.years`.
    public var yearCounts: [Int]
    /// Incidents inside the area per UTC calendar month (SPEC §8 timeseries.csv).
    public var months = MonthSeries()
    public var areaKm2: Double
    /// n_current × π·radius² / area: the count a radius circle would see at this density.
    public var densityEquivalent: Double
    public var safetyClass: SafetyClass

    public var yearOverYear: YearOverYear { YearOverYear(current: nCurrent, previous: nPrevious) }
}

extension AreaStats {
    /// The row of `area` with its counts; the area, density equivalent and class follow from them.
    init(
        area: NamedArea, nCurrent: Int, nPrevious: Int, handled: Int, yearCounts: [Int], months: MonthSeries,
        parameters: QueryParameters
    ) {
        let areaKm2 = area.sphericalArea / 1e6
        let areaM2 = areaKm2 * 1e6
        let circle = Double.pi * parameters.radius * parameters.radius
        // The area readers refuse zero-area parts (`NamedArea.problem`); an area built in code
        // without area holds no incident of positive measure: density 0, never infinite.
        let density = areaM2 > 0 ? Double(nCurrent) * circle / areaM2 : 0
        self.init(
            id: area.id, nCurrent: nCurrent, nPrevious: nPrevious, handled: handled, yearCounts: yearCounts,
            months: months, areaKm2: areaKm2, densityEquivalent: density,
            safetyClass: parameters.thresholds.classify(density))
    }
}

public struct AreaResult: Sendable {
    public var areas: [AreaStats]
    public var years: [Int]
    /// Incidents inside no area: current window, previous window, all years up to the as-of.
    public var unassignedCurrent: Int
    public var unassignedPrevious: Int
    public var unassignedAll: Int
}

/// A row of the breakdown (SPEC §7.5); `value` is empty for incidents without one.
public struct BreakdownRow: Sendable, Equatable {
    public var value: String
    public var current: Int
    public var previous: Int
    public var yearCounts: [Int]

    public var yearOverYear: YearOverYear { YearOverYear(current: current, previous: previous) }
}

public struct BreakdownResult: Sendable {
    public var field: String
    public var years: [Int]
    public var rows: [BreakdownRow]
}

/// Calendar-year totals (SPEC §7), plus the window totals of the whole dataset.
public struct Totals: Sendable, Equatable {
    public var years: [Int]
    public var yearCounts: [Int]
    public var current: Int
    public var previous: Int
    public var older: Int
    public var excludedFuture: Int
    /// The same incidents as `yearCounts` per UTC calendar month (SPEC §8 timeseries.csv).
    public var months = MonthSeries()
}

/// Counts per month number (`MonthSeries.number`) over a span of months: fixed to the years
/// present (`init(years:)`: an add is an index and an increment, for the index's passes), or grown
/// to hold whatever is added (`init()`: for a pass that does not know the years before it ends).
struct MonthCounter: Sendable {
    /// The month number of `counts[0]`.
    private(set) var first: Int
    private(set) var counts: [Int]

    /// An empty counter that grows to hold the months added.
    init() {
        first = 0
        counts = []
    }

    /// `years`: the years present, ascending; `add(year:month:)` takes only months of their span.
    init(years: [Int]) {
        let firstYear = years.first ?? 0
        first = MonthSeries.number(year: firstYear, month: 1)
        counts = [Int](repeating: 0, count: years.isEmpty ? 0 : (years[years.count - 1] - firstYear + 1) * 12)
    }

    /// Counts one incident of a month within the span.
    @inline(__always)
    mutating func add(year: Int16, month: UInt8) {
        counts[MonthSeries.number(year: Int(year), month: Int(month)) - first] += 1
    }

    /// Adds `n` to month number `month`, growing the span to hold it.
    mutating func add(month: Int, _ n: Int = 1) {
        hold(month..<(month + 1))
        counts[month - first] += n
    }

    /// Adds another counter's counts, growing the span to hold them.
    mutating func add(_ other: MonthCounter) {
        guard !other.counts.isEmpty else { return }
        hold(other.first..<(other.first + other.counts.count))
        let offset = other.first - first
        for k in other.counts.indices { counts[offset + k] += other.counts[k] }
    }

    /// Widens the span (with zeros) to take in `months`; a span already holding them is kept.
    private mutating func hold(_ months: Range<Int>) {
        if counts.isEmpty {
            first = months.lowerBound
            counts = [Int](repeating: 0, count: months.count)
            return
        }
        if months.lowerBound < first {
            counts.insert(contentsOf: repeatElement(0, count: first - months.lowerBound), at: 0)
            first = months.lowerBound
        }
        if months.upperBound > first + counts.count {
            counts += repeatElement(0, count: months.upperBound - first - counts.count)
        }
    }

    var series: MonthSeries { MonthSeries(first: first, counts: counts) }
}

extension IncidentIndex {
    /// Calendar years present, ascending.
    public var yearsPresent: [Int] { yearSlots.years }

    /// Counted in contiguous parts on `threads` cores (it was a serial pass between the grid and
    /// the report at 1M incidents).
    public func totals(threads: Int = 2) -> Totals {
        let slot = yearSlots
        let years = slot.years
        let parts = IncidentIndex.chunks(count, threads)
        let partCounts = Concurrency.map(parts.count) { part in
            var counts = [Int](repeating: 0, count: years.count)
            var months = MonthCounter(years: years)
            var current = 0, previous = 0
            for i in parts[part] {
                counts[slot[year[i]]] += 1
                months.add(year: year[i], month: month[i])
                if membership[i] == WindowMembership.current.rawValue { current += 1 }
                if membership[i] == WindowMembership.previous.rawValue { previous += 1 }
            }
            return (years: counts, months: months, current: current, previous: previous)
        }
        var counts = [Int](repeating: 0, count: years.count)
        var months = MonthCounter(years: years)
        for part in partCounts {
            for k in counts.indices { counts[k] += part.years[k] }
            months.add(part.months)
        }
        let current = partCounts.reduce(0) { $0 + $1.current }, previous = partCounts.reduce(0) { $0 + $1.previous }
        return Totals(
            years: years, yearCounts: counts, current: current, previous: previous,
            older: count - current - previous, excludedFuture: excludedFuture, months: months.series)
    }

    /// Counts per named area; an incident inside several areas counts in each.
    public func areas(_ areas: [NamedArea]) -> AreaResult {
        let slot = yearSlots
        let years = slot.years
        var assigned = [Bool](repeating: false, count: count)
        var stats: [AreaStats] = []
        for area in areas {
            var nCurrent = 0, nPrevious = 0, handledCount = 0
            var yearCounts = [Int](repeating: 0, count: years.count)
            // Edges indexed by latitude: the cost per incident does not grow with the vertices.
            let index = AreaIndex(area)
            var months = MonthCounter(years: years)
            for range in coveringRanges(area.bounds) {
                for i in range where index.contains(lat: lat[i], lon: lon[i]) {
                    assigned[i] = true
                    yearCounts[slot[year[i]]] += 1
                    months.add(year: year[i], month: month[i])
                    if membership[i] == WindowMembership.current.rawValue {
                        nCurrent += 1
                        if handled[i] == 1 { handledCount += 1 }
                    } else if membership[i] == WindowMembership.previous.rawValue {
                        nPrevious += 1
                    }
                }
            }
            stats.append(
                AreaStats(
                    area: area, nCurrent: nCurrent, nPrevious: nPrevious, handled: handledCount,
                    yearCounts: yearCounts, months: months.series, parameters: parameters))
        }
        var current = 0, previous = 0, all = 0
        for i in 0..<count where !assigned[i] {
            all += 1
            if membership[i] == WindowMembership.current.rawValue { current += 1 }
            if membership[i] == WindowMembership.previous.rawValue { previous += 1 }
        }
        return AreaResult(
            areas: stats, years: years, unassignedCurrent: current, unassignedPrevious: previous,
            unassignedAll: all)
    }

    /// Geohash-bucket ranges covering a box: the finest precision that covers it with at most
    /// 256 cells, each cell one binary-searched range of the sorted codes.
    func coveringRanges(_ box: GeoBox) -> [Range<Int>] {
        Self.coveringCells(box).map { range(of: $0) }.filter { !$0.isEmpty }
    }

    /// The geohash cells of `coveringRanges`, in its order: the incidents an area query tests
    /// are those whose code lies in one of them (the incremental nightly tests the same ones).
    static func coveringCells(_ box: GeoBox) -> [GeohashCell] {
        guard box.minLat <= box.maxLat, box.minLon <= box.maxLon else { return [] }
        var precision = 1
        for p in stride(from: Geohash.maxPrecision, through: 1, by: -1) {
            let rows =
                Int64((box.maxLat + 90) / GeohashCell.latSpan(p)) - Int64((box.minLat + 90) / GeohashCell.latSpan(p))
                + 1
            let cols =
                Int64((box.maxLon + 180) / GeohashCell.lonSpan(p)) - Int64((box.minLon + 180) / GeohashCell.lonSpan(p))
                + 1
            if rows * cols <= 256 {
                precision = p
                break
            }
        }
        let low = GeohashCell(lat: max(-90, box.minLat), lon: max(-180, box.minLon), precision: precision)
        let high = GeohashCell(lat: min(90, box.maxLat), lon: min(180, box.maxLon), precision: precision)
        var cells: [GeohashCell] = []
        for row in low.latIndex...high.latIndex {
            for column in low.lonIndex...high.lonIndex {
                cells.append(GeohashCell(lonIndex: column, latIndex: row, precision: precision))
            }
        }
        return cells
    }

    /// The widget answer at every point of interest.
    public func pointsOfInterest(_ points: [PointOfInterest], threads: Int = 1) -> [(
        poi: PointOfInterest, answer: PointAnswer
    )] {
        let answers = pointAnswers(points.map { ($0.lat, $0.lon) }, threads: threads)
        return Array(zip(points, answers))
    }

    /// Current/previous and calendar-year counts per value of `category` or an attribute
    /// (the columns the index was built from must carry that attribute as their group).
    public func breakdown(columns: IncidentColumns, field: BreakdownField) -> BreakdownResult {
        let slot = yearSlots
        let years = slot.years
        let byCategory = field == .category
        let values = byCategory ? columns.categories : columns.groupValues
        var rows = (values + [""]).map {
            BreakdownRow(value: $0, current: 0, previous: 0, yearCounts: [Int](repeating: 0, count: years.count))
        }
        for i in 0..<count {
            let source = Int(sourceIndex[i])
            let g = byCategory ? columns.category[source] : columns.group[source]
            let r = g >= 0 ? Int(g) : values.count
            rows[r].yearCounts[slot[year[i]]] += 1
            if membership[i] == WindowMembership.current.rawValue { rows[r].current += 1 }
            if membership[i] == WindowMembership.previous.rawValue { rows[r].previous += 1 }
        }
        let kept = rows.filter { $0.yearCounts.contains { $0 > 0 } }
            .sorted { Array($0.value.utf8).lexicographicallyPrecedes(Array($1.value.utf8)) }
        return BreakdownResult(field: field.name, years: years, rows: kept)
    }
}
