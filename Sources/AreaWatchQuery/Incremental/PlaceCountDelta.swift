import AreaWatchCore

extension GridCountState {
    /// Applies the night's delta to the points of interest, areas and breakdown values: the same
    /// contributions as the grid's (windowed ones to the radius counts, every one not in the
    /// future to the area and value counts), found the way a full recompute finds them. False
    /// when a count would fall below zero.
    mutating func commitPlaces(_ delta: Delta, places: ReportPlaces, threads: Int) -> Bool {
        var consistent = true
        if let points = places.points, !points.isEmpty, !delta.plus.lat.isEmpty || !delta.minus.lat.isEmpty {
            let changes = Self.pointChanges(delta, points: points, radius: parameters.radius, threads: threads)
            for (k, change) in changes.enumerated() {
                self.places.points[k].current += change.current
                self.places.points[k].previous += change.previous
                self.places.points[k].handled += change.handled
                consistent = self.places.points[k].isValid && consistent
            }
        }
        if let areas = places.areas, !delta.inCell.isEmpty {
            consistent = commitAreas(delta.inCell, areas: areas, threads: threads) && consistent
        }
        if places.breakdown == .category {
            for c in delta.inCell {
                consistent =
                    self.places.addValue(c.category, membership: c.membership, year: c.year, sign: c.sign)
                    && consistent
            }
        }
        return consistent
    }

    /// The signed change of each point's radius counts: the delta's windowed incidents in one
    /// R-tree, searched around each point as the index searches its own (the same test, the
    /// point first), so that an incident exactly at the radius counts as it does there.
    static func pointChanges(_ delta: Delta, points: [PointOfInterest], radius: Double, threads: Int)
        -> [PlaceCounts.Point]
    {
        let plusCount = delta.plus.lat.count
        let tree = PackedHilbertRTree(
            latitudes: delta.plus.lat + delta.minus.lat, longitudes: delta.plus.lon + delta.minus.lon)
        let flags = delta.plus.flags + delta.minus.flags
        let test = RadiusTest(radius: radius)
        let parts = partition(points.count, threads)
        let changes = Concurrency.map(parts.count) { part in
            parts[part].map { k in
                var change = PlaceCounts.Point()
                func visit(_ leaf: Int) {
                    let i = Int(tree.leafIndex[leaf])
                    let sign: Int32 = i < plusCount ? 1 : -1
                    change.current += sign * flags[i].currentCount
                    change.previous += sign * (1 - flags[i].currentCount)
                    change.handled += sign * flags[i].handledCount
                }
                tree.forEachWithin(
                    lat: points[k].lat, lon: points[k].lon, test: test, range: { $0.forEach(visit) }, point: visit)
                return change
            }
        }
        return changes.flatMap { $0 }
    }

    /// Applies the contributions to the areas holding them and to the unassigned counts. An
    /// incident is tested against an area when its geohash code lies in one of the cells that
    /// cover the area's bounds (`IncidentIndex.coveringCells`), then by the area's `AreaIndex`:
    /// exactly the incidents and the test of `IncidentIndex.areas`, edges and vertices included.
    private mutating func commitAreas(_ inCell: [Delta.InCell], areas: [NamedArea], threads: Int) -> Bool {
        let order = inCell.indices.map { (code: Geohash.code(lat: inCell[$0].lat, lon: inCell[$0].lon), at: $0) }
            .sorted { $0.code < $1.code }
        let codes = order.map(\.code)
        let parts = Self.partition(areas.count, threads)
        // Per area, the delta entries inside it.
        let inside = Concurrency.map(parts.count) { part in
            parts[part].map { a in
                let index = AreaIndex(areas[a])
                var found: [Int] = []
                for cell in IncidentIndex.coveringCells(areas[a].bounds) {
                    let low = IncidentIndex.firstIndex(in: codes.count) { codes[$0] >= cell.lowerCode }
                    let high =
                        cell.upperCode == .max
                        ? codes.count : IncidentIndex.firstIndex(in: codes.count) { codes[$0] > cell.upperCode }
                    for k in low..<high {
                        let c = inCell[order[k].at]
                        if index.contains(lat: c.lat, lon: c.lon) { found.append(order[k].at) }
                    }
                }
                return found
            }
        }.flatMap { $0 }
        var consistent = true
        var assigned = [Bool](repeating: false, count: inCell.count)
        for (a, entries) in inside.enumerated() {
            for e in entries {
                let c = inCell[e]
                assigned[e] = true
                consistent =
                    places.areas[a].add(membership: c.membership, month: c.month, handled: c.handled, sign: c.sign)
                    && consistent
            }
        }
        for (e, c) in inCell.enumerated() where !assigned[e] {
            places.unassigned.all += Int64(c.sign)
            if c.membership == .current { places.unassigned.current += Int64(c.sign) }
            if c.membership == .previous { places.unassigned.previous += Int64(c.sign) }
        }
        return consistent && places.unassigned.isValid
    }

    /// `n` items in up to `threads` contiguous parts, none empty.
    static func partition(_ n: Int, _ threads: Int) -> [Range<Int>] {
        let k = max(1, min(threads, n))
        return (0..<k).map { c in (n * c / k)..<(n * (c + 1) / k) }
    }
}
