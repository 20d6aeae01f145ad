import AreaWatchCore
import Testing

@testable import AreaWatchCore

/// 2014-03-02T05:00:00Z
private let t0: Int64 = 1_393_736_400

private struct Accepted: Sendable, CustomTestStringConvertible {
    let text: String
    let seconds: Int64
    let precision: TimePrecision
    init(_ text: String, _ seconds: Int64, _ precision: TimePrecision = .second) {
        self.text = text
        self.seconds = seconds
        self.precision = precision
    }
    var testDescription: String { "\"\(text)\"" }
}

private let accepted: [Accepted] = [
    // Epoch seconds (precision second), fractions floored, negative epochs.
    Accepted("1393736400", t0),
    Accepted("+1393736400", t0),
    Accepted("1393736400.0", t0),
    Accepted("1393736400.9", t0),
    Accepted("1.3937364e9", t0),
    Accepted("  1393736400  ", t0),
    Accepted("\t1393736400", t0),
    // A fraction is not a year (SPEC §2.4): floored, as ever.
    Accepted("-0.5", -1),
    Accepted("-1.5", -2),
    Accepted("2014.5", 2014),
    Accepted("-1393736400", -t0),
    // The smallest whole magnitudes that are seconds, not years.
    Accepted("100000", 100_000),
    Accepted("-100000", -100_000),
    Accepted("1e5", 100_000),
    Accepted("99999999999", 99_999_999_999),
    Accepted("-62135596800", UTCTime.earliest),
    // Milliseconds: magnitude ≥ 1e11.
    Accepted("100000000000", 100_000_000),
    Accepted("1e11", 100_000_000),
    Accepted("-100000000000", -100_000_000),
    Accepted("1393736400000", t0),
    Accepted("1393736400999", t0),
    Accepted("1393736400000.5", t0),
    Accepted("-1393736400000", -t0),
    Accepted("-1393736400001", -t0 - 1),
    Accepted("-1393736400999.5", -t0 - 1),
    // Fractional milliseconds one Double away from a whole second: still the floor.
    Accepted("1393736400999.9997", t0),
    Accepted("-1393736400000.0003", -t0 - 1),
    Accepted("253402300799999.97", UTCTime.latest),
    // …while this text's nearest Double is the whole second itself.
    Accepted("1393736400999.9999", t0 + 1),
    Accepted("-62135596800000", UTCTime.earliest),
    Accepted("253402300799000", UTCTime.latest),
    Accepted("253402300799999", UTCTime.latest),
    Accepted("253402300800", 253_402_300), // ≥ 1e11: milliseconds, not 10000-01-01
    // ISO 8601 with Z, offsets, or none.
    Accepted("2014-03-02T05:00:00Z", t0),
    Accepted("2014-03-02T05:00:00z", t0),
    Accepted("2014-03-02t05:00:00Z", t0),
    Accepted("2014-03-02T07:00:00+02:00", t0),
    Accepted("2014-03-02T07:00:00+0200", t0),
    Accepted("2014-03-02T07:00:00+02", t0),
    Accepted("2014-03-01T23:30:00-05:30", t0),
    Accepted("2014-03-01T23:30:00-0530", t0),
    Accepted("2014-03-02T05:00:00-00:00", t0),
    Accepted("2014-03-02T05:00:00+00", t0),
    Accepted("2014-03-02T05:00:00", t0),
    Accepted("2014-03-02T05:00Z", t0),
    Accepted("2014-03-02T05:00", t0),
    Accepted("2014-03-02T07:00:00 +02:00", t0),
    Accepted("2014-03-02T05:00:00 UTC", t0),
    Accepted("2014-03-02T05:00:00GMT", t0),
    // Space for T, / for -.
    Accepted("2014-03-02 05:00:00Z", t0),
    Accepted("2014-03-02 05:00:00", t0),
    Accepted("2014/03/02 05:00:00+00", t0),
    Accepted("2014/03/02T07:00:00+02:00", t0),
    Accepted("  2014-03-02 05:00:00  ", t0),
    // Fractional seconds truncated toward the past.
    Accepted("2014-03-02T05:00:00.999Z", t0),
    Accepted("2014-03-02T05:00:00,5Z", t0),
    Accepted("2014-03-02T07:00:00.123456789+02:00", t0),
    Accepted("1969-12-31T23:59:59.5Z", -1),
    // Dates and months.
    Accepted("2014-03-02", 1_393_718_400, .day),
    Accepted("2014/03/02", 1_393_718_400, .day),
    Accepted("2014-03", 1_393_632_000, .month),
    Accepted("2014/03", 1_393_632_000, .month),
    Accepted("2024-02-29", 1_709_164_800, .day),
    Accepted("2000-02-29", 951_782_400, .day),
    // The edges of the accepted range.
    Accepted("0001-01-01T00:00:00Z", UTCTime.earliest),
    Accepted("0001-01-01T01:00:00+01:00", UTCTime.earliest),
    Accepted("0001-01-01", UTCTime.earliest, .day),
    Accepted("0001-01", UTCTime.earliest, .month),
    Accepted("9999-12-31T23:59:59Z", UTCTime.latest),
    Accepted("9999-12-31T23:59:59.999Z", UTCTime.latest),
    Accepted("9999-12-31T22:59:59-01:00", UTCTime.latest),
    Accepted("9999-12-31", 253_402_214_400, .day),
    Accepted("9999-12", 253_399_622_400, .month),
    Accepted("1970-01-01T00:00:00Z", 0),
    // 24:00 is the next midnight; second 60 folds into the next minute.
    Accepted("2014-03-02T24:00:00Z", 1_393_804_800),
    Accepted("2016-12-31T23:59:60Z", 1_483_228_800)
]

