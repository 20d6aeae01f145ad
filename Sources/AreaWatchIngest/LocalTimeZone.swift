import AreaWatchCore
import Glibc

/// `--timezone`: an IANA zone whose rules turn local wall times into UTC (SPEC §2.5).
///
/// The rules are the system's tzdata (docs/DECISIONS.md, "time zones"): the TZif file of that
/// name under `/usr/share/zoneinfo` (or `$TZDIR`), read here, so that every zone the system
/// knows, its backward links (`US/Eastern`, `Asia/Calcutta`) included, is accepted with the
/// system's rules, and a tzdata update reaches areawatch as it reaches everything else on the
/// machine. Only this type, in Ingest, reads the files; Core stays free of I/O.
public struct LocalTimeZone: Sendable, Equatable {
    public let identifier: String
    let rules: ZoneRules

    /// The zone of that IANA name; case is forgiven (`america/chicago`), abbreviations such as
    /// `CST` are not names. A usage error names the zone when it is unknown.
    public init(named name: String) throws(TimeFormatError) {
        let shown = String(name.prefix(64)) + (name.count > 64 ? "…" : "")
        guard ZoneCatalog.isWellFormed(name) else {
            throw TimeFormatError(
                message: "--timezone: '\(shown)' is not a zone name; give an IANA name "
                    + "such as America/Chicago, America/New_York or Europe/London")
        }
        guard ZoneCatalog.isAvailable else {
            throw TimeFormatError(
                message: "--timezone \(shown): no time-zone database at \(ZoneCatalog.root) "
                    + "(install the tzdata package)")
        }
        var found: (name: String, rules: ZoneRules)?
        do {
            if let rules = try ZoneCatalog.load(name) {
                found = (name, rules)
            } else if let match = ZoneCatalog.caseInsensitiveMatch(name), let rules = try ZoneCatalog.load(match) {
                found = (match, rules)
            }
        } catch {
            throw TimeFormatError(message: "--timezone \(shown): the zone file cannot be read: \(error.message)")
        }
        guard let found else {
            let hint = ClosestName.closest(to: name, among: ZoneCatalog.names()).map { "; the closest is \($0)" } ?? ""
            throw TimeFormatError(
                message: "--timezone: unknown time zone '\(shown)'\(hint); give an IANA name "
                    + "such as America/Chicago, America/New_York or Europe/London")
        }
        identifier = found.name
        rules = found.rules
    }

    public static func == (a: LocalTimeZone, b: LocalTimeZone) -> Bool { a.identifier == b.identifier }
}

/// The zone names of the system's tzdata: every TZif file under the zoneinfo folder, links
/// included, except the `posix/` and `right/` copies (the same zones again, and the right/ ones
/// count leap seconds, which POSIX times do not), `posixrules` and `localtime` (not zone names).
enum ZoneCatalog {
    /// `$TZDIR` as glibc reads it, else Debian's folder.
    static var root: String {
        if let dir = getenv("TZDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/usr/share/zoneinfo"
    }

    static var isAvailable: Bool {
        var info = stat()
        return stat(root, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static let excludedTopLevel: Set<String> = ["posix", "right", "posixrules", "localtime"]

    /// Names of letters, digits, `_`, `-` and `+` between single `/`, nothing that leaves the
    /// folder or names a non-zone file.
    static func isWellFormed(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255 else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.first, !excludedTopLevel.contains(String(first)) else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part != "." && part != ".." && part.utf8.allSatisfy(isNameByte)
        }
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        PosixZoneRule.isLetter(b) || PosixZoneRule.isDigit(b) || "_-+.".utf8.contains(b)
    }

    /// The rules of the zone file of exactly that name, or nil when there is none (or it is not
    /// a TZif file: `zone.tab` and the like).
    static func load(_ name: String) throws(ZoneFileError) -> ZoneRules? {
        guard isWellFormed(name), let bytes = readZoneFile(root + "/" + name), bytes.starts(with: "TZif".utf8) else {
            return nil
        }
        return try ZoneRules(tzif: bytes)
    }

    /// The catalog's name that equals `name` but for case, if any.
    static func caseInsensitiveMatch(_ name: String) -> String? {
        let wanted = name.lowercased()
        return names().first { $0.lowercased() == wanted }
    }

    /// Every zone name, sorted.
    static func names() -> [String] {
        var found: [String] = []
        func walk(_ relative: String, depth: Int) {
            guard depth < 4 else { return }
            for name in DirectoryListing.names(of: relative.isEmpty ? root : root + "/" + relative) {
                if name.hasPrefix(".") || (relative.isEmpty && excludedTopLevel.contains(name)) { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(root + "/" + child, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    walk(child, depth: depth + 1)
                } else if isWellFormed(child), let head = readZoneFile(root + "/" + child, limit: 4),
                    head.starts(with: "TZif".utf8)
                {
                    found.append(child)
                }
            }
        }
        walk("", depth: 0)
        return found.sorted()
    }

    /// At most `limit` bytes of a regular file (following links), or nil.
    private static func readZoneFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: min(Int(info.st_size), limit))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return Array(bytes.prefix(done))
    }
}

/// Local wall time → UTC in one zone, with a cache per local day: a day without a change of
/// offset near it (all but a few a year) converts by one subtraction; only the days around a
/// change ask the rules for each value. One per reader: not shared between threads.
final class ZoneConverter {
    private let rules: ZoneRules
    private static let slots = 4096
    /// Fixed-size owned buffers, not arrays: a class's array properties pay an exclusivity check
    /// on every access, and this lookup runs once per record.
    private let days: GrowableBuffer<Int64>
    /// The day's offset in seconds east of UTC, or `irregular`.
    private let offsets: GrowableBuffer<Int32>
    private static let irregular = Int32.min
    /// Wider than any offset a TZif file may hold (RFC 8536: under 26 hours): every instant that
    /// shows a given wall time lies within this of it.
    private static let window: Int64 = 26 * 3600

    init(_ zone: LocalTimeZone) {
        rules = zone.rules
        var days = GrowableBuffer<Int64>(capacity: ZoneConverter.slots)
        days.append(repeating: .min, count: ZoneConverter.slots)
        self.days = days
        var offsets = GrowableBuffer<Int32>(capacity: ZoneConverter.slots)
        offsets.append(repeating: 0, count: ZoneConverter.slots)
        self.offsets = offsets
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

    /// The one offset of every wall time of the local day, when no change of offset happens
    /// within `window` of it: then each of its wall times shows at exactly one instant.
    private func regularOffset(day: Int64) -> Int32? {
        let start = day * 86_400, end = start + 86_399
        let window = ZoneConverter.window
        guard rules.changes(from: start - window, through: end + window).isEmpty else { return nil }
        return Int32(rules.offset(at: start))
    }

    /// Every instant that shows `wall`, earliest first; for a wall time in a gap with a date or
    /// month precision, the instant the gap ends.
    private func exact(_ wall: Int64, precision: TimePrecision) -> Int64? {
        let changes = rules.changes(from: wall - ZoneConverter.window, through: wall + ZoneConverter.window)
        var candidates = [rules.offset(at: wall - ZoneConverter.window)] + changes.map(\.after)
        candidates = candidates.filter { rules.offset(at: wall - $0) == $0 }
        if let earliest = candidates.map({ wall - $0 }).min() { return earliest }
        guard precision != .second else { return nil }
        // Clocks went forward over `wall`: the first instant whose wall time is at or after it.
        let forward = changes.first { c in
            c.after > c.before && c.instant + c.before <= wall && wall < c.instant + c.after
        }
        return forward?.instant
    }
}
