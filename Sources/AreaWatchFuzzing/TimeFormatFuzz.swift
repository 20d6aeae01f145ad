import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery

/// `--time-format` patterns are input too (SPEC §2.5): the values target's inputs of the form
/// `pattern 0x1E value` compile the pattern and read the value with it, alone and as the time
/// of one CSV record. Invariants: a pattern compiles or is refused with a message (never a
/// crash; over 256 bytes always refused); a match lies in range with the pattern's precision;
/// blanks around a value change nothing; what an independent formatter writes for a match
/// reads back to the same wall time; a record's time is the pattern's, else SPEC §2.4's.
enum TimeFormatFuzz {
    static func check(pattern: [UInt8], value: [UInt8], into findings: inout Findings) {
        let text = String(decoding: pattern, as: UTF8.self)
        let format: TimeFormat
        do {
            format = try TimeFormat.compile(text)
        } catch {
            findings.check(!error.message.isEmpty, "pattern \(ValuesFuzz.show(pattern)): refused without a message")
            return
        }
        findings.check(text.utf8.count <= TimeFormat.maxPatternBytes, "pattern of \(text.utf8.count) bytes compiled")
        let parsed = format.parse(value.span)
        let paddedValue = [32, 9] + value + [9, 32]
        let padded = format.parse(paddedValue.span)
        findings.check(
            parsed == padded,
            "pattern \(ValuesFuzz.show(pattern)), value \(ValuesFuzz.show(value)): \(String(describing: parsed)) but \(String(describing: padded)) with blanks around"
        )
        if let w = parsed {
            let low = UTCTime.earliest, high = UTCTime.latest + 86_400 + 61
            findings.check(
                w.wall >= low && w.wall <= high,
                "pattern \(ValuesFuzz.show(pattern)) read \(ValuesFuzz.show(value)) as wall \(w.wall), outside 0001…9999"
            )
            findings.check(
                w.precision == format.precision, "precision \(w.precision), the pattern's is \(format.precision)")
            findings.check(w.offset.map { abs($0) < 86_400 } ?? true, "offset \(String(describing: w.offset))")
            if let again = written(w, pattern: text) {
                let reread = format.parse(again.span)
                findings.check(
                    reread == w,
                    "pattern \(ValuesFuzz.show(pattern)): \(ValuesFuzz.show(value)) → \(w), written back as \(ValuesFuzz.show(again)) → \(String(describing: reread))"
                )
            }
        }
        checkRecord(format: format, value: value, parsed: parsed, into: &findings)
    }

    /// One CSV record whose time is `value`, read with the pattern: the pattern's instant (no
    /// zone: UTC), else the §2.4 reading, else `invalid_time`.
    static func checkRecord(format: TimeFormat, value: [UInt8], parsed: WallTime?, into findings: inout Findings) {
        guard !value.contains(0), !value.contains(10), !value.contains(13) else { return }
        // A match outside 0001…9999 is invalid_time: only a value that does not match falls back.
        let time: ParsedTime?
        if let parsed { time = parsed.instantInUTC } else { time = ValuesFuzz.parseTime(value) }
        let expected: ValuesFuzz.Outcome
        if ValuesFuzz.trimmed(value).isEmpty {
            expected = .rejected("missing_time")
        } else if let time {
            expected = .accepted(
                lat: (53.72).bitPattern, lon: (-1.86).bitPattern, time: time.seconds, precision: time.precision)
        } else {
            expected = .rejected("invalid_time")
        }
        var options = IngestOptions()
        options.pipelined = false
        options.reader.timeFormat = format
        var table = IncidentColumnsBuilder()
        let csv = Array("latitude,longitude,timestamp\n53.72,-1.86,".utf8) + ValuesFuzz.csvField(value) + [10]
        let run = IngestHarness.ingest(csv, name: "pattern.csv", settings: RunSettings(options: options), table: &table)
        let got = ValuesFuzz.outcome(of: run)
        findings.check(
            got == expected,
            "pattern \(ValuesFuzz.show(Array(format.pattern.utf8))), time \(ValuesFuzz.show(value)): \(got.map(String.init(describing:)) ?? run.inputError ?? "no record"), expected \(expected)"
        )
    }

    /// The wall time written in the pattern, by a formatter independent of the parser: numbers
    /// at full width, month names in full, a blank run as one space. Nil for patterns whose
    /// fields this wall time cannot fill (a two-digit year outside 1969–2068).
    static func written(_ w: WallTime, pattern: String) -> [UInt8]? {
        let c = UTCTime.civil(w.wall)
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December"
        ]
        func padded(_ v: Int, _ width: Int, _ pad: Character = "0") -> String {
            let s = String(v)
            return String(repeating: pad, count: max(0, width - s.count)) + s
        }
        let dayOfYear =
            Int(UTCTime.days(year: c.year, month: c.month, day: c.day) - UTCTime.days(year: c.year, month: 1, day: 1))
            + 1
        guard c.year <= 9999 else { return nil }
        var out: [UInt8] = []
        let bytes = Array(pattern.utf8)
        var i = 0
        var lastBlank = false
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if b == 32 || b == 9 {
                if !lastBlank { out.append(32) }
                lastBlank = true
                continue
            }
            lastBlank = false
            guard b == UInt8(ascii: "%"), i < bytes.count else {
                out.append(b)
                continue
            }
            let d = Character(Unicode.Scalar(bytes[i]))
            i += 1
            let piece: String
            switch d {
            case "Y": piece = padded(c.year, 4)
            case "y":
                guard (1969...2068).contains(c.year) else { return nil }
                piece = padded(c.year % 100, 2)
            case "m": piece = padded(c.month, 2)
            case "b", "B": piece = months[c.month - 1]
            case "d": piece = padded(c.day, 2)
            case "e": piece = padded(c.day, 2, " ")
            case "j": piece = padded(dayOfYear, 3)
            case "H": piece = padded(c.hour, 2)
            case "I": piece = padded(c.hour % 12 == 0 ? 12 : c.hour % 12, 2)
            case "p": piece = c.hour < 12 ? "AM" : "PM"
            case "M": piece = padded(c.minute, 2)
            case "S": piece = padded(c.second, 2)
            case "z":
                let o = Int(w.offset ?? 0)
                piece = (o < 0 ? "-" : "+") + padded(abs(o) / 3600, 2) + padded(abs(o) % 3600 / 60, 2)
            case "Z": piece = "UTC"
            case "%": piece = "%"
            default: return nil
            }
            out += Array(piece.utf8)
        }
        return out
    }
}
