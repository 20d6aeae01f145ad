import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport
import AreaWatchStore
import Foundation
import Glibc

/// SPEC §20: what the nightly knows to update the grid by deltas instead of recounting it — the
/// grid count state file beside the store, the store's stamp before the night's ingest, and
/// what the ingest changed (the column snapshot keeper's journal and snapshot after it).
public struct IncrementalNight: Sendable {
    public let storePath: String
    public let statePath: String
    /// The store's stamp when the nightly opened it, before any ingest.
    let before: StoreStamp?
    /// The store's stamp after the ingest.
    let after: StoreStamp?
    let journal: ColumnJournal
    /// The store's columns after the ingest, with `after` as stamp (nil when not known).
    let snapshot: ColumnSnapshot?

    public static func statePath(forStore store: String) -> String { store + ".gridstate" }

    /// The reason a night recomputes when the delta takes from a cell more than the state holds
    /// (a state that does not describe the store: damaged, forged with a valid checksum, or a bug).
    static let mismatch = "the grid count state does not match the store (a count would fall below zero)"

    init(storePath: String, before: StoreStamp?, after: StoreStamp?, journal: ColumnJournal, snapshot: ColumnSnapshot?)
    {
        self.storePath = storePath
        statePath = Self.statePath(forStore: storePath)
        self.before = before
        self.after = after
        self.journal = journal
        self.snapshot = snapshot
    }

    /// How the grid is made tonight: by applying a delta to a state, or recomputed (and why).
    enum Plan {
        case apply(
            GridCountState, crossing: [Incident], removing: [Incident], adding: [Incident], places: ReportPlaces)
        case recompute(reason: String)
    }

    /// The settings besides the as-of that the state's counts (or their classes) depend on.
    static func settingsText(_ parameters: QueryParameters, grid: GridSystem) -> String {
        let categories = parameters.categories.sorted().map { "\($0.utf8.count):\($0)" }.joined(separator: ",")
        return "grid=\(grid);radius=\(parameters.radius.bitPattern);thresholds=\(parameters.thresholds);"
            + "categories=[\(categories)];handled=\(parameters.handled.map { "\($0)" } ?? "any")"
    }

