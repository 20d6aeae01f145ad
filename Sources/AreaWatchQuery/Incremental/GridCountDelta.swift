import AreaWatchCore

extension GridCountState {
    /// What one night changed.
    public struct NightSummary: Sendable, Equatable {
        /// Incidents whose contribution changed: added, removed, or moved between windows.
        public var changedIncidents: Int
        /// Distinct cells whose counts were updated, reported or not (an update may cancel out).
        public var touchedCells: Int
        /// False when the night took from a cell more than it held: the state does not describe
        /// the store (damaged or forged with a valid checksum, or a bug) and must not be used.
        public var consistent = true
    }

    /// One night: the as-of moves to `asOf` (not backwards) over `crossing`, then `removing` is
    /// taken out and `adding` put in (an edited incident is in both, its old content removed).
    /// Incidents that fail the query's filters are ignored. `places`: the points of interest and
    /// areas the state counts (`places.covers`; otherwise the night is not consistent and
    /// nothing is trusted).
    ///
    /// `crossing` must be every incident held before the night (the content before the night's
    /// edits, none of the night's additions) whose time lies in `crossingRanges(to: asOf)`, each
    /// once; others it holds change nothing. Only the incidents that change contribute: the added
    /// and removed ones, and those that change window. Their in-cell counts change in their own
    /// cell, their radius counts in the cells the grid's own scatter finds within their radius,
    /// run over them alone.
    @discardableResult
    public mutating func apply(
        asOf: Int64, crossing: [Incident], removing: [Incident], adding: [Incident],
        places: ReportPlaces = ReportPlaces(), threads: Int = 1
    ) -> NightSummary {
        precondition(asOf >= parameters.asOf, "the as-of of an incremental grid moves forward only")
        guard self.places.covers(places) else {
            return NightSummary(changedIncidents: 0, touchedCells: 0, consistent: false)
        }
        let old = parameters.windows
        parameters.asOf = asOf
        let new = parameters.windows
        var delta = Delta()
        for incident in crossing where passes(incident) {
            let (before, after) = (old.membership(incident.time), new.membership(incident.time))
            guard before != after else { continue }
            delta.add(incident, before, sign: -1)
            delta.add(incident, after, sign: 1)
            delta.changed += 1
        }
        for incident in removing where passes(incident) {
            delta.add(incident, new.membership(incident.time), sign: -1)
            delta.changed += 1
        }
        for incident in adding where passes(incident) {
            delta.add(incident, new.membership(incident.time), sign: 1)
            delta.changed += 1
        }
        let (touched, consistent) = commit(delta, threads: threads)
        let placesConsistent = commitPlaces(delta, places: places, threads: threads)
        return NightSummary(
            changedIncidents: delta.changed, touchedCells: touched, consistent: consistent && placesConsistent)
    }

    /// The time ranges (low, high] in which an incident's window changes when the as-of moves from
    /// the state's to `asOf` (none when it does not move): the incidents a night must give `apply`
    /// as `crossing`.
    public func crossingRanges(to asOf: Int64) -> [(low: Int64, high: Int64)] {
        Self.crossingRanges(old: parameters.windows, new: TimeWindows(asOf: asOf))
    }

    /// The time ranges (low, high] in which an incident's window differs between the two as-ofs:
    /// between the old and new value of each window bound, overlapping ranges joined (a step over
    /// a year makes them overlap).
    static func crossingRanges(old: TimeWindows, new: TimeWindows) -> [(low: Int64, high: Int64)] {
        let bounds = [
            (old.previousStart, new.previousStart), (old.currentStart, new.currentStart), (old.asOf, new.asOf)
        ]
        var joined: [(low: Int64, high: Int64)] = []
        for (low, high) in bounds.sorted(by: { $0.0 < $1.0 }) where low < high {
            if let last = joined.last, low <= last.high {
                joined[joined.count - 1].high = max(last.high, high)
            } else {
                joined.append((low, high))
            }
        }
        return joined
    }

    private func passes(_ incident: Incident) -> Bool {
        if !parameters.categories.isEmpty {
            guard let category = incident.category, parameters.categories.contains(category) else { return false }
        }
        if let handled = parameters.handled { return incident.handled == handled }
        return true
    }

