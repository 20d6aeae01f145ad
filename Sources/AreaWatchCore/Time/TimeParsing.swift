/// An instant as an input gave it: whole UTC epoch seconds and how precise the source was.
public struct ParsedTime: Sendable, Hashable {
    public var seconds: Int64
    public var precision: TimePrecision

    public init(seconds: Int64, precision: TimePrecision) {
        self.seconds = seconds
        self.precision = precision
    }

    /// The instant when it lies in 0001-01-01 … 9999-12-31 (SPEC §2.4), else nil.
    public static func checked(_ seconds: Int64, _ precision: TimePrecision) -> ParsedTime? {
        guard seconds >= UTCTime.earliest && seconds <= UTCTime.latest else { return nil }
        return ParsedTime(seconds: seconds, precision: precision)
    }
}

/// A calendar time as a text wrote it, before any zone is applied: `wall` is the date and time
/// of day counted as if they were UTC epoch seconds, `offset` the zone the text named (seconds
/// east of UTC) or nil when it named none — then the reader's `--timezone` decides (SPEC §2.5).
public struct WallTime: Sendable, Hashable {
    public var wall: Int64
    public var precision: TimePrecision
    public var offset: Int32?

    public init(wall: Int64, precision: TimePrecision, offset: Int32?) {
        self.wall = wall
        self.precision = precision
        self.offset = offset
    }

    /// The instant when the text named its zone, or when the zone is UTC.
    public var instantInUTC: ParsedTime? {
        ParsedTime.checked(wall - Int64(offset ?? 0), precision)
    }
}

/// A time value before zone rules: an absolute epoch, or a calendar time.
public enum TimeValue: Sendable, Hashable {
    case instant(ParsedTime)
    case calendar(WallTime)
}

/// Time values of SPEC §2.4, parsed from bytes without allocating.
///
/// Accepted text (after trimming spaces):
/// - a decimal number: epoch seconds, or milliseconds when its magnitude is ≥ 1e11 (a whole
///   number of magnitude below 100,000 is a year, not a time: invalid);
/// - `YYYY-MM` (precision month), `YYYY-MM-DD` (precision day), `/` allowed for `-`;
/// - `YYYY-MM-DD[T or space]hh:mm[:ss[.fff…]][zone]` where zone is `Z`, `UTC`, `GMT`, `±hh`,
///   `±hhmm` or `±hh:mm`, optionally after one space; no zone means UTC; `24:00:00` is the next
///   midnight and second 60 a leap second folded into the next minute, as POSIX time does.
/// Fractional seconds are dropped (floor). Anything outside 0001-01-01 … 9999-12-31 is invalid.
public enum TimeParser {
    public static func parse(_ text: String) -> ParsedTime? {
        parse(text.utf8.span)
    }

    public static func parse(_ raw: Span<UInt8>) -> ParsedTime? {
        switch parseValue(raw) {
        case .instant(let t): return t
        case .calendar(let w): return w.instantInUTC
        case nil: return nil
        }
    }

