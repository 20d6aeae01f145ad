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
        let d = date.trimmed
        let t: UnsafeBufferPointer<UInt8> = time.isEmpty ? TimeReader.midnight : time.trimmed
        scratch.removeAll()
        scratch.append(contentsOf: d)
        scratch.append(32)
        scratch.append(contentsOf: t)
        return RawValue(kind: .text, bytes: scratch.unsafeElements)
    }

    /// Never written after it is made.
    nonisolated(unsafe) private static let midnight: UnsafeBufferPointer<UInt8> = {
        // A static String's UTF-8 lives in the binary for the whole run.
        let text: StaticString = "00:00:00"
        return UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }()
}

/// `--column point=Location` (SPEC §2.5): one value holding `(lat, lon)`, `lat, lon` or WKT
/// `POINT (lon lat)`, split into the latitude and longitude texts that the usual coordinate
/// rules then check (range, null island).
enum PointText {
    static func split(_ value: RawValue) -> Result<(lat: RawValue, lon: RawValue), RejectReason> {
        guard !value.isEmpty else { return .failure(.missingCoordinates) }
        guard value.kind == .text else { return .failure(.invalidCoordinates) }
        let t = value.trimmed
        var i = 0, end = t.count
        func skipBlanks() { while i < end && (t[i] == 32 || t[i] == 9) { i += 1 } }
        func piece(until stop: (UInt8) -> Bool) -> RawValue? {
            skipBlanks()
            let start = i
            while i < end && !stop(t[i]) { i += 1 }
            guard i > start else { return nil }
            return RawValue(kind: .text, bytes: UnsafeBufferPointer(rebasing: t[start..<i]))
        }
        let isBlank = { (b: UInt8) in b == 32 || b == 9 }
        if end >= 5, t[0] | 0x20 == UInt8(ascii: "p"), t[1] | 0x20 == UInt8(ascii: "o"),
            t[2] | 0x20 == UInt8(ascii: "i"),
            t[3] | 0x20 == UInt8(ascii: "n"), t[4] | 0x20 == UInt8(ascii: "t")
        {
            i = 5
            skipBlanks()
            if end - i == 5, t[i] | 0x20 == UInt8(ascii: "e"), t[i + 1] | 0x20 == UInt8(ascii: "m"),
                t[i + 2] | 0x20 == UInt8(ascii: "p"),
                t[i + 3] | 0x20 == UInt8(ascii: "t"), t[i + 4] | 0x20 == UInt8(ascii: "y")
            {
                return .failure(.missingCoordinates) // WKT's own "no point"
            }
            guard i < end, t[i] == UInt8(ascii: "("), t[end - 1] == UInt8(ascii: ")") else {
                return .failure(.invalidCoordinates)
            }
            i += 1
            end -= 1
            guard let lon = piece(until: isBlank) else { return .failure(.invalidCoordinates) }
            guard let lat = piece(until: isBlank) else { return .failure(.invalidCoordinates) }
            skipBlanks()
            return i == end ? .success((lat, lon)) : .failure(.invalidCoordinates)
        }
        if t[0] == UInt8(ascii: "(") {
            guard t[end - 1] == UInt8(ascii: ")") else { return .failure(.invalidCoordinates) }
            i = 1
            end -= 1
        }
        guard let lat = piece(until: { $0 == UInt8(ascii: ",") }), i < end else { return .failure(.invalidCoordinates) }
        i += 1
        guard let lon = piece(until: { _ in false }) else { return .failure(.invalidCoordinates) }
        return .success((lat, lon))
    }
}
