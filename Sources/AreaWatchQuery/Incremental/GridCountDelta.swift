import AreaWatchCore

extension GridCountState {
    /// What one night changed.
    public struct NightSummary: Sendable, Equatable {
        /// Incidents whose contribution changed: added, removed, or moved between windows.
        public var changedIncidents: Int
        /// Distinct cells whose counts were updated, reported or not (an update may cancel out).
        public var touchedCells: Int
    }

    /// One night: the as-of moves to `asOf` (not backwards), then `removing` is taken out and
    /// `adding` put in (an edited incident is in both, its old content removed). Incidents that
    /// fail the query's filters are ignored; every removed incident that passes them must be held.
    ///
    /// Only the incidents that change contribute: the added and removed ones, and those whose time
    /// lies between the old and new bound of a window (found by time range in the timeline). Their
    /// in-cell counts change in their own cell, their radius counts in the cells the grid's own
    /// scatter finds within their radius, run over them alone.
    @discardableResult
    public mutating func apply(asOf: Int64, removing: [Incident], adding: [Incident], threads: Int = 1)
        -> NightSummary
    {
        precondition(asOf >= parameters.asOf, "the as-of of an incremental grid moves forward only")
        let old = parameters.windows
        parameters.asOf = asOf
        let new = parameters.windows
        var delta = Delta()
        for range in Self.crossingRanges(old: old, new: new) {
            for k in timeline.positions(after: range.low, through: range.high) {
                let entry = timeline.entries[k]
                guard !entry.isRemoved else { continue }
                let (before, after) = (old.membership(entry.time), new.membership(entry.time))
                guard before != after else { continue }
                delta.add(entry, before, sign: -1)
                delta.add(entry, after, sign: 1)
                delta.changed += 1
            }
        }
        for incident in removing where passes(incident) {
            let entry = Self.entry(incident)
            let membership = new.membership(entry.time)
            // An incident older at the new as-of is no longer kept in the timeline (or is dropped
            // from it below).
            if membership != .older && !timeline.remove(entry) {
                preconditionFailure("an incident removed from an incremental grid that does not hold it")
            }
            delta.add(entry, membership, sign: -1)
            delta.changed += 1
        }
        let added = adding.filter(passes).map(Self.entry)
        for entry in added {
            delta.add(entry, new.membership(entry.time), sign: 1)
            delta.changed += 1
        }
        timeline.update(adding: added, droppingThrough: new.previousStart)
        let touched = commit(delta, threads: threads)
        return NightSummary(changedIncidents: delta.changed, touchedCells: touched)
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

    private static func entry(_ incident: Incident) -> IncidentTimeline.Entry {
        IncidentTimeline.Entry(
            time: incident.time, lat: incident.lat, lon: incident.lon, handled: IncidentColumns.code(incident.handled))
    }

    /// Applies the delta's contributions; returns how many distinct cells changed.
    private mutating func commit(_ delta: Delta, threads: Int) -> Int {
        var touched = Set<UInt64>(minimumCapacity: 2 * delta.inCell.count)
        // Only a cell something was taken from can end up empty.
        var shrunk: [UInt64] = []
        let keys = CellKeys(system: system)
        for c in delta.inCell {
            let key = keys.key(lat: c.lat, lon: c.lon)
            cells[key, default: Counts()].addInCell(membership: c.membership, year: c.year, sign: c.sign)
            yearTotals[c.year, default: 0] += Int(c.sign)
            if yearTotals[c.year] == 0 { yearTotals[c.year] = nil }
            touched.insert(key)
            if c.sign < 0 { shrunk.append(key) }
        }
        for rc in radiusCells(delta.plus, threads: threads) {
            cells[rc.prefix, default: Counts()].addRadius(rc, sign: 1)
            touched.insert(rc.prefix)
        }
        for rc in radiusCells(delta.minus, threads: threads) {
            cells[rc.prefix, default: Counts()].addRadius(rc, sign: -1)
            touched.insert(rc.prefix)
            shrunk.append(rc.prefix)
        }
        for key in shrunk where cells[key]?.isEmpty == true { cells[key] = nil }
        return touched.count
    }

    /// The radius counts `points` add to every cell whose centre is within their radius: the
    /// grid's own scatter, over these points alone.
    private func radiusCells(_ points: GridScatter.Points, threads: Int) -> [RadiusCell] {
        let test = RadiusTest(radius: parameters.radius)
        switch system {
        case .geohash(let precision):
            return GridScatter.radiusCells(points: points, precision: precision, test: test, threads: threads)
        case .h3(let resolution):
            let own = points.lat.indices.map {
                H3.cell(lat: points.lat[$0], lon: points.lon[$0], resolution: resolution).index
            }
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
            var sign: Int32
        }

        var inCell: [InCell] = []
        /// The windowed incidents to add to, and to take from, the radius counts.
        var plus = GridScatter.Points(lat: [], lon: [], flags: [])
        var minus = GridScatter.Points(lat: [], lon: [], flags: [])
        var changed = 0

        /// One incident of `membership` counted (+1) or uncounted (−1); future ones count nowhere.
        mutating func add(_ entry: IncidentTimeline.Entry, _ membership: WindowMembership, sign: Int32) {
            guard membership != .future else { return }
            let year = Int16(UTCTime.yearMonth(of: entry.time).0)
            inCell.append(InCell(lat: entry.lat, lon: entry.lon, membership: membership, year: year, sign: sign))
            guard membership == .current || membership == .previous else { return }
            let flags = LeafFlags(current: membership == .current, handled: entry.handled)
            if sign > 0 {
                plus.lat.append(entry.lat)
                plus.lon.append(entry.lon)
                plus.flags.append(flags)
            } else {
                minus.lat.append(entry.lat)
                minus.lon.append(entry.lon)
                minus.flags.append(flags)
            }
        }
    }
}
