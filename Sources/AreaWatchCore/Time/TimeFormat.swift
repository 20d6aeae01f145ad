/// Why a `--time-format` pattern was refused (a usage error: the message names the problem).
public struct TimeFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}

/// A strftime-style time pattern (SPEC §2.5), compiled once into a short program of steps and
/// run over each value's bytes without allocating.
///
/// Directives: `%Y` (1–4 digits) `%y` (2 digits; 69–99 → 19xx, 00–68 → 20xx, as POSIX) `%m`
/// `%d` `%e` `%H` `%I` `%M` `%S` (1–2 digits; `%e` and every number may follow blanks) `%j`
/// (1–3 digits) `%b`/`%B` (English month name or its 3-letter abbreviation, any case) `%p`
/// (AM/PM, any case) `%z` (`Z`, `±hh`, `±hhmm`, `±hh:mm`) `%Z` (`UTC`, `GMT` or `Z` only:
/// other abbreviations are ambiguous) `%%`. A blank in the pattern matches any run of blanks,
/// none included; every other byte matches itself. Numbers are read greedily up to their width,
/// so matching is one pass, never backtracking: work is linear in the value's length.
public struct TimeFormat: Sendable, Equatable {
    /// Patterns longer than this are refused: a real one is a few dozen bytes.
    public static let maxPatternBytes = 256

    enum Field: UInt8 { case year4, year2, month, day, dayOfYear, hour24, hour12, minute, second }

    enum Step: Sendable, Equatable {
        case literal(UInt8)
        case blanks
        case number(Field, maxDigits: Int)
        case monthName
        case meridiem
        case offset
        case zoneName
    }

    let steps: [Step]
    public let pattern: String
    /// What a match is precise to: seconds when the pattern has an hour, else day or month.
    public let precision: TimePrecision

    /// Compiles a pattern; a pattern that could never give a date is a usage error.
    public static func compile(_ pattern: String) throws(TimeFormatError) -> TimeFormat {
        let bytes = Array(pattern.utf8)
        guard !bytes.isEmpty else { throw TimeFormatError(message: "--time-format is empty") }
        guard bytes.count <= maxPatternBytes else {
            throw TimeFormatError(message: "--time-format is \(bytes.count) bytes long; at most \(maxPatternBytes)")
        }
        var steps: [Step] = []
        var seen: [String: Character] = [:] // kind of field → the directive that gave it
        func claim(_ kind: String, _ directive: Character) throws(TimeFormatError) {
            if let earlier = seen[kind] {
                throw TimeFormatError(message: "--time-format gives the \(kind) twice (%\(earlier) and %\(directive))")
            }
            seen[kind] = directive
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if b == 32 || b == 9 {
                if steps.last != .blanks { steps.append(.blanks) }
                continue
            }
            guard b == UInt8(ascii: "%") else {
                steps.append(.literal(b))
                continue
            }
            guard i < bytes.count else {
                throw TimeFormatError(message: "--time-format ends with a lone '%' (write %% for a percent sign)")
            }
            let d = bytes[i]
            i += 1
            let directive = Character(Unicode.Scalar(d))
            if d == UInt8(ascii: "%") {
                steps.append(.literal(d))
                continue
            }
            guard let (kind, step) = directiveStep(d) else {
                let shown = d < 0x80 && d >= 0x20 ? "%\(directive)" : "'%' followed by byte \(d)"
                throw TimeFormatError(
                    message:
                        "--time-format has an unknown directive \(shown); known: %Y %y %m %d %e %H %I %M %S %p %b %B %j %z %Z %%"
                )
            }
            try claim(kind, directive)
            steps.append(step)
        }
        return TimeFormat(steps: steps, pattern: pattern, precision: try precision(of: seen))
    }

    /// The kind of field a directive letter gives and the step that reads it; nil for an unknown
    /// letter (`%%` is a literal, handled by the caller).
    private static func directiveStep(_ d: UInt8) -> (kind: String, step: Step)? {
        switch d {
        case UInt8(ascii: "Y"): ("year", .number(.year4, maxDigits: 4))
        case UInt8(ascii: "y"): ("year", .number(.year2, maxDigits: 2))
        case UInt8(ascii: "m"): ("month", .number(.month, maxDigits: 2))
        case UInt8(ascii: "b"), UInt8(ascii: "B"): ("month", .monthName)
        case UInt8(ascii: "d"), UInt8(ascii: "e"): ("day", .number(.day, maxDigits: 2))
        case UInt8(ascii: "j"): ("day of the year", .number(.dayOfYear, maxDigits: 3))
        case UInt8(ascii: "H"): ("hour", .number(.hour24, maxDigits: 2))
        case UInt8(ascii: "I"): ("hour", .number(.hour12, maxDigits: 2))
        case UInt8(ascii: "M"): ("minute", .number(.minute, maxDigits: 2))
        case UInt8(ascii: "S"): ("second", .number(.second, maxDigits: 2))
        case UInt8(ascii: "p"): ("AM/PM", .meridiem)
        case UInt8(ascii: "z"): ("zone", .offset)
        case UInt8(ascii: "Z"): ("zone", .zoneName)
        default: nil
        }
    }

