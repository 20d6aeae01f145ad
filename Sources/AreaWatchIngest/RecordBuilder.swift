import AreaWatchCore

/// SPEC §3 reject reasons, in the order that decides which one a record with several problems gets.
public enum RejectReason: String, CaseIterable, Sendable, Comparable, Error {
    case malformedRecord = "malformed_record"
    case missingCoordinates = "missing_coordinates"
    case invalidCoordinates = "invalid_coordinates"
    case nullIsland = "null_island"
    case missingTime = "missing_time"
    case invalidTime = "invalid_time"

    private var rank: Int { RejectReason.allCases.firstIndex(of: self)! }
    public static func < (a: RejectReason, b: RejectReason) -> Bool { a.rank < b.rank }
}

/// One input value as a reader saw it, borrowed from the reader's buffer for the duration of one
/// record: CSV fields are always text; JSON gives numbers, booleans, null and nested values too.
struct RawValue: @unchecked Sendable {
    enum Kind: UInt8 { case absent, null, text, number, boolean, composite }

    var kind: Kind
    /// Decoded UTF-8 for text, the token for numbers, compact JSON for composites.
    var bytes: UnsafeBufferPointer<UInt8>
    var bool: Bool = false

    static let absent = RawValue(kind: .absent, bytes: UnsafeBufferPointer(start: nil, count: 0))

