import AreaWatchCore

/// The incidents whose window can still change, sorted by time: those after the start of the
/// previous window (T − 2 years), the future ones included. An older incident stays older while
/// the as-of only moves forward, so it is not kept here (its calendar year never changes).
///
/// Times sorted make the incidents that cross a window bound when the as-of moves one binary
/// search per bound, not a scan of every incident. A night's changes cost what they touch, not
/// the whole timeline: entries that fall behind T − 2 years are skipped by `start`, removed ones
/// are marked in place, and additions (mostly recent) are merged into the tail from their
/// earliest time on. The skipped and marked entries are compacted away once they make up half.
struct IncidentTimeline: Sendable {
    struct Entry: Sendable {
        var time: Int64
        var lat: Double
        var lon: Double
        /// 1 true, 0 false, -1 unknown; `removedMark` once removed.
        var handled: Int8

        static let removedMark = Int8.min

        var isRemoved: Bool { handled == Entry.removedMark }

        func isSame(as other: Entry) -> Bool {
            time == other.time && lat.bitPattern == other.lat.bitPattern && lon.bitPattern == other.lon.bitPattern
                && handled == other.handled
        }
    }

    /// Ascending time from `start` on (entries before it are dropped, awaiting compaction).
    private(set) var entries: [Entry] = []
    private(set) var start = 0
    /// Entries from `start` on that are marked removed.
    private var removedCount = 0

    /// Entries held (not dropped, not removed).
    var count: Int { entries.count - start - removedCount }

    /// The entries, in any order, sorted here.
    init(_ unsorted: [Entry] = []) {
        entries = unsorted.sorted { $0.time < $1.time }
        // Room for nights of additions: growing a full array copies the whole timeline.
        entries.reserveCapacity(entries.count + entries.count / 8 + 1024)
    }

    /// The entries held, in time order.
    var liveEntries: [Entry] { entries[start...].filter { !$0.isRemoved } }

    /// Positions of the entries with `low < time <= high` (removed ones included: skip them).
    func positions(after low: Int64, through high: Int64) -> Range<Int> {
        guard low < high else { return start..<start }
        return firstPosition(after: low)..<max(firstPosition(after: low), firstPosition(after: high))
    }

    /// The first position from `start` on whose time is after `time` (`entries.count` if none).
    private func firstPosition(after time: Int64) -> Int {
        start + IncidentIndex.firstIndex(in: entries.count - start) { entries[start + $0].time > time }
    }

    /// Marks an entry equal to `entry` (not yet removed) removed; false when none is held.
    mutating func remove(_ entry: Entry) -> Bool {
        var k = start + IncidentIndex.firstIndex(in: entries.count - start) { entries[start + $0].time >= entry.time }
        while k < entries.count && entries[k].time == entry.time {
            if entries[k].isSame(as: entry) {
                entries[k].handled = Entry.removedMark
                removedCount += 1
                return true
            }
            k += 1
        }
        return false
    }

    /// Drops the entries at or before `oldest` (no longer able to change window) and merges
    /// `added` (kept only when after `oldest`) in time order; equal times keep stored entries first.
    mutating func update(adding added: [Entry], droppingThrough oldest: Int64) {
        let first = firstPosition(after: oldest)
        removedCount -= entries[start..<first].reduce(0) { $0 + ($1.isRemoved ? 1 : 0) }
        start = first
        let incoming = added.filter { $0.time > oldest }.sorted { $0.time < $1.time }
        if let earliest = incoming.first?.time {
            let tail = firstPosition(after: earliest)
            var merged: [Entry] = []
            merged.reserveCapacity(entries.count - tail + incoming.count)
            var a = tail, b = 0
            while a < entries.count || b < incoming.count {
                if b == incoming.count || (a < entries.count && entries[a].time <= incoming[b].time) {
                    merged.append(entries[a])
                    a += 1
                } else {
                    merged.append(incoming[b])
                    b += 1
                }
            }
            entries.replaceSubrange(tail..., with: merged)
        }
        if start + removedCount > entries.count / 2 { compact() }
    }

    /// Rewrites the entries without the dropped and removed ones.
    private mutating func compact() {
        entries = entries[start...].filter { !$0.isRemoved }
        start = 0
        removedCount = 0
    }
}
