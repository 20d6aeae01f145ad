import AreaWatchCore

/// The points of interest and named areas a report counts (SPEC §7.3, §7.4), and its breakdown
/// field (§7.5), with the digests that bind a grid count state to them: a changed list (another
/// file, or the same file edited) or field has another digest, and the night recomputes.
public struct ReportPlaces: Sendable {
    public let points: [PointOfInterest]?
    public let areas: [NamedArea]?
    /// The state counts a breakdown by category only (an attribute's values are not in the
    /// night's delta).
    public let breakdown: BreakdownField?
    /// The digests, made once: a surveyed boundary has many vertices, and a night compares them
    /// more than once.
    public let pointsDigest: UInt64, areasDigest: UInt64, breakdownDigest: UInt64

    public init(points: [PointOfInterest]? = nil, areas: [NamedArea]? = nil, breakdown: BreakdownField? = nil) {
        self.points = points
        self.areas = areas
        self.breakdown = breakdown
        pointsDigest = Self.digest(points)
        areasDigest = Self.digest(areas)
        breakdownDigest = Self.digest(breakdown)
    }

    /// 0 without a breakdown; otherwise FNV-1a 64 of the field's name (never 0).
    static func digest(_ breakdown: BreakdownField?) -> UInt64 {
        guard let breakdown else { return 0 }
        var h = FNV1a()
        h.combine(breakdown.name)
        return max(h.value, 1)
    }

    /// 0 without points of interest; otherwise FNV-1a 64 of their count, names and coordinates'
    /// bit patterns, in order (never 0).
    static func digest(_ points: [PointOfInterest]?) -> UInt64 {
        guard let points else { return 0 }
        var h = FNV1a()
        h.combine(points.count)
        for p in points {
            h.combine(p.name)
            h.combine(Int(bitPattern: UInt(p.lat.bitPattern)))
            h.combine(Int(bitPattern: UInt(p.lon.bitPattern)))
        }
        return max(h.value, 1)
    }

    /// 0 without areas; otherwise FNV-1a 64 of their count, ids and every ring's vertices' bit
    /// patterns, in order (never 0).
    static func digest(_ areas: [NamedArea]?) -> UInt64 {
        guard let areas else { return 0 }
        var h = FNV1a()
        h.combine(areas.count)
        for area in areas {
            h.combine(area.id)
            h.combine(area.polygons.count)
            for polygon in area.polygons {
                h.combine(polygon.rings.count)
                for ring in polygon.rings {
                    h.combine(ring.count)
                    for v in ring {
                        h.combine(Int(bitPattern: UInt(v.lon.bitPattern)))
                        h.combine(Int(bitPattern: UInt(v.lat.bitPattern)))
                    }
                }
            }
        }
        return max(h.value, 1)
    }
}

/// Per point of interest and per named area, exactly the counts their report rows are made of
/// (SPEC §7.3, §7.4), kept beside the grid's so that a night changes them by the same deltas.
///
/// Invariant: `pointAnswers` equals `IncidentIndex.pointsOfInterest` and `areaResult` equals
/// `IncidentIndex.areas` over the incidents the grid count state holds, at its as-of, for the
/// places whose digests these are (0: the state holds none of them).
struct PlaceCounts: Sendable, Equatable {
    /// One point of interest: the windowed incidents within the radius.
    struct Point: Sendable, Equatable {
        var current: Int32 = 0, previous: Int32 = 0, handled: Int32 = 0

        var isValid: Bool { current >= 0 && previous >= 0 && handled >= 0 }
    }

    /// One area: the incidents inside it, not after the as-of.
    struct Area: Sendable, Equatable {
        var nCurrent: Int32 = 0, nPrevious: Int32 = 0, handled: Int32 = 0
        /// (month number, incidents that month), ascending month, no zero counts: the area's
        /// months and, summed by year, its calendar years.
        var months: [Month] = []

