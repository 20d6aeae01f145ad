import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport

/// One incident of `query --list` (analysts with store access only, SPEC §10).
public struct ListedIncident: Sendable {
    public var key: String
    public var time: Int64
    public var distance: Double
    public var category: String?
    public var handled: Bool?
    public var window: WindowMembership
}

/// `areawatch query`: the widget answer for one location (SPEC §7.1).
public enum QueryJob {
    /// The answer, with its coverage (SPEC §7.1) from the box of every incident that passes the
    /// filters; a warning on stderr when both windows are empty while the data holds incidents.
    public static func run(
        source: IncidentSource, query: QuerySettings, lat: Double, lon: Double, list: Bool,
        progress: ProgressReporter
    ) throws -> (PointAnswer, [ListedIncident], excludedFuture: Int) {
        let loaded = try IncidentLoading.load(source, groupBy: nil, keepKeys: list, progress: progress)
        let (parameters, extent, _) = query.resolved(for: loaded.columns, progress: progress)
        let index = IncidentIndex(columns: loaded.columns, parameters: parameters)
        var answer = index.pointAnswer(lat: lat, lon: lon)
        answer.coverage = Coverage.of(lat: lat, lon: lon, box: extent?.box, radius: parameters.radius)
        let totals = index.totals()
        if let warning = extent?.emptyWindowsWarning(
            current: totals.current, previous: totals.previous,
            asOf: parameters.asOf)
        {
            progress.warn(warning)
        }
        guard list else { return (answer, [], index.excludedFuture) }
        let columns = loaded.columns
        let listed = index.windowedWithin(lat: lat, lon: lon).map { b -> ListedIncident in
            let i = Int(index.sourceIndex[b])
            let names: [String] = columns.categories
            let category: String? = columns.category[i] >= 0 ? names[Int(columns.category[i])] : nil
            let handled: Bool? = columns.handled[i] < 0 ? nil : columns.handled[i] == 1
            return ListedIncident(
                key: columns.keys[i], time: columns.time[i],
                distance: Haversine.distance(lat1: lat, lon1: lon, lat2: index.lat[b], lon2: index.lon[b]),
                category: category, handled: handled,
                window: WindowMembership(rawValue: index.membership[b]) ?? .older)
        }
        return (answer, listed, index.excludedFuture)
    }
}

/// `areawatch lookup`: a location answered from the widget tiles alone, as the widget service does.
public enum LookupJob {
    public static func run(tiles: String, lat: Double, lon: Double) throws -> TileAnswer {
        try TileLookup.answer(tiles: tiles, lat: lat, lon: lon)
    }
}