private let rejected: [String] = [
    "", " ", "\t", "abc", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e400", "-1e400", "1e15", "-1e15",
    "1393736400Z", "--1", "1e", ".", "1.2.3", "+", "-", "١٢٣",
    // Whole numbers of magnitude below 100,000 are years, not times (SPEC §2.4).
    "0", "-0", "-1", "-5", "2014", "2018", "2018.0", "99999", "-99999", "+2018", "2.018e3", " 2018 ",
    // Out of range.
    "-62135596801", "-62135596800001", "253402300800000", "9e18",
    "0000-12-31", "0000-01-01T00:00:00Z", "0000-01", "10000-01-01",
    "0001-01-01T00:00:00+00:01", "0001-01-01T00:59:59+01:00",
    "9999-12-31T23:59:59-00:01", "9999-12-31T24:00:00Z",
    // Invalid dates and times.
    "2019-02-29", "2100-02-29", "2019-13-01", "2019-00-10", "2019-04-31", "2019-01-00", "2019-01-32", "2019-13",
    "2019-00",
    "2014-03-02T25:00:00Z", "2014-03-02T05:60:00Z", "2014-03-02T05:00:61Z", "2014-03-02T24:00:01Z",
    "2014-03-02T24:01:00Z",
    // Malformed.
    "2014-3-2", "2014-03-2", "2014-3", "2014-", "2014-0", "2014-03-", "2014-03/02", "2014/03-02", "2014-03-02T",
    "2014-03-02X05:00:00", "2014-03-02T05", "2014-03-02T05:", "2014-03-02T05:00:", "2014-03-02T5:00:00",
    "2014-03-02T05:00:00+2", "2014-03-02T05:00:00+24:00", "2014-03-02T05:00:00+02:60", "2014-03-02T05:00:00+02:00:00",
    "2014-03-02T05:00:00ZZ", "2014-03-02T05:00:00.Z", "2014-03-02T05:00:00-", "2014-03-02T05:00:00+02:00x",
    "2014-03-02T05:00:00EST", "2014-03-02T05:00:00  Z", "2014-03-02  05:00:00", "+2014-03-02", "2014-03-02T05:00:00 ",
    "2014–03–02"
]