    /// The precision of a pattern giving these kinds of field (each with the directive that gave
    /// it); a usage error when they could never make a date.
    private static func precision(of seen: [String: Character]) throws(TimeFormatError) -> TimePrecision {
        let has = { (kind: String) in seen[kind] != nil }
        guard has("year") else { throw TimeFormatError(message: "--time-format has no year (%Y or %y)") }
        if has("day of the year") && (has("month") || has("day")) {
            throw TimeFormatError(message: "--time-format gives both %j and a month or day; give one")
        }
        if has("day") && !has("month") {
            throw TimeFormatError(message: "--time-format has a day but no month (%m, %b or %B)")
        }
        // A year alone (`%Y`, the suggestion for year columns, SPEC §2.4) is 1 January 00:00 with
        // precision month, the coarsest the incident model has.
        if !has("month") && !has("day of the year") && seen.count > 1 {
            throw TimeFormatError(message: "--time-format has no month (%m, %b or %B) or day of the year (%j)")
        }
        let hasDay = has("day") || has("day of the year")
        if has("hour") && !hasDay {
            throw TimeFormatError(message: "--time-format has a time of day but no day (%d, %e or %j)")
        }
        if has("minute") && !has("hour") {
            throw TimeFormatError(message: "--time-format has minutes but no hour (%H or %I)")
        }
        if has("second") && !has("minute") {
            throw TimeFormatError(message: "--time-format has seconds but no minutes (%M)")
        }
        if seen["hour"] == "I" && !has("AM/PM") {
            throw TimeFormatError(message: "--time-format has a 12-hour %I but no %p (AM/PM)")
        }
        if has("AM/PM") && seen["hour"] != "I" {
            throw TimeFormatError(message: "--time-format has %p but no 12-hour %I")
        }
        if has("zone") && !has("hour") { throw TimeFormatError(message: "--time-format has a zone but no time of day") }
        return has("hour") ? .second : (hasDay ? .day : .month)
    }

    public static func == (a: TimeFormat, b: TimeFormat) -> Bool { a.pattern == b.pattern }

