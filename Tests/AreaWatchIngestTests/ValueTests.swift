import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §2.4: coordinate, time and `handled` values, from CSV text and JSON values.
@Suite("Values")
struct ValueTests {
    /// Ingests one CSV column of time texts; returns key → (seconds, precision) or the reject reason.
    private func times(_ values: [String]) throws -> [String: Result<ParsedTime, RejectReason>] {
        let dir = try TempDir()
        var text = "id,latitude,longitude,timestamp\n"
        for (i, v) in values.enumerated() {
            let quoted = v.contains(",") ? "\"\(v)\"" : v
            text += "t\(i),53.7,-1.8,\(quoted)\n"
        }
        let result = try ingest(try dir.file("times.csv", text))
        var out: [String: Result<ParsedTime, RejectReason>] = [:]
        for incident in result.incidents {
            out[incident.key] = .success(ParsedTime(seconds: incident.time, precision: incident.precision))
        }
        for reject in result.rejects {
            out[reject.id] = .failure(RejectReason(rawValue: reject.reason)!)
        }
        #expect(out.count == values.count)
        return out
    }

    @Test("time strings: ISO 8601 and its variants, days and months")
    func timeStrings() throws {
        let cases: [(String, Int64, TimePrecision)] = [
            ("2014-03-02T05:00:00Z", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T05:00:00z", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T07:00:00+02:00", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T07:00:00+0200", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T07:00:00+02", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T00:30:00-05:30", epoch(2014, 3, 2, 6), .second),
            ("2014-03-02T00:30:00+01:00", epoch(2014, 3, 1, 23, 30), .second),
            ("2014-03-02 05:00:00", epoch(2014, 3, 2, 5), .second),
            ("2014/03/02 05:00:00+00", epoch(2014, 3, 2, 5), .second),
            ("2014/03/02T05:00:00Z", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T05:00", epoch(2014, 3, 2, 5), .second),
            ("2014-03-02T05:00:59.999Z", epoch(2014, 3, 2, 5, 0, 59), .second),
            ("2014-03-02T05:00:00.5+01:00", epoch(2014, 3, 2, 4), .second),
            ("  2014-03-02T05:00:00Z  ", epoch(2014, 3, 2, 5), .second),
            ("2016-02-29", epoch(2016, 2, 29), .day),
            ("2014/03/02", epoch(2014, 3, 2), .day),
            ("2018-07", epoch(2018, 7, 1), .month),
            ("2018/07", epoch(2018, 7, 1), .month),
            ("1969-12-31T23:59:59Z", -1, .second),
            ("0001-01-01", epoch(1, 1, 1), .day),
            ("9999-12", epoch(9999, 12, 1), .month),
            ("9999-12-31T23:59:59Z", epoch(9999, 12, 31, 23, 59, 59), .second),
            ("10000-01-01", 0, .second), // invalid below
            ("2014-13-01", 0, .second),
            ("2014-02-30", 0, .second),
            ("2015-02-29", 0, .second),
            ("2014-03-02T25:00:00Z", 0, .second),
            ("2014-03-02T05:61:00Z", 0, .second),
            ("2014-03-02T05:00:00+25:00", 0, .second),
            ("2014-03-02T05:00:00 CET", 0, .second),
            ("0000-06-01", 0, .second),
            ("0001-01-01T00:00:00+00:01", 0, .second), // 0000-12-31T23:59:00Z
            ("9999-12-31T23:59:59-00:01", 0, .second), // 10000-01-01T00:00:59Z
            ("March 2, 2014", 0, .second),
            ("2014-3-2", 0, .second),
            ("yesterday", 0, .second)
        ]
        let invalidFrom = cases.firstIndex { $0.0 == "10000-01-01" }!
        let got = try times(cases.map(\.0))
        for (i, c) in cases.enumerated() {
            let outcome = got["t\(i)"]
            if i < invalidFrom {
                #expect(outcome == .success(ParsedTime(seconds: c.1, precision: c.2)), "«\(c.0)»")
            } else {
                #expect(outcome == .failure(.invalidTime), "«\(c.0)»")
            }
        }
    }

    @Test("epoch numbers in CSV text: seconds, or milliseconds from 1e11 on, fractions floored")
    func epochText() throws {
        let cases: [(String, Int64?)] = [
            ("1530000000", 1_530_000_000),
            ("1530000000000", 1_530_000_000),
            ("1531234567890", 1_531_234_567), // the WatchMe special post: 2018-07-10T14:56:07Z
            ("99999999999", 99_999_999_999), // just under 1e11: seconds (year 5138)
            ("100000000000", 100_000_000), // 1e11: milliseconds
            ("1e11", 100_000_000),
            ("1530000000.9", 1_530_000_000),
            ("-0.5", -1),
            ("0", nil), // a whole number below 100,000: a year or a placeholder
            ("2018", nil),
            ("99999", nil),
            ("100000", 100_000),
            ("-1500", nil),
            ("-150000", -150_000),
            ("-100000000001", -100_000_001), // -1e11 - 1 ms: floor toward the past
            ("253402300799999", 253_402_300_799), // 9999-12-31T23:59:59.999Z in ms
            ("253402300800000", nil), // 10000-01-01 in ms
            ("-62135596800", -62_135_596_800), // 0001-01-01T00:00:00Z
            ("-62135596801", nil),
            ("1e300", nil),
            ("0x10", nil)
        ]
        let got = try times(cases.map(\.0))
        for (i, c) in cases.enumerated() {
            let expected: Result<ParsedTime, RejectReason> =
                c.1.map { .success(ParsedTime(seconds: $0, precision: .second)) }
                ?? .failure(.invalidTime)
            #expect(got["t\(i)"] == expected, "«\(c.0)»")
        }
        #expect(epoch(2018, 7, 10, 14, 56, 7) == 1_531_234_567)
    }

    @Test("epoch numbers as JSON numbers and as JSON strings")
    func epochJSON() throws {
        let dir = try TempDir()
        let values = [
            "1530000000", "1530000000000", "1.5300000009e9", "99999999999", "100000000000", "-100000",
            "\"1530000000\"", "\"2018-07-01\"", "1e400", "true"
        ]
        let posts = values.enumerated().map { i, v in
            #""p\#(i)": {"latitude": 53.7, "longitude": -1.8, "timestamp": \#(v)}"#
        }.joined(separator: ",\n")
        let result = try ingest(try dir.file("t.json", "{\"posts\": {\n" + posts + "\n}}"))
        let time = Dictionary(
            uniqueKeysWithValues: result.incidents.map {
                ($0.key, ParsedTime(seconds: $0.time, precision: $0.precision))
            })
        let second = { (s: Int64) in ParsedTime(seconds: s, precision: .second) }
        #expect(time["p0"] == second(1_530_000_000))
        #expect(time["p1"] == second(1_530_000_000))
        #expect(time["p2"] == second(1_530_000_000))
        #expect(time["p3"] == second(99_999_999_999))
        #expect(time["p4"] == second(100_000_000))
        #expect(time["p5"] == second(-100_000))
        #expect(time["p6"] == second(1_530_000_000))
        #expect(time["p7"] == ParsedTime(seconds: epoch(2018, 7, 1), precision: .day))
        #expect(result.reasons == ["posts.p8": "invalid_time", "posts.p9": "invalid_time"])
    }

    @Test("coordinates: JSON numbers, numeric strings, spaces, exponents; not other values")
    func coordinates() throws {
        let dir = try TempDir()
        let text = """
            [
              {"id": "num", "latitude": 53.7248, "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "str", "latitude": "53.7248", "longitude": "-1.8658", "timestamp": 1530000000},
              {"id": "spaced", "latitude": " 53.7248 ", "longitude": "\\t-1.8658", "timestamp": 1530000000},
              {"id": "exp", "latitude": 5.37248e1, "longitude": "-18658e-4", "timestamp": 1530000000},
              {"id": "plus", "latitude": "+53.7248", "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "comma", "latitude": "53,7248", "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "unit", "latitude": "53.7248N", "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "inf", "latitude": "Infinity", "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "huge", "latitude": 1e400, "longitude": -1.8658, "timestamp": 1530000000},
              {"id": "obj", "latitude": {"v": 53.7}, "longitude": -1.8658, "timestamp": 1530000000}
            ]
            """
        let result = try ingest(try dir.file("c.json", text))
        for key in ["num", "str", "spaced", "exp"] {
            let incident = try #require(result.incident(key), "\(key)")
            #expect(incident.lat == 53.7248 && incident.lon == -1.8658, "\(key)")
        }
        let invalid = Set(result.rejects.filter { $0.reason == "invalid_coordinates" }.map(\.id))
        #expect(invalid.isSuperset(of: ["comma", "unit", "inf", "huge", "obj"]))
        #expect(result.incidents.count + result.rejects.count == 10)
        if let plus = result.incident("plus") { #expect(plus.lat == 53.7248) }
        // CSV text is read the same way: data.police.uk serves coordinates as strings.
        let csv = try dir.file("c.csv", "id,latitude,longitude,timestamp\na,\"53.7248\", -1.8658 ,1530000000\n")
        let a = try #require(try ingest(csv).incident("a"))
        #expect(a.lat == 53.7248 && a.lon == -1.8658)
    }

    @Test("coordinates keep every digit of the Double they name")
    func coordinatePrecision() throws {
        let dir = try TempDir()
        var rng = SplitMix64(seed: 99)
        var expected: [(Double, Double)] = []
        var text = "latitude,longitude,timestamp,id\n"
        for i in 0..<500 {
            let lat = Double(Int64(bitPattern: rng.next() % 180_000_000_000) - 90_000_000_000) / 1e9
            let lon = Double(bitPattern: 0x4000_0000_0000_0000 | (rng.next() >> 12)) - 3 // [-1, 1) with full mantissa
            expected.append((lat, lon))
            text += "\(lat),\(lon),1530000000,k\(i)\n"
        }
        let result = try ingest(try dir.file("p.csv", text))
        #expect(result.incidents.count == 500)
        for (incident, e) in zip(result.incidents, expected) {
            #expect(
                incident.lat.bitPattern == e.0.bitPattern && incident.lon.bitPattern == e.1.bitPattern,
                "\(incident.key)")
        }
    }

    @Test("handled: true/false, 1/0, yes/no, Y/N in any case; empty or anything else is unknown")
    func handled() throws {
        let dir = try TempDir()
        let values: [(String, Bool?)] = [
            ("true", true), ("TRUE", true), ("True", true), ("1", true), ("yes", true), ("YES", true), ("Yes", true),
            ("y", true), ("Y", true), (" y ", true),
            ("false", false), ("FALSE", false), ("0", false), ("no", false), ("No", false), ("n", false), ("N", false),
            ("", nil), ("   ", nil), ("maybe", nil), ("2", nil), ("yess", nil), ("t", nil)
        ]
        var text = "id,latitude,longitude,timestamp,handled\n"
        for (i, v) in values.enumerated() { text += "h\(i),53.7,-1.8,1530000000,\(v.0)\n" }
        let result = try ingest(try dir.file("h.csv", text))
        #expect(result.incidents.count == values.count, "handled never rejects a record")
        for (i, v) in values.enumerated() {
            #expect(result.incident("h\(i)")?.handled == v.1, "«\(v.0)»")
        }
        // JSON booleans, numbers and strings (policeArrived is a JSON boolean in WatchMe).
        let json = try dir.file(
            "h.json",
            """
            [{"id": "a", "latitude": 1, "longitude": 1, "timestamp": 1530000000, "policeArrived": true},
             {"id": "b", "latitude": 1, "longitude": 1, "timestamp": 1530000000, "policeArrived": false},
             {"id": "c", "latitude": 1, "longitude": 1, "timestamp": 1530000000, "policeArrived": 1},
             {"id": "d", "latitude": 1, "longitude": 1, "timestamp": 1530000000, "policeArrived": "N"},
             {"id": "e", "latitude": 1, "longitude": 1, "timestamp": 1530000000, "policeArrived": null},
             {"id": "f", "latitude": 1, "longitude": 1, "timestamp": 1530000000}]
            """)
        let j = try ingest(json)
        #expect(j.incidents.map(\.handled) == [true, false, true, false, nil, nil])
    }
}
