import AreaWatchCore
import Foundation

/// `--timezone`: an IANA zone whose rules turn local wall times into UTC (SPEC §2.5).
///
/// The rules are Foundation's `TimeZone` (the IANA database as the Swift runtime ships it):
/// rules of our own would go stale with every government decision. Only this type, in Ingest,
/// touches it; Core stays free of I/O.
public struct LocalTimeZone: Sendable, Equatable {
    public let identifier: String
    let zone: TimeZone

    /// The zone of that IANA name; case is forgiven (`america/chicago`), abbreviations such as
    /// `CST` are not names. A usage error names the zone when it is unknown.
    public init(named name: String) throws(TimeFormatError) {
        let known = TimeZone.knownTimeZoneIdentifiers
        guard !known.isEmpty else {
            throw TimeFormatError(message: "--timezone \(name): no time-zone database is available on this machine")
        }
        let wanted = name.lowercased()
        guard !name.isEmpty, name.utf8.count <= 64,
              let identifier = known.first(where: { $0 == name }) ?? known.first(where: { $0.lowercased() == wanted }),
              let zone = TimeZone(identifier: identifier) else {
            throw TimeFormatError(message: "--timezone: unknown time zone '\(name.prefix(64))'; give an IANA name such as America/Chicago, America/New_York or Europe/London")
        }
        self.identifier = identifier
        self.zone = zone
    }

    public static func == (a: LocalTimeZone, b: LocalTimeZone) -> Bool { a.identifier == b.identifier }
}

/// Local wall time → UTC in one zone, with a cache per local day: a day without a change of
/// offset (all but a few a year) converts by one subtraction; only the days of a change ask
/// the rules for each value. One per reader: not shared between threads.
final class ZoneConverter {
    private let zone: TimeZone
    private static let slots = 4096
    /// Raw storage, not arrays: a class's array properties pay an exclusivity check on every
    /// access, and this lookup runs once per record.
    private let days = UnsafeMutablePointer<Int64>.allocate(capacity: ZoneConverter.slots)
    /// The day's offset in seconds east of UTC, or `irregular`.
    private let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: ZoneConverter.slots)
    private static let irregular = Int32.min
    /// Wider than any offset the database has (Asia/Manila's LMT was −15:56): every instant
    /// that can show a given wall time lies within this of it.
    private static let window: Int64 = 18 * 3600

    init(_ zone: LocalTimeZone) {
        self.zone = zone.zone
        days.initialize(repeating: .min, count: ZoneConverter.slots)
        offsets.initialize(repeating: 0, count: ZoneConverter.slots)
    }

    deinit {
        days.deallocate()
        offsets.deallocate()
    }

    /// The instant of a wall time: the earlier one when clocks going back repeat it; nil when
    /// clocks going forward skip it — except for a date or month, which then starts at the
    /// first instant that exists (a day whose midnight is skipped still has a start).
    @inline(__always)
    func instant(_ wall: Int64, precision: TimePrecision) -> Int64? {
        let day = UTCTime.floorDivide(wall, 86_400)
        let slot = Int(UInt64(bitPattern: day) & UInt64(ZoneConverter.slots - 1))
        if days[slot] != day {
            days[slot] = day
            offsets[slot] = regularOffset(day: day) ?? ZoneConverter.irregular
        }
        let offset = offsets[slot]
        if offset != ZoneConverter.irregular { return wall - Int64(offset) }
        return exact(wall, precision: precision)
    }

    private func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// Every instant that shows `wall` (at most a few; none in a gap).
    private func candidates(_ wall: Int64) -> [Int64] {
        var offsets = [offset(at: wall - ZoneConverter.window), offset(at: wall + ZoneConverter.window)]
        for o in offsets { offsets.append(offset(at: wall - o)) }
        var found: [Int64] = []
        for o in offsets where offset(at: wall - o) == o && !found.contains(wall - o) { found.append(wall - o) }
        return found
    }

    /// The one offset of the whole local day, when no instant of it is skipped or repeated.
    private func regularOffset(day: Int64) -> Int32? {
        let start = day * 86_400, end = start + 86_399
        let first = candidates(start), last = candidates(end)
        guard first.count == 1, last.count == 1 else { return nil }
        let o = start - first[0]
        guard end - last[0] == o else { return nil }
        // No change of offset in between (one that went and came back within a day).
        if let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(first[0]))),
           next.timeIntervalSince1970 <= Double(last[0]) {
            return nil
        }
        return Int32(o)
    }

    private func exact(_ wall: Int64, precision: TimePrecision) -> Int64? {
        let found = candidates(wall)
        if let earliest = found.min() { return earliest }
        guard precision != .second else { return nil }
        // In a gap: the first instant whose wall time is at or after `wall` (binary search over
        // the gap, whose bounds the offsets on either side give).
        let before = offset(at: wall - ZoneConverter.window), after = offset(at: wall + ZoneConverter.window)
        var lo = wall - max(before, after), hi = wall - min(before, after)
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if mid + offset(at: mid) >= wall { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