    /// Matches the whole value (blanks around it ignored); nil when it does not match or names
    /// an impossible date or time.
    public func parse(_ raw: Span<UInt8>) -> WallTime? {
        var lo = 0, hi = raw.count
        while lo < hi && TimeFormat.isBlank(raw[unchecked: lo]) { lo += 1 }
        while hi > lo && TimeFormat.isBlank(raw[unchecked: hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        var i = lo
        var year = -1, month = 1, day = 1, dayOfYear = -1, hour = 0, minute = 0, second = 0
        var pm: Bool?
        var offset: Int32?
        for step in steps {
            switch step {
            case .literal(let b):
                guard i < hi, raw[unchecked: i] == b else { return nil }
                i += 1
            case .blanks:
                while i < hi && TimeFormat.isBlank(raw[unchecked: i]) { i += 1 }
            case .number(let field, let maxDigits):
                while i < hi && TimeFormat.isBlank(raw[unchecked: i]) { i += 1 }
                var value = 0, digits = 0
                while digits < maxDigits && i < hi {
                    let d = raw[unchecked: i] &- 48
                    guard d < 10 else { break }
                    value = value * 10 + Int(d)
                    digits += 1
                    i += 1
                }
                guard digits > 0 else { return nil }
                switch field {
                case .year4: year = value
                case .year2:
                    guard digits == 2 else { return nil }
                    year = value >= 69 ? 1900 + value : 2000 + value
                case .month: month = value
                case .day: day = value
                case .dayOfYear: dayOfYear = value
                case .hour24, .hour12: hour = value
                case .minute: minute = value
                case .second: second = value
                }
            case .monthName:
                guard let (m, end) = TimeFormat.monthName(raw, from: i, to: hi) else { return nil }
                month = m
                i = end
            case .meridiem:
                guard i + 2 <= hi, raw[unchecked: i + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
                switch raw[unchecked: i] | 0x20 {
                case UInt8(ascii: "a"): pm = false
                case UInt8(ascii: "p"): pm = true
                default: return nil
                }
                i += 2
            case .offset:
                guard let (o, end) = TimeFormat.offset(raw, from: i, to: hi) else { return nil }
                offset = o
                i = end
            case .zoneName:
                guard let end = TimeFormat.zoneName(raw, from: i, to: hi) else { return nil }
                i = end
                offset = 0
            }
        }
        guard i == hi else { return nil }
        return Self.wallTime(
            year: year, month: month, day: day, dayOfYear: dayOfYear,
            clock: (hour, minute, second), pm: pm, offset: offset, precision: precision)
    }

    /// The fields a pattern read as one wall time; nil when they name an impossible date or time.
    @inline(__always)
    static func wallTime(
        year: Int, month: Int, day: Int, dayOfYear: Int, clock: (hour: Int, minute: Int, second: Int),
        pm: Bool?, offset: Int32?, precision: TimePrecision
    ) -> WallTime? {
        guard year >= 1, year <= 9999 else { return nil }
        var (month, day, hour) = (month, day, clock.hour)
        let (minute, second) = (clock.minute, clock.second)
        if dayOfYear >= 0 {
            let length = UTCTime.isLeapYear(year) ? 366 : 365
            guard dayOfYear >= 1, dayOfYear <= length else { return nil }
            day = dayOfYear
            month = 1 // day N of January counts on past the month: days() is linear in the day
        } else {
            guard month >= 1, month <= 12, day >= 1, day <= UTCTime.daysInMonth(year: year, month: month) else {
                return nil
            }
        }
        if let pm {
            guard hour >= 1, hour <= 12 else { return nil }
            hour = hour % 12 + (pm ? 12 : 0)
        }
        // 24:00:00 is the next midnight and second 60 a leap second, as in SPEC §2.4 texts.
        guard minute < 60, second <= 60, hour < 24 || (hour == 24 && minute == 0 && second == 0) else { return nil }
        let wall = UTCTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return WallTime(wall: wall, precision: precision, offset: offset)
    }

    @inline(__always)
    static func isBlank(_ b: UInt8) -> Bool { b == 32 || b == 9 }

    /// `Z`, `UTC` or `GMT` (any case) at `i`: where it ends, nil when none is there.
    @inline(__always)
    static func zoneName(_ raw: Span<UInt8>, from i: Int, to hi: Int) -> Int? {
        if i < hi, raw[unchecked: i] | 0x20 == UInt8(ascii: "z") { return i + 1 }
        guard i + 3 <= hi else { return nil }
        let word =
            (UInt32(raw[unchecked: i] | 0x20) << 16) | (UInt32(raw[unchecked: i + 1] | 0x20) << 8)
            | UInt32(raw[unchecked: i + 2] | 0x20)
        guard word == 0x75_74_63 || word == 0x67_6D_74 else { return nil } // utc gmt
        return i + 3
    }

    private static let months: [[UInt8]] = [
        "january", "february", "march", "april", "may", "june", "july",
        "august", "september", "october", "november", "december"
    ].map { Array($0.utf8) }

    /// An English month name or its first three letters, any case (the full name when it fits).
    private static func monthName(_ raw: Span<UInt8>, from start: Int, to end: Int) -> (Int, Int)? {
        for (index, name) in months.enumerated() {
            var k = 0
            while k < name.count && start + k < end && raw[unchecked: start + k] | 0x20 == name[k] { k += 1 }
            if k == name.count { return (index + 1, start + k) }
            if k >= 3 { return (index + 1, start + 3) }
        }
        return nil
    }

    /// `Z`, `±hh`, `±hhmm` or `±hh:mm`.
    private static func offset(_ raw: Span<UInt8>, from start: Int, to end: Int) -> (Int32, Int)? {
        var i = start
        guard i < end else { return nil }
        if raw[unchecked: i] | 0x20 == UInt8(ascii: "z") { return (0, i + 1) }
        let sign: Int32
        switch raw[unchecked: i] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        i += 1
        guard let hours = twoDigits(raw, &i, end), hours <= 23 else { return nil }
        var minutes: Int32 = 0
        if i < end && (raw[unchecked: i] == UInt8(ascii: ":") || raw[unchecked: i] &- 48 < 10) {
            if raw[unchecked: i] == UInt8(ascii: ":") { i += 1 }
            guard let m = twoDigits(raw, &i, end), m < 60 else { return nil }
            minutes = m
        }
        return (sign * (hours * 3600 + minutes * 60), i)
    }

    /// Two digits at `i` (before `end`) as a number, `i` moved past them; nil when they are not.
    @inline(__always)
    private static func twoDigits(_ raw: Span<UInt8>, _ i: inout Int, _ end: Int) -> Int32? {
        guard i + 2 <= end else { return nil }
        let a = raw[unchecked: i] &- 48, b = raw[unchecked: i + 1] &- 48
        guard a < 10, b < 10 else { return nil }
        i += 2
        return Int32(a) * 10 + Int32(b)
    }
}