    /// The outputs the state does not cover (SPEC §20), named; nil when it covers the report.
    /// (Points of interest, areas and a breakdown by category it covers, bound to their digests.)
    static func uncovered(_ settings: ReportSettings) -> String? {
        var names: [String] = []
        if let field = settings.groupBy, field != .category { names.append("breakdown by an attribute") }
        if settings.ehsa { names.append("emerging hot spots") }
        if settings.nearRepeat { names.append("near-repeat") }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// Tonight's plan for the report's resolved `parameters` and `settings`; `columns`: the
    /// store's incidents after the ingest, in rowid order (the report's own, loaded); `places`:
    /// the report's points of interest and areas, read from their files tonight.
    func plan(parameters: QueryParameters, settings: ReportSettings, columns: IncidentColumns, places: ReportPlaces)
        -> Plan
    {
        if let names = Self.uncovered(settings) {
            return .recompute(reason: "the report asks for \(names), which the grid count state does not cover")
        }
        guard let before, let after else { return .recompute(reason: "the store has no stamp") }
        guard let data = Self.read(statePath) else { return .recompute(reason: "no grid count state") }
        guard let header = GridCountStateFile.peek(data) else {
            let version = GridCountStateFile.fileVersion(data)
            return .recompute(
                reason: "the grid count state is unreadable"
                    + (version.map { " (version \($0), not \(GridCountStateFile.version))" } ?? ""))
        }
        guard header.stamp == before else {
            return .recompute(reason: "the store is not the one the grid count state was computed from")
        }
        guard header.settings == Self.settingsText(parameters, grid: settings.gridSystem) else {
            return .recompute(reason: "the query settings differ from the grid count state's")
        }
        if let reason = Self.placesDiffer(header, places) { return .recompute(reason: reason) }
        guard parameters.asOf >= header.asOf else { return .recompute(reason: "the as-of moved backwards") }
        let (ingested, complete) = (journal.start != nil, journal.isComplete)
        guard ingested ? complete && journal.start == before && (journal.end ?? before) == after : before == after
        else {
            return .recompute(reason: "what the ingest changed is not fully known (the column snapshot was rebuilt)")
        }
        var known: ColumnSnapshot?
        if ingested {
            guard let snapshot, snapshot.stamp == after, snapshot.rowidsAreDense else {
                return .recompute(reason: "the store's content after the ingest is not known (no column snapshot)")
            }
            known = snapshot
        }
        var stateParameters = parameters
        stateParameters.asOf = header.asOf
        switch GridCountStateFile.decode(data, parameters: stateParameters, system: settings.gridSystem) {
        case .failure(let error): return .recompute(reason: "the grid count state is unreadable (\(error))")
        case .success(let (state, _)):
            guard state.covers(places) else {
                return .recompute(reason: "the grid count state is unreadable (its places do not match their digests)")
            }
            let ranges = state.crossingRanges(to: parameters.asOf)
            // Row i of the columns is rowid i + 1 only when the rowids are 1…n (rows never deleted).
            guard ranges.isEmpty || Int64(columns.count) == after.lastIncidentRowid else {
                return .recompute(reason: "the store's content after the ingest is not known (rowids with gaps)")
            }
            let crossing: [Incident]
            do { crossing = try self.crossing(ranges, columns: columns) } catch {
                return .recompute(reason: "the incidents crossing a window bound could not be read (\(error))")
            }
            let (removing, adding) = known.map { delta(snapshot: $0) } ?? ([], [])
            return .apply(state, crossing: crossing, removing: removing, adding: adding, places: places)
        }
    }

    /// Why the state's points of interest, areas or breakdown are not tonight's (SPEC §20); nil
    /// when they are.
    static func placesDiffer(_ header: GridCountStateFile.Binding, _ places: ReportPlaces) -> String? {
        func differ(_ name: String, _ held: UInt64, _ tonight: UInt64) -> String? {
            guard held != tonight else { return nil }
            let how =
                held == 0
                ? "it counts none" : tonight == 0 ? "the report asks for none" : "the file changed"
            return "\(name) from the grid count state's (\(how))"
        }
        return differ("the points of interest differ", header.points, places.pointsDigest)
            ?? differ("the areas differ", header.areas, places.areasDigest)
            ?? differ("the breakdown differs", header.breakdown, places.breakdownDigest)
    }

    /// The incidents the store held before the night whose time lies in `ranges`, with their
    /// content before the night: their rowids from the store's time index after the ingest, less
    /// the rows added tonight (past the starting last rowid) and the rows updated tonight, whose
    /// originals (the journal's) are taken instead when their time before the night is in range.
    /// Rows are never deleted, so every other row's content is what it was before the night, and
    /// what it is now in `columns` (row rowid − 1).
    private func crossing(_ ranges: [(low: Int64, high: Int64)], columns: IncidentColumns) throws -> [Incident] {
        guard !ranges.isEmpty, let before, let after else { return [] }
        let store = try IncidentStore(path: storePath, mode: .readOnly)
        var out: [Incident] = []
        try store.reading {
            guard try store.stamp() == after else {
                throw JobError(.inputOrStore, "the store changed after the ingest")
            }
            for range in ranges {
                for rowid in try store.rowids(timeAfter: range.low, through: range.high)
                where rowid <= before.lastIncidentRowid && journal.originals[rowid] == nil {
                    out.append(Self.incident(columns, Int(rowid - 1)))
                }
            }
        }
        for (_, row) in journal.originals.sorted(by: { $0.key < $1.key })
        where ranges.contains(where: { row.time > $0.low && row.time <= $0.high }) {
            out.append(Self.incident(row))
        }
        return out
    }

    private static func incident(_ columns: IncidentColumns, _ i: Int) -> Incident {
        let category = columns.category[i]
        return Incident(
            key: "", time: columns.time[i], precision: .second, lat: columns.lat[i], lon: columns.lon[i],
            category: category < 0 ? nil : columns.categories[Int(category)],
            handled: columns.handled[i] < 0 ? nil : columns.handled[i] == 1)
    }

    /// The night's delta: the original content of the updated rows out, their content now and
    /// the rows added in.
    private func delta(snapshot: ColumnSnapshot) -> (removing: [Incident], adding: [Incident]) {
        let removing = journal.originals.values.map(Self.incident)
        var adding = journal.originals.keys.map { Self.incident(snapshot.row(at: Int($0 - 1))) }
        let first = Int(before?.lastIncidentRowid ?? 0)
        for i in first..<snapshot.count { adding.append(Self.incident(snapshot.row(at: i))) }
        return (removing, adding)
    }

    private static func incident(_ row: ColumnSnapshot.Row) -> Incident {
        Incident(
            key: "", time: row.time, precision: .second, lat: row.lat, lon: row.lon, category: row.category,
            handled: row.handled)
    }

    /// Writes the state bound to the store after the ingest (temp file + rename); a failure is
    /// a note, never a failed night: the next night recomputes.
    func save(_ state: GridCountState, settings: ReportSettings) -> String? {
        guard let after else { return "grid count state not written: the store's stamp is not known" }
        let binding = GridCountStateFile.Binding(
            stamp: after, settings: Self.settingsText(state.parameters, grid: settings.gridSystem),
            asOf: state.parameters.asOf, points: state.pointsDigest, areas: state.areasDigest,
            breakdown: state.breakdownDigest)
        let bytes = GridCountStateFile.encode(state, binding: binding)
        // Under the store's lock: a temporary file beside the state is a killed run's.
        ColumnSnapshotFile.removeLeftovers(of: statePath)
        let temporary = statePath + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)),
            rename(temporary, statePath) == 0
        else {
            unlink(temporary)
            unlink(statePath)
            return "grid count state not written: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// The file's bytes; nil when there is none (or it cannot be read).
    static func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
}