    /// Text with surrounding spaces removed (numbers keep their token).
    @inline(__always)
    var trimmed: UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = bytes.count
        while lo < hi && RawValue.isBlank(bytes[lo]) { lo += 1 }
        while hi > lo && RawValue.isBlank(bytes[hi - 1]) { hi -= 1 }
        return lo == 0 && hi == bytes.count ? bytes : UnsafeBufferPointer(rebasing: bytes[lo..<hi])
    }

    /// Absent, null, or text that is empty after trimming.
    @inline(__always)
    var isEmpty: Bool {
        switch kind {
        case .absent, .null: return true
        case .text: return bytes.isEmpty || (RawValue.isBlank(bytes[0]) && trimmed.isEmpty)
        default: return false
        }
    }

    @inline(__always)
    private static func isBlank(_ b: UInt8) -> Bool { b == ASCII.space || b == ASCII.tab }

    /// The value as it would read in a CSV cell: text as is, numbers as their token, booleans
    /// as `true`/`false`, nested JSON as its compact text.
    var text: String? {
        switch kind {
        case .absent, .null: return nil
        case .boolean: return bool ? "true" : "false"
        default: return String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension RawValue {
    /// A text value of a buffer's bytes, valid until the buffer's next mutation.
    init(text buffer: borrowing GrowableBuffer<UInt8>) {
        self.init(kind: .text, bytes: buffer.unsafeElements)
    }

    /// Calls `body` with the trimmed bytes.
    @inline(__always)
    func withTrimmedSpan<R>(_ body: (Span<UInt8>) -> R) -> R {
        let t = trimmed
        return body(t.span)
    }

    /// Bytes `range` of the trimmed text, as a text value of its own.
    func trimmedPiece(_ range: Range<Int>) -> RawValue {
        RawValue(kind: .text, bytes: UnsafeBufferPointer(rebasing: trimmed[range]))
    }

    func appendTrimmed(to buffer: inout GrowableBuffer<UInt8>) {
        buffer.append(contentsOf: trimmed)
    }
}

/// Turns the raw values of one record into an incident or a reject reason (SPEC §2.4, §3).
///
/// The incident's `key` is the record's source id, or empty for an id-less record, until
/// `IncidentKeyer` gives it its SPEC §4 key: building the stored value once, rather than a draft
/// copied into it, saves a copy (a retain and a release per text field) of every record.
enum RecordBuilder {
    static func coordinate(_ v: RawValue) -> Double? {
        switch v.kind {
        case .number, .text: return DecimalParsing.parse(v.trimmed.span)
        default: return nil
        }
    }

    static func build(
        lat latValue: RawValue, lon lonValue: RawValue, time timeValue: RawValue,
        id: RawValue, category: RawValue, handled: RawValue,
        description: RawValue, user: RawValue,
        attributes: String?, categories: TextInterner, times: TimeReader
    ) -> Result<Incident, RejectReason> {
        switch check(lat: latValue, lon: lonValue, time: timeValue, times: times) {
        case .failure(let reason): return .failure(reason)
        case .success(let checked):
            return .success(
                incident(
                    checked, key: nonEmptyText(id) ?? "", category: category, handled: handled,
                    description: description, user: user, attributes: attributes, categories: categories))
        }
    }

    /// What `check` found valid: plain values, so passing them on copies no reference.
    struct Checked {
        var lat: Double
        var lon: Double
        var time: ParsedTime
    }

    /// The checks of `build`, in its order, without building the incident.
    @inline(__always)
    static func check(
        lat latValue: RawValue, lon lonValue: RawValue, time timeValue: RawValue,
        times: TimeReader
    ) -> Result<Checked, RejectReason> {
        if latValue.isEmpty || lonValue.isEmpty { return .failure(.missingCoordinates) }
        guard var lat = coordinate(latValue), var lon = coordinate(lonValue),
            lat.isFinite, lon.isFinite, lat >= -90, lat <= 90, lon >= -180, lon <= 180
        else {
            return .failure(.invalidCoordinates)
        }
        // -0 is the same place as 0: one spelling, so keys and "same content" (§4) do not
        // depend on the sign an export wrote.
        if lat == 0 { lat = 0 }
        if lon == 0 { lon = 0 }
        if lat == 0 && lon == 0 { return .failure(.nullIsland) }
        if timeValue.isEmpty { return .failure(.missingTime) }
        guard let time = times.parse(timeValue) else { return .failure(.invalidTime) }
        return .success(Checked(lat: lat, lon: lon, time: time))
    }

    /// The incident of a checked record, `key` its source id (empty for none).
    @inline(__always)
    static func incident(
        _ checked: Checked, key: String, category: RawValue, handled: RawValue,
        description: RawValue, user: RawValue, attributes: String?, categories: TextInterner
    ) -> Incident {
        let categoryText: String?
        if category.kind == .text, !category.isEmpty {
            categoryText = categories.text(category.bytes.span)
        } else {
            categoryText = nonEmptyText(category)
        }
        return Incident(
            key: key, time: checked.time.seconds, precision: checked.time.precision, lat: checked.lat, lon: checked.lon,
            category: categoryText, handled: parseHandled(handled),
            description: nonEmptyText(description), user: nonEmptyText(user), attributes: attributes)
    }

    static func nonEmptyText(_ v: RawValue) -> String? {
        v.isEmpty ? nil : v.text
    }

    /// true/false, 1/0, yes/no, y/n in any case; anything else (or empty) is unknown.
    static func parseHandled(_ v: RawValue) -> Bool? {
        switch v.kind {
        case .boolean: return v.bool
        case .number, .text:
            // Lower-case the (at most 5) bytes into one integer and compare: no allocation.
            let t = v.trimmed
            guard t.count <= 5, !t.isEmpty else { return nil }
            var word: UInt64 = 0
            for b in t { word = word << 8 | UInt64((b >= 65 && b <= 90) ? b + 32 : b) }
            switch word {
            case 0x74_72_75_65, 0x31, 0x79_65_73, 0x79: return true // true 1 yes y
            case 0x66_61_6C_73_65, 0x30, 0x6E_6F, 0x6E: return false // false 0 no n
            default: return nil
            }
        default: return nil
        }
    }
}

/// Builds the canonical attribute text: a JSON object of strings, keys in byte order.
struct AttributeWriter {
    private var bytes: [UInt8] = []
    private var count = 0

    init() {
        bytes.reserveCapacity(256)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Adds one attribute; empty values are left out (an empty cell says nothing).
    mutating func add(name: Span<UInt8>, value: RawValue) {
        guard !value.isEmpty else { return }
        bytes.append(count == 0 ? ASCII.openBrace : ASCII.comma)
        appendJSONString(name)
        bytes.append(ASCII.colon)
        if value.kind == .boolean {
            bytes.append(contentsOf: value.bool ? Array("\"true\"".utf8) : Array("\"false\"".utf8))
        } else {
            appendJSONString(value.bytes.span)
        }
        count += 1
    }

    /// The object text, or nil when no attribute was added.
    func finish() -> String? {
        guard count > 0 else { return nil }
        var out = bytes
        out.append(ASCII.closeBrace)
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func appendJSONString(_ s: Span<UInt8>) {
        bytes.append(ASCII.quote)
        JSONText.appendEscaped(s, to: &bytes)
        bytes.append(ASCII.quote)
    }
}