    /// The value before zone rules: an epoch, or a calendar time with or without its zone.
    @inline(__always)
    public static func parseValue(_ raw: Span<UInt8>) -> TimeValue? {
        var lo = 0, hi = raw.count
        while lo < hi && isSpace(raw[unchecked: lo]) { lo += 1 }
        while hi > lo && isSpace(raw[unchecked: hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        let text = raw.extracting(unchecked: lo..<hi)
        if looksLikeCalendar(text) { return parseCalendar(text).map(TimeValue.calendar) }
        guard let value = DecimalParsing.parse(text), let t = fromEpoch(value) else { return nil }
        return .instant(t)
    }

    /// Why a whole number below 100,000 in a time field is `invalid_time` (SPEC §2.4), for the
    /// messages that explain rejects.
    public static let yearReason = "a year, not a time: use --time-format %Y"

    /// A whole number of magnitude below 100,000 (`2018`, `0`, `-5`): a year, a code or a
    /// placeholder, never a plausible incident time (seconds within 28 hours of 1970), so it is
    /// refused rather than counted in 1970 (SPEC §2.4).
    @inline(__always)
    public static func isYearLike(_ value: Double) -> Bool {
        abs(value) < 100_000 && value == value.rounded(.towardZero)
    }

    /// A JSON number or numeric text: epoch seconds, or milliseconds when |v| ≥ 1e11; nil for a
    /// year-like whole number (`isYearLike`).
    public static func fromEpoch(_ value: Double) -> ParsedTime? {
        guard value.isFinite, !isYearLike(value) else { return nil }
        let seconds: Double
        if abs(value) >= 1e11 {
            if value == value.rounded(.towardZero), abs(value) < 9e15 {
                return checked(UTCTime.floorDivide(Int64(value), 1000))
            }
            seconds = (value / 1000).rounded(.down)
        } else {
            seconds = value.rounded(.down)
        }
        guard abs(seconds) < 1e15 else { return nil }
        return checked(Int64(seconds))
    }

    private static func checked(_ seconds: Int64, _ precision: TimePrecision = .second) -> ParsedTime? {
        ParsedTime.checked(seconds, precision)
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == ASCII.space || b == ASCII.tab }

    @inline(__always)
    private static func isDigit(_ b: UInt8) -> Bool { b &- 48 < 10 }

    /// Four digits then `-` or `/`: a calendar form, not a number.
    private static func looksLikeCalendar(_ t: Span<UInt8>) -> Bool {
        t.count >= 7 && isDigit(t[unchecked: 0]) && isDigit(t[unchecked: 1]) && isDigit(t[unchecked: 2])
            && isDigit(t[unchecked: 3])
            && (t[unchecked: 4] == UInt8(ascii: "-") || t[unchecked: 4] == UInt8(ascii: "/"))
    }

    private static func parseCalendar(_ t: Span<UInt8>) -> WallTime? {
        var cursor = Cursor(count: t.count)
        guard let year = cursor.digits(4, t), year >= 1 else { return nil }
        let separator = t[unchecked: 4]
        cursor.index = 5
        guard let month = cursor.digits(2, t), (1...12).contains(month) else { return nil }
        if cursor.atEnd {
            return WallTime(
                wall: UTCTime.epochSeconds(CivilTime(year: year, month: month, day: 1)), precision: .month, offset: nil)
        }
        guard cursor.take(separator, t), let day = cursor.digits(2, t),
            day >= 1, day <= UTCTime.daysInMonth(year: year, month: month)
        else { return nil }
        if cursor.atEnd {
            return WallTime(
                wall: UTCTime.epochSeconds(CivilTime(year: year, month: month, day: day)), precision: .day, offset: nil)
        }
        guard cursor.take(UInt8(ascii: "T"), t) || cursor.take(UInt8(ascii: "t"), t) || cursor.take(ASCII.space, t),
            let hour = cursor.digits(2, t), cursor.take(ASCII.colon, t),
            let minute = cursor.digits(2, t), minute < 60
        else { return nil }
        var second = 0
        if cursor.take(ASCII.colon, t) {
            guard let s = cursor.digits(2, t), s <= 60 else { return nil }
            second = s
            if cursor.take(UInt8(ascii: "."), t) || cursor.take(ASCII.comma, t) {
                guard cursor.skipDigits(t) > 0 else { return nil }
            }
        }
        guard hour < 24 || (hour == 24 && minute == 0 && second == 0) else { return nil }
        guard let offset = parseZone(&cursor, t), cursor.atEnd else { return nil }
        let local =
            UTCTime.epochSeconds(CivilTime(year: year, month: month, day: day))
            + Int64(hour * 3600 + minute * 60 + second)
        return WallTime(wall: local, precision: .second, offset: offset.given ? Int32(offset.seconds) : nil)
    }

    /// Offset east of UTC in seconds, and whether the text gave a zone at all.
    private static func parseZone(_ c: inout Cursor, _ t: Span<UInt8>) -> (seconds: Int, given: Bool)? {
        if c.atEnd { return (0, false) }
        guard let seconds = parseGivenZone(&c, t) else { return nil }
        return (seconds, true)
    }

    private static func parseGivenZone(_ c: inout Cursor, _ t: Span<UInt8>) -> Int? {
        _ = c.take(ASCII.space, t)
        if c.take(UInt8(ascii: "Z"), t) || c.take(UInt8(ascii: "z"), t) { return 0 }
        if c.takeWord("UTC", t) || c.takeWord("GMT", t) { return 0 }
        let sign: Int
        if c.take(UInt8(ascii: "+"), t) {
            sign = 1
        } else if c.take(UInt8(ascii: "-"), t) {
            sign = -1
        } else {
            return nil
        }
        guard let hours = c.digits(2, t), hours <= 23 else { return nil }
        var minutes = 0
        if !c.atEnd {
            _ = c.take(ASCII.colon, t)
            guard let m = c.digits(2, t), m < 60 else { return nil }
            minutes = m
        }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// A position in the text being parsed; each step is given the text (a span cannot be stored
    /// in an escapable struct).
    private struct Cursor {
        let count: Int
        var index = 0

        var atEnd: Bool { index >= count }

        @inline(__always)
        mutating func take(_ b: UInt8, _ bytes: Span<UInt8>) -> Bool {
            guard index < count, bytes[unchecked: index] == b else { return false }
            index += 1
            return true
        }

        @inline(__always)
        mutating func takeWord(_ word: StaticString, _ bytes: Span<UInt8>) -> Bool {
            let n = word.utf8CodeUnitCount
            guard index + n <= count else { return false }
            for k in 0..<n where bytes[unchecked: index + k] != word.utf8Start[k] { return false }
            index += n
            return true
        }

        @inline(__always)
        mutating func digits(_ n: Int, _ bytes: Span<UInt8>) -> Int? {
            guard index + n <= count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = bytes[unchecked: index + k] &- 48
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            index += n
            return v
        }

        @inline(__always)
        mutating func skipDigits(_ bytes: Span<UInt8>) -> Int {
            let start = index
            while index < count, bytes[unchecked: index] &- 48 < 10 { index += 1 }
            return index - start
        }
    }
}