        var isValid: Bool { nCurrent >= 0 && nPrevious >= 0 && handled >= 0 }
    }

    struct Month: Sendable, Equatable {
        var month: Int32
        var count: Int32
    }

    /// Incidents inside no area, not after the as-of: current window, previous window, all.
    struct Unassigned: Sendable, Equatable {
        var current: Int64 = 0, previous: Int64 = 0, all: Int64 = 0

        var isValid: Bool { current >= 0 && previous >= 0 && all >= 0 }
    }

    /// One value of the breakdown by category ("" for incidents without one): its window counts
    /// and calendar years (ascending, no zero counts).
    struct Value: Sendable, Equatable {
        var value: String
        var current: Int32 = 0, previous: Int32 = 0
        var years: [GridCountState.Counts.Year] = []
    }

    var pointsDigest: UInt64 = 0
    var areasDigest: UInt64 = 0
    var breakdownDigest: UInt64 = 0
    var points: [Point] = []
    var areas: [Area] = []
    var unassigned = Unassigned()
    /// Ascending by the values' UTF-8 bytes, as the breakdown lists them; no value without incidents.
    var values: [Value] = []

    init() {}

    /// The counts behind a full recompute's answers for `places` (any may be nil).
    init(places: ReportPlaces, pointAnswers: [PointAnswer]?, areaResult: AreaResult?, breakdown: BreakdownResult?) {
        if let breakdown, places.breakdown == .category {
            breakdownDigest = places.breakdownDigest
            values = breakdown.rows.map { row in
                let years = zip(breakdown.years, row.yearCounts).compactMap { y, n in
                    n > 0 ? GridCountState.Counts.Year(year: Int16(y), count: Int32(n)) : nil
                }
                return Value(value: row.value, current: Int32(row.current), previous: Int32(row.previous), years: years)
            }
        }
        if let pointAnswers, places.points?.count == pointAnswers.count {
            pointsDigest = places.pointsDigest
            points = pointAnswers.map {
                Point(current: Int32($0.current), previous: Int32($0.previous), handled: Int32($0.handled))
            }
        }
        if let areaResult, places.areas?.count == areaResult.areas.count {
            areasDigest = places.areasDigest
            areas = areaResult.areas.map { s in
                let months = s.months.counts.enumerated().compactMap { k, n in
                    n > 0 ? Month(month: Int32(s.months.first + k), count: Int32(n)) : nil
                }
                return Area(
                    nCurrent: Int32(s.nCurrent), nPrevious: Int32(s.nPrevious), handled: Int32(s.handled),
                    months: months)
            }
            unassigned = Unassigned(
                current: Int64(areaResult.unassignedCurrent), previous: Int64(areaResult.unassignedPrevious),
                all: Int64(areaResult.unassignedAll))
        }
    }

    /// The calendar years the areas' months and the breakdown's values count, each once.
    var years: Set<Int16> {
        var out = Set<Int16>()
        for a in areas { for m in a.months { out.insert(Int16(MonthSeries.year(ofMonth: Int(m.month)))) } }
        for v in values { for y in v.years { out.insert(y.year) } }
        return out
    }

    /// Whether these counts are those of `places`: the same digests, and one count per place.
    func covers(_ places: ReportPlaces) -> Bool {
        pointsDigest == places.pointsDigest && areasDigest == places.areasDigest
            && breakdownDigest == places.breakdownDigest
            && points.count == (places.points?.count ?? 0) && areas.count == (places.areas?.count ?? 0)
    }

    /// The widget answers at the points of interest (`places` those the counts are of).
    func pointAnswers(_ places: [PointOfInterest], parameters: QueryParameters) -> [(
        poi: PointOfInterest, answer: PointAnswer
    )] {
        zip(places, points).map { poi, c in
            (
                poi,
                PointAnswer(
                    lat: poi.lat, lon: poi.lon, parameters: parameters,
                    counts: (Int(c.current), Int(c.previous), Int(c.handled)))
            )
        }
    }

