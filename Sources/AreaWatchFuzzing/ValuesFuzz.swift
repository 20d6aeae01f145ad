import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery

/// The values fuzz target: `TimeParser.parse`, `DecimalParsing.parse` and `TimeParser.fromEpoch`
/// on any bytes, then the same text as the latitude, longitude and time of one CSV record and of
/// one JSON record (as strings, and as numbers when it is a JSON number): all must agree with
/// each other and with SPEC §2.4 / §3 applied to the parsed values.
///
/// Input: `lat 0x1F lon 0x1F time`; a missing part takes a valid default, so each part is
/// fuzzed on its own too.
enum ValuesFuzz {
    static func check(_ data: [UInt8]) -> [String] {
        var findings = Findings()
        // `pattern 0x1E value`: a --time-format pattern and a value read with it.
        if let split = data.firstIndex(of: 0x1E) {
            TimeFormatFuzz.check(pattern: Array(data[..<split]), value: Array(data[(split + 1)...]), into: &findings)
            return findings.messages
        }
        checkTime(data, into: &findings)
        checkDecimal(data, into: &findings)
        if data.count >= 8 {
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(data[k]) << (8 * UInt64(k)) }
            checkEpoch(Double(bitPattern: bits), into: &findings)
        }
        let parts = data.split(separator: 0x1F, maxSplits: 2, omittingEmptySubsequences: false).map(Array.init)
        let lat = parts.count > 0 ? parts[0] : Array("53.72".utf8)
        let lon = parts.count > 1 ? parts[1] : Array("-1.86".utf8)
        let time = parts.count > 2 ? parts[2] : Array("2018-07-01T10:00:00Z".utf8)
        checkRecord(lat: lat, lon: lon, time: time, into: &findings)
        return findings.messages
    }

    static func parseTime(_ bytes: [UInt8]) -> ParsedTime? {
        TimeParser.parse(bytes.span)
    }

    static func parseDecimal(_ bytes: [UInt8]) -> Double? {
        DecimalParsing.parse(bytes.span)
    }

    static func show(_ bytes: [UInt8]) -> String { String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription }

    /// In range, precision consistent, ISO 8601 round trip, surrounding blanks ignored.
    static func checkTime(_ data: [UInt8], into findings: inout Findings) {
        let parsed = parseTime(data)
        let padded = parseTime([32, 9] + data + [9, 32])
        findings.check(
            parsed == padded,
            "time \(show(data)): \(String(describing: parsed)) but \(String(describing: padded)) with blanks around")
        guard let t = parsed else { return }
        findings.check(
            t.seconds >= UTCTime.earliest && t.seconds <= UTCTime.latest,
            "time \(show(data)) → \(t.seconds), outside 0001…9999")
        let iso = UTCTime.iso8601(t.seconds)
        switch t.precision {
        case .second:
            findings.check(
                TimeParser.parse(iso) == t,
                "time \(show(data)) → \(iso), which parses back as \(String(describing: TimeParser.parse(iso)))")
        case .day:
            let day = UTCTime.isoDate(t.seconds)
            findings.check(TimeParser.parse(day) == t, "time \(show(data)) → day \(day), which parses back differently")
        case .month:
            let month = String(UTCTime.isoDate(t.seconds).prefix(7))
            findings.check(
                TimeParser.parse(month) == t, "time \(show(data)) → month \(month), which parses back differently")
        }
    }

    /// Plain decimal syntax, checked independently: `[+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?`.
    static func isPlainDecimal(_ s: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < s.count, s[i] >= 48, s[i] <= 57 { i += 1 }
            return i - start
        }
        if i < s.count, s[i] == 43 || s[i] == 45 { i += 1 }
        var mantissaDigits = digits()
        if i < s.count, s[i] == 46 {
            i += 1
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if i < s.count, s[i] == 101 || s[i] == 69 {
            i += 1
            if i < s.count, s[i] == 43 || s[i] == 45 { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == s.count
    }

    /// `DecimalParsing.parse` accepts exactly plain decimal syntax and equals `Double(String)`
    /// bit for bit there.
    static func checkDecimal(_ data: [UInt8], into findings: inout Findings) {
        let parsed = parseDecimal(data)
        let plain = isPlainDecimal(data)
        findings.check(
            (parsed != nil) == plain,
            "decimal \(show(data)): parsed \(String(describing: parsed)), plain decimal syntax: \(plain)")
        if let parsed, plain {
            let reference = Double(String(decoding: data, as: UTF8.self))
            findings.check(
                reference?.bitPattern == parsed.bitPattern,
                "decimal \(show(data)): \(parsed) (\(parsed.bitPattern)), Double(String) gives \(String(describing: reference))"
            )
            checkEpoch(parsed, into: &findings)
        }
    }

    /// `fromEpoch`: seconds below 1e11, milliseconds from 1e11, the floor of the exact value,
    /// nil outside 0001…9999, for non-finite values and for whole numbers below 100,000 (years).
    static func checkEpoch(_ v: Double, into findings: inout Findings) {
        let got = TimeParser.fromEpoch(v)
        var expected: Int64?
        if v.isFinite && abs(v) < 9e18 && !(abs(v) < 100_000 && v == v.rounded(.towardZero)) {
            let whole = Int64(v.rounded(.down)) // exact: a Double with a fraction is below 2^52
            let seconds = abs(v) >= 1e11 ? UTCTime.floorDivide(whole, 1000) : whole
            if seconds >= UTCTime.earliest && seconds <= UTCTime.latest { expected = seconds }
        }
        findings.check(
            got?.seconds == expected && (got == nil || got?.precision == .second),
            "fromEpoch(\(v)) = \(String(describing: got?.seconds)), expected \(String(describing: expected))")
    }

    /// The outcome SPEC §2.4 / §3 give for one record's three values.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted(lat: UInt64, lon: UInt64, time: Int64, precision: TimePrecision)
        case rejected(String)

        var description: String {
            switch self {
            case .accepted(let lat, let lon, let time, let precision):
                return "accepted \(Double(bitPattern: lat)), \(Double(bitPattern: lon)) at \(time) (\(precision))"
            case .rejected(let reason): return reason
            }
        }
    }

    static func trimmed(_ b: [UInt8]) -> [UInt8] {
        var lo = 0, hi = b.count
        while lo < hi, b[lo] == 32 || b[lo] == 9 { lo += 1 }
        while hi > lo, b[hi - 1] == 32 || b[hi - 1] == 9 { hi -= 1 }
        return Array(b[lo..<hi])
    }

    static func expectedOutcome(lat: [UInt8], lon: [UInt8], time: [UInt8]) -> Outcome {
        let la = trimmed(lat), lo = trimmed(lon)
        if la.isEmpty || lo.isEmpty { return .rejected("missing_coordinates") }
        guard let y = parseDecimal(la), let x = parseDecimal(lo), y.isFinite, x.isFinite,
            (-90...90).contains(y), (-180...180).contains(x)
        else { return .rejected("invalid_coordinates") }
        if y == 0 && x == 0 { return .rejected("null_island") }
        // -0 is stored as 0 (the same place, one key).
        let lat = y == 0 ? 0 : y, lon = x == 0 ? 0 : x
        if trimmed(time).isEmpty { return .rejected("missing_time") }
        guard let t = parseTime(time) else { return .rejected("invalid_time") }
        return .accepted(lat: lat.bitPattern, lon: lon.bitPattern, time: t.seconds, precision: t.precision)
    }

    static func outcome(of run: IngestRun) -> Outcome? {
        guard let report = run.report, report.records == 1 else { return nil }
        if let i = run.incidents.first {
            return .accepted(lat: i.lat.bitPattern, lon: i.lon.bitPattern, time: i.time, precision: i.precision)
        }
        return run.rejects.first.flatMap { $0.count == 5 ? .rejected($0[3]) : nil }
    }

    static func csvField(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [34]
        for c in b {
            if c == 34 { out.append(34) }
            out.append(c)
        }
        out.append(34)
        return out
    }

    static func jsonString(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [34]
        let hex = Array("0123456789abcdef".utf8)
        for c in b {
            switch c {
            case 34: out += [92, 34]
            case 92: out += [92, 92]
            case 0..<32: out += [92, 117, 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        out.append(34)
        return out
    }

    /// A JSON number token (RFC 8259), checked independently.
    static func isJSONNumber(_ b: [UInt8]) -> Bool {
        var parser = StrictJSON(b)
        return parser.document()?.kind == .number && b.first.map { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 } == true
            && b.last.map { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 } == true
    }

    /// With the SPEC §2.5 rule on (the harness turns it off), a file of one rejected record is
    /// an input error naming that reason; one accepted record is not.
    static func checkAllRejected(_ csv: [UInt8], expected: Outcome, into findings: inout Findings) {
        var options = IngestOptions()
        options.pipelined = false
        var sink = IncidentColumnsBuilder()
        do {
            let report = try FileIngester.ingest(
                bytes: csv, name: "value.csv", options: options, into: &sink, rejects: nil)
            if case .rejected(let reason) = expected {
                findings.fail("a file whose one record is \(reason) gave no input error")
            }
            findings.check(report.accepted == 1, "one record, \(report.accepted) accepted")
        } catch let error as InputError {
            if case .rejected(let reason) = expected {
                findings.check(
                    error.message.hasPrefix("every record was rejected (1 records): \(reason) 1"),
                    "all rejected: \(error.message)")
            } else {
                findings.fail("accepted record, yet input error \(error)")
            }
        } catch {
            findings.fail("unexpected error \(error)")
        }
    }

    static func checkRecord(lat: [UInt8], lon: [UInt8], time: [UInt8], into findings: inout Findings) {
        let expected = expectedOutcome(lat: lat, lon: lon, time: time)
        var options = IngestOptions()
        options.pipelined = false
        var table = IncidentColumnsBuilder()

        // CSV cannot carry NUL bytes (such a record is malformed_record by design).
        if !(lat + lon + time).contains(0) {
            let csv =
                Array("latitude,longitude,timestamp\n".utf8) + csvField(lat) + [44] + csvField(lon) + [44]
                + csvField(time) + [10]
            let run = IngestHarness.ingest(
                csv, name: "value.csv", settings: RunSettings(options: options), table: &table)
            let got = outcome(of: run)
            findings.check(
                got == expected,
                "CSV record \(show(lat)), \(show(lon)), \(show(time)): \(got.map(String.init(describing:)) ?? run.inputError ?? "no record"), expected \(expected)"
            )
            checkAllRejected(csv, expected: expected, into: &findings)
        }
        func member(_ b: [UInt8], asNumber: Bool) -> [UInt8] { asNumber ? b : jsonString(b) }
        var variants: [(Bool, Bool, Bool)] = [(false, false, false)]
        let numbers = (isJSONNumber(lat), isJSONNumber(lon), isJSONNumber(time))
        if numbers.0 || numbers.1 || numbers.2 { variants.append(numbers) }
        for (nLat, nLon, nTime) in variants {
            let json =
                Array("{\"latitude\": ".utf8) + member(lat, asNumber: nLat) + Array(", \"longitude\": ".utf8)
                + member(lon, asNumber: nLon) + Array(", \"timestamp\": ".utf8) + member(time, asNumber: nTime) + [125]
            let run = IngestHarness.ingest(
                json, name: "value.json", settings: RunSettings(options: options), table: &table)
            let got = outcome(of: run)
            findings.check(
                got == expected,
                "JSON record \(String(decoding: json.prefix(200), as: UTF8.self)): \(got.map(String.init(describing:)) ?? run.inputError ?? "no record"), expected \(expected)"
            )
        }
    }
}