@Suite("TimeParser")
struct TimeParserTests {
    @Test("accepted values", arguments: accepted)
    fileprivate func acceptedValue(_ row: Accepted) {
        let parsed = TimeParser.parse(row.text)
        #expect(
            parsed == ParsedTime(seconds: row.seconds, precision: row.precision),
            "\"\(row.text)\" → \(parsed.map { UTCTime.iso8601($0.seconds) } ?? "nil")")
    }

    @Test("rejected values", arguments: rejected)
    func rejectedValue(_ text: String) {
        // A trailing space is trimmed, so that one row is valid after all; every other row is nil.
        if text == "2014-03-02T05:00:00 " {
            #expect(TimeParser.parse(text)?.seconds == t0)
            return
        }
        let parsed = TimeParser.parse(text)
        #expect(parsed == nil, "\"\(text)\" → \(parsed.map { UTCTime.iso8601($0.seconds) } ?? "nil")")
    }

    @Test("JSON numbers: seconds, milliseconds from 1e11, floor, range")
    func fromEpochNumbers() {
        #expect(TimeParser.fromEpoch(1_393_736_400) == ParsedTime(seconds: t0, precision: .second))
        #expect(TimeParser.fromEpoch(1_393_736_400.75)?.seconds == t0)
        #expect(TimeParser.fromEpoch(1_393_736_400_000)?.seconds == t0)
        #expect(TimeParser.fromEpoch(1_393_736_400_999)?.seconds == t0)
        #expect(TimeParser.fromEpoch(99_999_999_999.9)?.seconds == 99_999_999_999)
        #expect(TimeParser.fromEpoch(1e11)?.seconds == 100_000_000)
        #expect(TimeParser.fromEpoch(-1e11)?.seconds == -100_000_000)
        #expect(TimeParser.fromEpoch(-0.25)?.seconds == -1)
        #expect(TimeParser.fromEpoch(2018) == nil && TimeParser.fromEpoch(99_999) == nil)
        #expect(TimeParser.fromEpoch(0) == nil)
        #expect(TimeParser.fromEpoch(100_000)?.seconds == 100_000 && TimeParser.fromEpoch(99_999.5)?.seconds == 99_999)
        #expect(TimeParser.isYearLike(-99_999) && !TimeParser.isYearLike(-100_000) && !TimeParser.isYearLike(0.5))
        #expect(TimeParser.fromEpoch(-1_393_736_400_000.5)?.seconds == -t0 - 1)
        #expect(TimeParser.fromEpoch(1_393_736_401_000.0.nextDown)?.seconds == t0)
        #expect(TimeParser.fromEpoch((-1_393_736_400_000.0).nextDown)?.seconds == -t0 - 1)
        #expect(TimeParser.fromEpoch((-1_393_736_400_000.0).nextUp)?.seconds == -t0)
        #expect(TimeParser.fromEpoch(253_402_300_799_999)?.seconds == UTCTime.latest)
        #expect(TimeParser.fromEpoch(253_402_300_800_000) == nil)
        #expect(TimeParser.fromEpoch(-62_135_596_800)?.seconds == UTCTime.earliest)
        #expect(TimeParser.fromEpoch(-62_135_596_800_001) == nil)
        #expect(TimeParser.fromEpoch(.nan) == nil)
        #expect(TimeParser.fromEpoch(.infinity) == nil)
        #expect(TimeParser.fromEpoch(-.infinity) == nil)
        #expect(TimeParser.fromEpoch(1e300) == nil)
        #expect(TimeParser.fromEpoch(-1e300) == nil)
        #expect(TimeParser.fromEpoch(Double(Int64.max)) == nil)
        #expect(TimeParser.fromEpoch(9.2e18) == nil)
    }

    @Test("random fractional epochs: floor of the exact value, seconds and milliseconds")
    func randomFractionalEpochs() {
        let seed = testSeed(0x7140_5E00_0002)
        var rng = SplitMix64(seed: seed)
        for i in 0..<20_000 {
            // Whole seconds or milliseconds, then the Doubles right next to them.
            let milliseconds = i % 2 == 0
            let whole: Int64 =
                milliseconds
                ? Int64(rng.int(-62_135_596_800_000...253_402_300_799_999))
                : Int64(rng.int(-62_135_596_800...253_402_300_799))
            var v = Double(whole)
            switch rng.int(0...3) {
            case 0: v = v.nextDown
            case 1: v = v.nextUp
            case 2: v += rng.unit()
            default: break
            }
            // The exact floor, in integers (v − floor(v) is exact for these magnitudes).
            let isMilliseconds = abs(v) >= 1e11
            let floorV = Int64(v.rounded(.down))
            let expectedSeconds = isMilliseconds ? UTCTime.floorDivide(floorV, 1000) : floorV
            let inRange = expectedSeconds >= UTCTime.earliest && expectedSeconds <= UTCTime.latest
            let got = TimeParser.fromEpoch(v)
            #expect(
                got?.seconds == (inRange ? expectedSeconds : nil),
                "seed \(seed): \(v) → \(String(describing: got?.seconds)), expected \(expectedSeconds)")
        }
    }

    @Test("bytes and String entry points agree")
    func bytesEntryPoint() {
        for row in accepted {
            let bytes = Array(row.text.utf8)
            let viaBytes = TimeParser.parse(bytes.span)
            #expect(viaBytes == TimeParser.parse(row.text), "\"\(row.text)\"")
        }
        let empty: [UInt8] = []
        let viaEmpty = TimeParser.parse(empty.span)
        #expect(viaEmpty == nil)
    }

    @Test("random instants written in every accepted form parse back")
    func randomRoundTrip() {
        let seed = testSeed(0x7140_5E00_0001)
        var rng = SplitMix64(seed: seed)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        for _ in 0..<4000 {
            let t = Int64(rng.int(Int(UTCTime.earliest) + 86_400...Int(UTCTime.latest) - 86_400))
            // Offsets of whole quarter hours up to ±14 h, or an arbitrary minute.
            let offsetMinutes =
                rng.bool(0.3) ? 0 : rng.bool(0.7) ? 15 * rng.int(-56...56) : rng.int(-23 * 60 - 59...23 * 60 + 59)
            let local = UTCTime.civil(t + Int64(offsetMinutes * 60))
            let sep = rng.pick(["-", "/"])
            let tee = rng.pick(["T", " ", "t"])
            var text =
                pad(local.year, 4) + sep + pad(local.month, 2) + sep + pad(local.day, 2) + tee
                + pad(local.hour, 2) + ":" + pad(local.minute, 2) + ":" + pad(local.second, 2)
            if rng.bool(0.3) { text += "." + String(repeating: "9", count: rng.int(1...9)) }
            let sign = offsetMinutes < 0 ? "-" : "+"
            let hh = pad(abs(offsetMinutes) / 60, 2), mm = pad(abs(offsetMinutes) % 60, 2)
            var zones = [sign + hh + ":" + mm, sign + hh + mm, " " + sign + hh + ":" + mm]
            if offsetMinutes % 60 == 0 { zones.append(sign + hh) }
            if offsetMinutes == 0 { zones += ["", "Z", "z", " UTC", "GMT"] }
            text += rng.pick(zones)
            let parsed = TimeParser.parse(text)
            #expect(
                parsed == ParsedTime(seconds: t, precision: .second),
                "seed \(seed): \"\(text)\" should be \(UTCTime.iso8601(t))")

            // Epoch forms: seconds below 1e11, milliseconds above.
            if abs(t) < 100_000_000_000 {
                #expect(TimeParser.parse(String(t))?.seconds == t, "seed \(seed): \(t)")
            }
            let ms = t * 1000 + Int64(rng.int(0...999))
            if abs(ms) >= 100_000_000_000 {
                #expect(TimeParser.parse(String(ms))?.seconds == t, "seed \(seed): \(ms) ms")
            }
        }
    }
}
