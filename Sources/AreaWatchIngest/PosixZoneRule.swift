import AreaWatchCore

/// The rule a TZif file's footer gives for instants after its last transition (RFC 8536 §3.3): a
/// POSIX TZ string such as `EST5EDT,M3.2.0,M11.1.0` or `<-03>3<-02>,M3.5.0/-2,M10.5.0/-1`, with
/// the RFC's extensions (a rule time from −167 to 167 hours). Offsets here are seconds east of
/// UTC, the opposite sign of the string's.
struct PosixZoneRule: Sendable, Equatable {
    /// A day of the year on which daylight time starts or ends, and the local time of the change.
    enum Day: Sendable, Equatable {
        /// `Jn`: day 1…365 of the year, 29 February never counted.
        case julianNoLeap(Int)
        /// `n`: day 0…365 of the year, 29 February counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday d (0 = Sunday) of week w (1…5, 5 = the last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    struct Change: Sendable, Equatable {
        var day: Day
        /// Seconds after local midnight (standard time for the start, daylight time for the end).
        var time: Int64
    }

    let standardOffset: Int64
    /// nil: standard time all year.
    let daylight: (offset: Int64, start: Change, end: Change)?

    static func == (a: PosixZoneRule, b: PosixZoneRule) -> Bool {
        a.standardOffset == b.standardOffset && a.daylight?.offset == b.daylight?.offset
            && a.daylight?.start == b.daylight?.start && a.daylight?.end == b.daylight?.end
    }

    /// The offset in force at instant `t`.
    func offset(at t: Int64) -> Int64 {
        guard let daylight else { return standardOffset }
        // The last change at or before t, among those of the years around t's.
        var state = standardOffset
        var latest = Int64.min
        let year = UTCTime.civil(t + standardOffset).year
        for y in (year - 1)...(year + 1) {
            for change in changes(year: y) where change.instant <= t && change.instant >= latest {
                // On a tie a start wins over an end (a rule of daylight time all year).
                if change.instant > latest || change.offset == daylight.offset { state = change.offset }
                latest = change.instant
            }
        }
        return state
    }

    /// The two changes of a year: when daylight time starts (to its offset) and ends.
    func changes(year: Int) -> [(instant: Int64, offset: Int64)] {
        guard let daylight else { return [] }
        let start = PosixZoneRule.localSeconds(daylight.start, year: year) - standardOffset
        let end = PosixZoneRule.localSeconds(daylight.end, year: year) - daylight.offset
        return [(end, standardOffset), (start, daylight.offset)]
    }

    /// Local seconds since 1970 of a change in a year.
    static func localSeconds(_ change: Change, year: Int) -> Int64 {
        let first = UTCTime.days(year: year, month: 1, day: 1)
        let day: Int64
        switch change.day {
        case .julianNoLeap(let n):
            day = first + Int64(n - 1) + (UTCTime.isLeapYear(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = first + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let monthStart = UTCTime.days(year: year, month: month, day: 1)
            let startWeekday = Int((monthStart % 7 + 7 + 4) % 7) // 1970-01-01 was a Thursday (4)
            var d = monthStart + Int64((weekday - startWeekday + 7) % 7 + 7 * (week - 1))
            let length = Int64(UTCTime.daysInMonth(year: year, month: month))
            while d >= monthStart + length { d -= 7 }
            day = d
        }
        return day * 86_400 + change.time
    }

    // MARK: - Parsing

    /// Parses a TZ string; nil when it is not one this reader understands.
    init?(_ text: String) {
        var p = Parser(Array(text.utf8))
        guard p.name() != nil, let std = p.offset(maxHours: 24) else { return nil }
        standardOffset = -std
        if p.atEnd {
            daylight = nil
            return
        }
        guard p.name() != nil else { return nil }
        var dstOffset = standardOffset + 3600
        if !p.peek(UInt8(ascii: ",")), !p.atEnd {
            guard let given = p.offset(maxHours: 24) else { return nil }
            dstOffset = -given
        }
        // Without dates the POSIX default of glibc (and of the US rules): M3.2.0,M11.1.0.
        var start = Change(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
        var end = Change(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
        if p.take(UInt8(ascii: ",")) {
            guard let s = p.change(), p.take(UInt8(ascii: ",")), let e = p.change() else { return nil }
            start = s
            end = e
        }
        guard p.atEnd else { return nil }
        daylight = (dstOffset, start, end)
    }

    static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
    static func isDigit(_ b: UInt8) -> Bool { (48...57).contains(b) }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { i == bytes.count }
        func peek(_ b: UInt8) -> Bool { i < bytes.count && bytes[i] == b }

        mutating func take(_ b: UInt8) -> Bool {
            guard peek(b) else { return false }
            i += 1
            return true
        }

        /// `ABC` (three letters or more) or `<+0330>` (quoted: letters, digits, `+`, `-`).
        mutating func name() -> String? {
            let start = i
            if take(UInt8(ascii: "<")) {
                while i < bytes.count && bytes[i] != UInt8(ascii: ">") { i += 1 }
                guard i - start - 1 >= 3, take(UInt8(ascii: ">")) else { return nil }
                return String(decoding: bytes[(start + 1)..<(i - 1)], as: UTF8.self)
            }
            while i < bytes.count && PosixZoneRule.isLetter(bytes[i]) { i += 1 }
            guard i - start >= 3 else { return nil }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        mutating func number(maxDigits: Int) -> Int? {
            let start = i
            var value = 0
            while i < bytes.count && i - start < maxDigits && PosixZoneRule.isDigit(bytes[i]) {
                value = value * 10 + Int(bytes[i] - 48)
                i += 1
            }
            return i > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds (sign as written: positive is west of Greenwich).
        mutating func offset(maxHours: Int) -> Int64? {
            var sign: Int64 = 1
            if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
            guard let h = number(maxDigits: 3), h <= maxHours else { return nil }
            var seconds = Int64(h) * 3600
            if take(UInt8(ascii: ":")) {
                guard let m = number(maxDigits: 2), m < 60 else { return nil }
                seconds += Int64(m) * 60
                if take(UInt8(ascii: ":")) {
                    guard let s = number(maxDigits: 2), s < 60 else { return nil }
                    seconds += Int64(s)
                }
            }
            return sign * seconds
        }

        /// `Jn`, `n` or `Mm.w.d`, then `/time` (default 02:00:00; RFC 8536: −167…167 hours).
        mutating func change() -> Change? {
            let day: Day
            if take(UInt8(ascii: "J")) {
                guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
                day = .julianNoLeap(n)
            } else if take(UInt8(ascii: "M")) {
                guard let m = number(maxDigits: 2), (1...12).contains(m), take(UInt8(ascii: ".")),
                    let w = number(maxDigits: 1), (1...5).contains(w), take(UInt8(ascii: ".")),
                    let d = number(maxDigits: 1), (0...6).contains(d)
                else { return nil }
                day = .monthWeekDay(month: m, week: w, weekday: d)
            } else {
                guard let n = number(maxDigits: 3), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            var time: Int64 = 7200
            if take(UInt8(ascii: "/")) {
                guard let t = offset(maxHours: 167) else { return nil }
                time = t
            }
            return Change(day: day, time: time)
        }
    }
}
