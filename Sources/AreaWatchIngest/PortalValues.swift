import AreaWatchCore

/// How one reader turns time values into instants (SPEC §2.4, §2.5): `--time-format` first,
/// then the §2.4 forms; a calendar time that names no zone is local time in `--timezone`
/// (UTC when none is given). One per reader, not shared between threads.
final class TimeReader {
    private let format: TimeFormat?
    private let zone: ZoneConverter?
    /// `--column time=DATE+TIME` joins the two values here (grown on demand, reused).
    private var scratch = GrowableBuffer<UInt8>(capacity: 64)

    init(options: ReaderOptions) {
        format = options.timeFormat
        zone = options.timeZone.map(ZoneConverter.init)
    }

    /// A JSON number is an epoch; text is the pattern's, else §2.4's.
    @inline(__always)
    func parse(_ value: RawValue) -> ParsedTime? {
        switch value.kind {
        case .number:
            return DecimalParsing.parse(value.bytes.span).flatMap(TimeParser.fromEpoch)
        case .text:
            if let format, let wall = format.parse(value.bytes.span) { return resolve(wall) }
            switch TimeParser.parseValue(value.bytes.span) {
            case .instant(let t): return t
            case .calendar(let wall): return resolve(wall)
            case nil: return nil
            }
        default:
            return nil
        }
    }

    @inline(__always)
    private func resolve(_ wall: WallTime) -> ParsedTime? {
        guard wall.offset == nil, let zone else { return wall.instantInUTC }
        guard let seconds = zone.instant(wall.wall, precision: wall.precision) else { return nil }
        return ParsedTime.checked(seconds, wall.precision)
    }

    /// `DATE TIME` from two values (SPEC §2.5): an empty date is no time at all; an empty time
    /// part reads as `00:00:00`. The result lives until the next call.
    func join(_ date: RawValue, _ time: RawValue) -> RawValue {
        guard !date.isEmpty else { return .absent }
        scratch.removeAll()
        date.appendTrimmed(to: &scratch)
        scratch.append(32)
        if time.isEmpty { scratch.append(span: "00:00:00".utf8.span) } else { time.appendTrimmed(to: &scratch) }
        return RawValue(text: scratch)
    }
}

/// `--column point=Location` (SPEC §2.5): one value holding `(lat, lon)`, `lat, lon` or WKT
/// `POINT (lon lat)`, split into the latitude and longitude texts that the usual coordinate
/// rules then check (range, null island).
enum PointText {
    static func split(_ value: RawValue) -> Result<(lat: RawValue, lon: RawValue), RejectReason> {
        guard !value.isEmpty else { return .failure(.missingCoordinates) }
        guard value.kind == .text else { return .failure(.invalidCoordinates) }
        return value.withTrimmedSpan(pieces).map { (value.trimmedPiece($0.lat), value.trimmedPiece($0.lon)) }
    }

    /// Where the latitude and longitude texts are in the trimmed, non-empty value `t`.
    static func pieces(_ t: Span<UInt8>) -> Result<(lat: Range<Int>, lon: Range<Int>), RejectReason> {
        var i = 0, end = t.count
        let isBlank = { (b: UInt8) in b == 32 || b == 9 }
        if end >= 5, matches(t, at: 0, "point") {
            i = 5
            skipBlanks(t, &i, end)
            if end - i == 5, matches(t, at: i, "empty") {
                return .failure(.missingCoordinates) // WKT's own "no point"
            }
            guard i < end, t[i] == UInt8(ascii: "("), t[end - 1] == UInt8(ascii: ")") else {
                return .failure(.invalidCoordinates)
            }
            i += 1
            end -= 1
            guard let lon = piece(t, &i, end, until: isBlank) else { return .failure(.invalidCoordinates) }
            guard let lat = piece(t, &i, end, until: isBlank) else { return .failure(.invalidCoordinates) }
            skipBlanks(t, &i, end)
            return i == end ? .success((lat, lon)) : .failure(.invalidCoordinates)
        }
        if t[0] == UInt8(ascii: "(") {
            guard t[end - 1] == UInt8(ascii: ")") else { return .failure(.invalidCoordinates) }
            i = 1
            end -= 1
        }
        guard let lat = piece(t, &i, end, until: { $0 == UInt8(ascii: ",") }), i < end else {
            return .failure(.invalidCoordinates)
        }
        i += 1
        guard let lon = piece(t, &i, end, until: { _ in false }) else { return .failure(.invalidCoordinates) }
        return .success((lat, lon))
    }

    /// The lowercase ASCII `word` at `at`, in any case (the caller checked it fits).
    private static func matches(_ t: Span<UInt8>, at: Int, _ word: StaticString) -> Bool {
        for k in 0..<word.utf8CodeUnitCount where t[at + k] | 0x20 != word.utf8Start[k] { return false }
        return true
    }

    private static func skipBlanks(_ t: Span<UInt8>, _ i: inout Int, _ end: Int) {
        while i < end && (t[i] == 32 || t[i] == 9) { i += 1 }
    }

    /// The non-empty run after blanks up to the first byte `stop` accepts (or `end`).
    private static func piece(_ t: Span<UInt8>, _ i: inout Int, _ end: Int, until stop: (UInt8) -> Bool) -> Range<Int>?
    {
        skipBlanks(t, &i, end)
        let start = i
        while i < end && !stop(t[i]) { i += 1 }
        return i > start ? start..<i : nil
    }
}
