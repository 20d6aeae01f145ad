import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport
import AreaWatchStore

/// The JSON that `query --json` and `stats --json` print (docs/FORMATS.md); `lookup --json`'s,
/// which `serve` answers too, is beside the tiles it reads (AreaWatchReport).
extension AnswerJSON {
    /// SPEC §7.1's fields, `excluded_future`, and with `--list` the counted incidents.
    public static func query(_ a: PointAnswer, excludedFuture: Int, listed: [ListedIncident]?) -> JSONValue {
        let days = TimeWindows(asOf: a.asOf).windowDays
        let pChange = PoissonETest.pValue(k1: a.current, n1: days.current, k2: a.previous, n2: days.previous)
        var members: [(String, JSONValue)] = [
            ("lat", .number(a.lat)), ("lon", .number(a.lon)), ("radius_m", .number(a.radius)),
            ("as_of", .string(UTCTime.iso8601(a.asOf))), ("current", .int(a.current)), ("previous", .int(a.previous)),
            ("delta", .int(a.delta)), ("pct", a.pct.map { .fixed($0, decimals: 4) } ?? .null),
            ("handled", .int(a.handled)),
            ("class", a.shownClass.map { .string($0.rawValue) } ?? .null), ("label", .string(a.label)),
            ("text", a.coverage == .none ? .null : .string(a.text)), ("coverage", .string(a.coverage.rawValue)),
            ("p_change", .number(pChange)), ("excluded_future", .int(excludedFuture))
        ]
        if let listed {
            members.append(
                (
                    "incidents",
                    .array(
                        listed.map { i in
                            .object([
                                ("key", .string(i.key)), ("time", .string(UTCTime.iso8601(i.time))),
                                ("distance_m", .fixed(i.distance, decimals: 1)), ("category", .optional(i.category)),
                                ("handled", i.handled.map { .bool($0) } ?? .null),
                                ("window", .string(i.window == .current ? "current" : "previous"))
                            ])
                        })
                ))
        }
        return .object(members)
    }

    public static func stats(_ s: StoreStats, path: String) -> JSONValue {
        .object([
            ("store", .string(path)),
            ("incidents", .int(s.incidents)),
            ("first_time", s.firstTime.map { .string(UTCTime.iso8601($0)) } ?? .null),
            ("last_time", s.lastTime.map { .string(UTCTime.iso8601($0)) } ?? .null),
            (
                "bounds",
                s.bounds.map {
                    .array([.number($0.minLon), .number($0.minLat), .number($0.maxLon), .number($0.maxLat)])
                } ?? .null
            ),
            ("spatial_index_entries", .int(s.spatialIndexEntries)),
            ("categories", .object(s.categories.map { ($0.name, .int($0.count)) })),
            (
                "ingests",
                .array(
                    s.ingests.map { i in
                        .object([
                            ("file", .string(i.file)), ("sha256", .string(i.sha256)), ("records", .int(i.records)),
                            ("accepted", .int(i.accepted)), ("inserted", .int(i.inserted)),
                            ("updated", .int(i.updated)),
                            ("duplicates", .int(i.duplicates)), ("rejected", .int(i.rejected)),
                            ("finished_at", .string(i.finishedAt))
                        ])
                    })
            )
        ])
    }
}
