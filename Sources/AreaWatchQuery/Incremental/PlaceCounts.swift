import AreaWatchCore

/// The points of interest and named areas a report counts (SPEC §7.3, §7.4), and the digests
/// that bind a grid count state to them: a changed list (another file, or the same file edited)
/// has another digest, and the night recomputes.
public struct ReportPlaces: Sendable {
    public var points: [PointOfInterest]?
    public var areas: [NamedArea]?

    public init(points: [PointOfInterest]? = nil, areas: [NamedArea]? = nil) {
        self.points = points
        self.areas = areas
    }

    /// 0 without points of interest; otherwise FNV-1a 64 of their count, names and coordinates'
    /// bit patterns, in order (never 0).
    public var pointsDigest: UInt64 {
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
    public var areasDigest: UInt64 {
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

    var pointsDigest: UInt64 = 0
    var areasDigest: UInt64 = 0
    var points: [Point] = []
    var areas: [Area] = []
    var unassigned = Unassigned()

    init() {}

    /// The counts behind a full recompute's answers for `places` (either may be nil).
    init(places: ReportPlaces, pointAnswers: [PointAnswer]?, areaResult: AreaResult?) {
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

    /// Whether these counts are those of `places`: the same digests, and one count per place.
    func covers(_ places: ReportPlaces) -> Bool {
        pointsDigest == places.pointsDigest && areasDigest == places.areasDigest
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