    /// The areas' rows over the calendar `years` present (`areas` those the counts are of).
    func areaResult(_ named: [NamedArea], years: [Int], parameters: QueryParameters) -> AreaResult {
        var slot: [Int: Int] = [:]
        for (k, y) in years.enumerated() { slot[y] = k }
        let stats = zip(named, areas).map { area, c in
            var yearCounts = [Int](repeating: 0, count: years.count)
            var sparse: [Int: Int] = [:]
            for m in c.months {
                yearCounts[slot[MonthSeries.year(ofMonth: Int(m.month))]!] += Int(m.count)
                sparse[Int(m.month)] = Int(m.count)
            }
            return AreaStats(
                area: area, nCurrent: Int(c.nCurrent), nPrevious: Int(c.nPrevious), handled: Int(c.handled),
                yearCounts: yearCounts, months: MonthSeries(sparse: sparse), parameters: parameters)
        }
        return AreaResult(
            areas: stats, years: years, unassignedCurrent: Int(unassigned.current),
            unassignedPrevious: Int(unassigned.previous), unassignedAll: Int(unassigned.all))
    }
}

extension PlaceCounts {
    /// The breakdown by category over the calendar `years` present.
    func breakdownResult(years: [Int]) -> BreakdownResult {
        var slot: [Int: Int] = [:]
        for (k, y) in years.enumerated() { slot[y] = k }
        let rows = values.map { v in
            var yearCounts = [Int](repeating: 0, count: years.count)
            for y in v.years { yearCounts[slot[Int(y.year)]!] = Int(y.count) }
            return BreakdownRow(
                value: v.value, current: Int(v.current), previous: Int(v.previous), yearCounts: yearCounts)
        }
        return BreakdownResult(field: BreakdownField.category.name, years: years, rows: rows)
    }

    /// One incident of `membership`, calendar `year` and `category` added (+1) or removed (−1)
    /// to its value's counts; a value left without incidents is dropped. False when a count
    /// would fall below zero.
    mutating func addValue(_ category: String?, membership: WindowMembership, year: Int16, sign: Int32) -> Bool {
        guard membership != .future else { return true }
        let value = category ?? ""
        let bytes = Array(value.utf8)
        var k = 0
        while k < values.count && Array(values[k].value.utf8).lexicographicallyPrecedes(bytes) { k += 1 }
        if k == values.count || values[k].value != value {
            guard sign > 0 else { return false }
            values.insert(Value(value: value), at: k)
        }
        switch membership {
        case .current: values[k].current += sign
        case .previous: values[k].previous += sign
        default: break
        }
        var counts = GridCountState.Counts(years: values[k].years)
        guard counts.addYear(year, sign), values[k].current >= 0, values[k].previous >= 0 else { return false }
        values[k].years = counts.years
        if counts.years.isEmpty { values.remove(at: k) }
        return true
    }
}

extension PlaceCounts.Area {
    /// One incident of `membership`, month number `month` and handled flag inside the area,
    /// added (+1) or removed (−1); future ones count nowhere. False when a count would fall
    /// below zero (the state does not hold what the store held).
    mutating func add(membership: WindowMembership, month: Int32, handled: Bool, sign: Int32) -> Bool {
        switch membership {
        case .current:
            nCurrent += sign
            if handled { self.handled += sign }
        case .previous: nPrevious += sign
        case .older: break
        case .future: return true
        }
        var k = 0
        while k < months.count && months[k].month < month { k += 1 }
        if k < months.count && months[k].month == month {
            guard months[k].count + sign >= 0 else { return false }
            months[k].count += sign
            if months[k].count == 0 { months.remove(at: k) }
        } else {
            guard sign > 0 else { return false }
            months.insert(PlaceCounts.Month(month: month, count: sign), at: k)
        }
        return isValid
    }
}