    /// Applies the delta's contributions; returns how many distinct cells changed.
    /// Applies the delta; the cells touched, and false when some count would fall below zero.
    private mutating func commit(_ delta: Delta, threads: Int) -> (touched: Int, consistent: Bool) {
        var consistent = true
        var touched = Set<UInt64>(minimumCapacity: 2 * delta.inCell.count)
        // Only a cell something was taken from can end up empty.
        var shrunk: [UInt64] = []
        let keys = CellKeys(system: system)
        for c in delta.inCell {
            let key = keys.key(lat: c.lat, lon: c.lon)
            consistent =
                cells[key, default: Counts()].addInCell(membership: c.membership, year: c.year, sign: c.sign)
                && consistent
            yearTotals[c.year, default: 0] += Int(c.sign)
            if yearTotals[c.year] == 0 { yearTotals[c.year] = nil }
            touched.insert(key)
            if c.sign < 0 { shrunk.append(key) }
        }
        for rc in radiusCells(delta.plus, threads: threads) {
            consistent = cells[rc.prefix, default: Counts()].addRadius(rc, sign: 1) && consistent
            touched.insert(rc.prefix)
        }
        for rc in radiusCells(delta.minus, threads: threads) {
            consistent = cells[rc.prefix, default: Counts()].addRadius(rc, sign: -1) && consistent
            touched.insert(rc.prefix)
            shrunk.append(rc.prefix)
        }
        for key in shrunk where cells[key]?.isEmpty == true { cells[key] = nil }
        return (touched.count, consistent && !yearTotals.values.contains { $0 < 0 })
    }

    /// The radius counts `points` add to every cell whose centre is within their radius: the
    /// grid's own scatter, over these points alone.
    private func radiusCells(_ points: GridScatter.Points, threads: Int) -> [RadiusCell] {
        let test = RadiusTest(radius: parameters.radius)
        switch system {
        case .geohash(let precision):
            return GridScatter.radiusCells(points: points, precision: precision, test: test, threads: threads)
        case .h3(let resolution):
            let own = H3GridScatter.ownCells(
                lat: points.lat, lon: points.lon, resolution: resolution, threads: threads)
            return H3GridScatter.radiusCells(
                points: points, cells: own, resolution: resolution, test: test, threads: threads)
        }
    }

    /// The contributions of one night, gathered before any is applied.
    struct Delta {
        struct InCell {
            var lat: Double, lon: Double
            var membership: WindowMembership
            var year: Int16
            /// The month number (`MonthSeries.number`), for the areas' months.
            var month: Int32
            /// Whether the incident's handled is true (counted for current-window ones only).
            var handled: Bool
            /// For the breakdown by category.
            var category: String?
            var sign: Int32
        }

        var inCell: [InCell] = []
        /// The windowed incidents to add to, and to take from, the radius counts.
        var plus = GridScatter.Points(lat: [], lon: [], flags: [])
        var minus = GridScatter.Points(lat: [], lon: [], flags: [])
        var changed = 0

        /// One incident of `membership` counted (+1) or uncounted (−1); future ones count nowhere.
        mutating func add(_ incident: Incident, _ membership: WindowMembership, sign: Int32) {
            guard membership != .future else { return }
            let (lat, lon) = (incident.lat, incident.lon)
            let (year, month) = UTCTime.yearMonth(of: incident.time)
            inCell.append(
                InCell(
                    lat: lat, lon: lon, membership: membership, year: Int16(year),
                    month: Int32(MonthSeries.number(year: year, month: month)), handled: incident.handled == true,
                    category: incident.category, sign: sign))
            guard membership == .current || membership == .previous else { return }
            let flags = LeafFlags(current: membership == .current, handled: IncidentColumns.code(incident.handled))
            if sign > 0 {
                plus.lat.append(lat)
                plus.lon.append(lon)
                plus.flags.append(flags)
            } else {
                minus.lat.append(lat)
                minus.lon.append(lon)
                minus.flags.append(flags)
            }
        }
    }
}
