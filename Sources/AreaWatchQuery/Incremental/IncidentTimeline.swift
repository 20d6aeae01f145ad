import AreaWatchCore

/// The incidents whose window can still change, sorted by time: those after the start of the
/// previous window (T − 2 years), the future ones included. An older incident stays older while
/// the as-of only moves forward, so it is not kept here (its calendar year never changes).
///
/// Times sorted make the incidents that cross a window bound when the as-of moves one binary
/// search per bound, not a scan of every incident.
struct IncidentTimeline: Sendable {
    struct Entry: Sendable {
        var time: Int64
        var lat: Double
        var lon: Double
        /// 1 true, 0 false, -1 unknown.
        var handled: Int8

        func isSame(as other: Entry) -> Bool {
            time == other.time && lat.bitPattern == other.lat.bitPattern && lon.bitPattern == other.lon.bitPattern
                && handled == other.handled
        }
    }

    /// Ascending time.
    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    /// The entries, in any order, sorted here.
    init(_ unsorted: [Entry] = []) {
        entries = unsorted.sorted { $0.time < $1.time }
    }

    /// Positions of the entries with `low < time <= high`.
    func positions(after low: Int64, through high: Int64) -> Range<Int> {
        guard low < high else { return 0..<0 }
        let start = IncidentIndex.firstIndex(in: entries.count) { entries[$0].time > low }
        let end = IncidentIndex.firstIndex(in: entries.count) { entries[$0].time > high }
        return start..<max(start, end)
    }

    /// The position of an entry equal to `entry` that `taken` does not hold yet; nil when none is.
    func position(of entry: Entry, excluding taken: Set<Int>) -> Int? {
        var k = IncidentIndex.firstIndex(in: entries.count) { entries[$0].time >= entry.time }
        while k < entries.count && entries[k].time == entry.time {
            if entries[k].isSame(as: entry) && !taken.contains(k) { return k }
            k += 1
        }
        return nil
    }

    /// Drops the entries at `removed` and those at or before `oldest` (no longer able to change
    /// window), and merges `added` (kept only when after `oldest`) in time order.
    mutating func update(removing removed: Set<Int>, adding added: [Entry], droppingThrough oldest: Int64) {
        let incoming = added.filter { $0.time > oldest }.sorted { $0.time < $1.time }
        let skipped = removed.sorted()
        var merged: [Entry] = []
        merged.reserveCapacity(max(0, entries.count - removed.count) + incoming.count)
        var a = IncidentIndex.firstIndex(in: entries.count) { entries[$0].time > oldest }
        var b = 0, r = 0
        while a < entries.count || b < incoming.count {
            while r < skipped.count && skipped[r] < a { r += 1 }
            if a < entries.count && r < skipped.count && skipped[r] == a {
                a += 1
                continue
            }
            // Equal times keep the stored entry first: the order among equal times is arbitrary
            // (nothing reads it) but deterministic.
            if b == incoming.count || (a < entries.count && entries[a].time <= incoming[b].time) {
                merged.append(entries[a])
                a += 1
            } else {
                merged.append(incoming[b])
                b += 1
            }
        }
        entries = merged
    }
}
