import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// Ingests `text` written to a scratch file with the given reader options.
private func ingestText(_ text: String, name: String = "portal.csv", _ configure: (inout ReaderOptions) throws -> Void)
    throws -> IngestResult
{
    let dir = try TempDir()
    let path = dir.path + "/" + name
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    var options = IngestOptions()
    try configure(&options.reader)
    return try ingest(path, options: options)
}

private func reader(_ zone: String?, format: String? = nil) throws -> TimeReader {
    var options = ReaderOptions()
    options.timeZone = try zone.map { try LocalTimeZone(named: $0) }
    options.timeFormat = try format.map(TimeFormat.compile)
    return TimeReader(options: options)
}

private func instant(_ reader: TimeReader, _ text: String) -> Int64? {
    var copy = text
    return copy.withUTF8 { reader.parse(RawValue(kind: .text, bytes: $0))?.seconds }
}

@Suite struct TimeZoneTests {
    /// Both directions of the 2018 changes, the first and last second of each gap and repeat,
    /// and the seconds just outside them (instants from the zones' published rules).
    @Test(
        arguments: [
            // America/Chicago: 2018-03-11 02:00 CST → 03:00 CDT (08:00Z); 2018-11-04 02:00 CDT → 01:00 CST (07:00Z).
            ("America/Chicago", "2018-03-11 01:59:59", Civil.epoch(2018, 3, 11, 7, 59, 59)),
            ("America/Chicago", "2018-03-11 02:00:00", nil),
            ("America/Chicago", "2018-03-11 02:59:59", nil),
            ("America/Chicago", "2018-03-11 03:00:00", Civil.epoch(2018, 3, 11, 8, 0, 0)),
            ("America/Chicago", "2018-11-04 00:59:59", Civil.epoch(2018, 11, 4, 5, 59, 59)),
            ("America/Chicago", "2018-11-04 01:00:00", Civil.epoch(2018, 11, 4, 6, 0, 0)),
            ("America/Chicago", "2018-11-04 01:59:59", Civil.epoch(2018, 11, 4, 6, 59, 59)),
            ("America/Chicago", "2018-11-04 02:00:00", Civil.epoch(2018, 11, 4, 8, 0, 0)),
            // America/New_York: the same local hours, one hour earlier in UTC.
            ("America/New_York", "2018-03-11 01:59:59", Civil.epoch(2018, 3, 11, 6, 59, 59)),
            ("America/New_York", "2018-03-11 02:00:00", nil),
            ("America/New_York", "2018-03-11 02:59:59", nil),
            ("America/New_York", "2018-03-11 03:00:00", Civil.epoch(2018, 3, 11, 7, 0, 0)),
            ("America/New_York", "2018-11-04 01:00:00", Civil.epoch(2018, 11, 4, 5, 0, 0)),
            ("America/New_York", "2018-11-04 01:59:59", Civil.epoch(2018, 11, 4, 5, 59, 59)),
            ("America/New_York", "2018-11-04 02:00:00", Civil.epoch(2018, 11, 4, 7, 0, 0)),
            // Europe/London: 2018-03-25 01:00 GMT → 02:00 BST (01:00Z); 2018-10-28 02:00 BST → 01:00 GMT (01:00Z).
            ("Europe/London", "2018-03-25 00:59:59", Civil.epoch(2018, 3, 25, 0, 59, 59)),
            ("Europe/London", "2018-03-25 01:00:00", nil),
            ("Europe/London", "2018-03-25 01:59:59", nil),
            ("Europe/London", "2018-03-25 02:00:00", Civil.epoch(2018, 3, 25, 1, 0, 0)),
            ("Europe/London", "2018-10-28 00:59:59", Civil.epoch(2018, 10, 27, 23, 59, 59)),
            ("Europe/London", "2018-10-28 01:00:00", Civil.epoch(2018, 10, 28, 0, 0, 0)),
            ("Europe/London", "2018-10-28 01:59:59", Civil.epoch(2018, 10, 28, 0, 59, 59)),
            ("Europe/London", "2018-10-28 02:00:00", Civil.epoch(2018, 10, 28, 2, 0, 0)),
            ("Europe/London", "2018-07-04 12:00:00", Civil.epoch(2018, 7, 4, 11, 0, 0)),
            ("Europe/London", "2018-01-04 12:00:00", Civil.epoch(2018, 1, 4, 12, 0, 0))
        ] as [(String, String, Int64?)])
    func transitions(zone: String, local: String, expected: Int64?) throws {
        #expect(instant(try reader(zone), local) == expected)
        // The same through a pattern, and after the cache has seen the whole day.
        let r = try reader(zone, format: "%Y-%m-%d %H:%M:%S")
        _ = instant(r, String(local.prefix(10)) + " 12:00:00")
        #expect(instant(r, local) == expected)
    }

    @Test func offsetsInTheTextWinAndEpochsAreAbsolute() throws {
        let r = try reader("America/Chicago")
        #expect(instant(r, "2018-07-04T23:30:00Z") == Civil.epoch(2018, 7, 4, 23, 30))
        #expect(instant(r, "2018-07-04T23:30:00+01:00") == Civil.epoch(2018, 7, 4, 22, 30))
        #expect(instant(r, "1530747000") == 1_530_747_000)
        // A date or month is its local start.
        #expect(instant(r, "2018-07-04") == Civil.epoch(2018, 7, 4, 5, 0, 0))
        #expect(instant(r, "2018-01") == Civil.epoch(2018, 1, 1, 6, 0, 0))
    }

    /// A date whose midnight is skipped starts at the first instant that exists.
    @Test func dayWhoseMidnightIsSkipped() throws {
        // America/Sao_Paulo, 2018-11-04 00:00 −03 → 01:00 −02 (03:00Z).
        let r = try reader("America/Sao_Paulo")
        #expect(instant(r, "2018-11-04") == Civil.epoch(2018, 11, 4, 3, 0, 0))
        #expect(instant(r, "2018-11-04 00:30:00") == nil)
        #expect(instant(r, "2018-11-04 01:00:00") == Civil.epoch(2018, 11, 4, 3, 0, 0))
    }

    /// Seeded random wall times of 2015–2020 in several zones against a brute force over every
    /// offset the zone uses: the day cache never changes an answer.
    @Test func cachedAnswersEqualBruteForce() throws {
        var rng = SplitMix64(seed: 99)
        for zoneName in ["America/Chicago", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Apia"]
        {
            let zone = try #require(TimeZone(identifier: zoneName))
            let r = try reader(zoneName)
            let start = Civil.epoch(2015, 1, 1), span = Civil.epoch(2021, 1, 1) - start
            for k in 0..<4000 {
                // Half the draws near the changes of offset, where mistakes would be.
                var wall = start + Int64(rng.next() % UInt64(span))
                if k % 2 == 0,
                    let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(wall)))
                {
                    wall =
                        Int64(next.timeIntervalSince1970) + Int64(zone.secondsFromGMT(for: next))
                        + Int64(rng.next() % 14_400) - 7200
                }
                var offsets = Set<Int64>()
                for probe in stride(from: wall - 86_400, through: wall + 86_400, by: 1800) {
                    offsets.insert(Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(probe)))))
                }
                let valid = offsets.map { wall - $0 }.filter { u in
                    Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(u)))) == wall - u
                }
                let text = Civil.iso(wall).replacingOccurrences(of: "Z", with: "")
                #expect(instant(r, text) == valid.min(), "\(zoneName) \(text)")
            }
        }
    }

    @Test func unknownZonesAreRefused() throws {
        #expect(try LocalTimeZone(named: "america/chicago").identifier == "America/Chicago")
        for name in ["Mars/Olympus_Mons", "", "CST", String(repeating: "A", count: 500)] {
            #expect(throws: TimeFormatError.self) { try LocalTimeZone(named: name) }
        }
        do {
            _ = try LocalTimeZone(named: "Mars/Olympus_Mons")
        } catch {
            #expect(error.message.contains("unknown time zone 'Mars/Olympus_Mons'"))
        }
    }
}

@Suite struct PortalColumnTests {
    @Test func chicagoShape() throws {
        let text = """
            ID,Case Number,Date,Primary Type,Latitude,Longitude,Arrest
            1,JB1,07/04/2018 11:30:00 PM,THEFT,41.88,-87.63,false
            2,JB2,03/11/2018 02:30:00 AM,BATTERY,41.88,-87.63,true
            3,JB3,2018-07-04T23:30:00Z,THEFT,41.88,-87.63,false
            4,JB4,yesterday,THEFT,41.88,-87.63,false

            """
        let r = try ingestText(text) { o in
            o.timeFormat = try TimeFormat.compile("%m/%d/%Y %I:%M:%S %p")
            o.timeZone = try LocalTimeZone(named: "America/Chicago")
        }
        #expect(r.incident("1")?.time == Civil.epoch(2018, 7, 5, 4, 30))
        // `Primary Type` is the category (SPEC §2.3); the rest are attributes.
        #expect(r.incident("1")?.category == "THEFT")
        #expect(r.incident("1")?.attributes == #"{"Arrest":"false","Case Number":"JB1"}"#)
        #expect(r.incident("3")?.time == Civil.epoch(2018, 7, 4, 23, 30)) // falls back to §2.4
        #expect(r.reasons == ["3": "invalid_time", "5": "invalid_time"]) // the skipped hour; "yesterday"
    }

    @Test func newYorkShape() throws {
        let text = """
            CMPLNT_NUM,CMPLNT_FR_DT,CMPLNT_FR_TM,OFNS_DESC,Lat_Lon
            101,11/04/2018,01:30:00,ROBBERY,"(40.71, -74.00)"
            102,11/04/2018,,ROBBERY,"(40.71, -74.00)"
            103,,01:30:00,ROBBERY,"(40.71, -74.00)"
            104,11/04/2018,01:30:00,ROBBERY,
            105,11/04/2018,01:30:00,ROBBERY,"(40.71; -74.00)"
            106,11/04/2018,01:30:00,ROBBERY,"POINT (-74.00 40.71)"
            107,11/04/2018,01:30:00,ROBBERY,"40.71,-74.00"
            108,11/04/2018,01:30:00,ROBBERY,"(95.0, -74.00)"
            109,11/04/2018,01:30:00,ROBBERY,"(0, 0)"
            110,11/04/2018,01:30:00,ROBBERY,POINT EMPTY

            """
        let r = try ingestText(text) { o in
            o.timeFormat = try TimeFormat.compile("%m/%d/%Y %H:%M:%S")
            o.timeZone = try LocalTimeZone(named: "America/New_York")
            o.columns = ColumnOverrides([.time: "CMPLNT_FR_DT+CMPLNT_FR_TM", .point: "Lat_Lon", .id: "CMPLNT_NUM"])
        }
        // 01:30 on the night clocks go back: the earlier instant (EDT).
        #expect(r.incident("101")?.time == Civil.epoch(2018, 11, 4, 5, 30))
        #expect(r.incident("101")?.lat == 40.71)
        #expect(r.incident("101")?.lon == -74.0)
        #expect(r.incident("102")?.time == Civil.epoch(2018, 11, 4, 4, 0)) // empty time part: midnight
        #expect(r.incident("106")?.lon == -74.0)
        #expect(r.incident("107")?.lat == 40.71)
        #expect(
            r.reasons == [
                "4": "missing_time", "5": "missing_coordinates", "6": "invalid_coordinates",
                "9": "invalid_coordinates", "10": "null_island", "11": "missing_coordinates"
            ])
        // The joined columns are the time, not attributes; `OFNS_DESC` is the category (SPEC §2.3).
        #expect(r.incident("101")?.attributes == nil)
        #expect(r.incident("101")?.category == "ROBBERY")
    }

    @Test func jsonJoinAndPoint() throws {
        let text = """
            [{"cmplnt_num": "1", "cmplnt_fr_dt": "2018-07-04", "cmplnt_fr_tm": "23:30:00", "lat_lon": "(40.71, -74.0)"},
             {"cmplnt_num": "2", "cmplnt_fr_dt": "2018-07-04", "lat_lon": "POINT (-74.0 40.71)"},
             {"cmplnt_num": "3", "cmplnt_fr_tm": "23:30:00", "lat_lon": "(40.71, -74.0)"},
             {"cmplnt_num": "4", "cmplnt_fr_dt": "2018-07-04", "cmplnt_fr_tm": "23:30:00", "latitude": 40.7, "longitude": -74.0}]
            """
        let r = try ingestText(text, name: "portal.json") { o in
            o.timeZone = try LocalTimeZone(named: "America/New_York")
            o.columns = ColumnOverrides([.time: "cmplnt_fr_dt+cmplnt_fr_tm", .point: "lat_lon", .id: "cmplnt_num"])
        }
        #expect(r.incident("1")?.time == Civil.epoch(2018, 7, 5, 3, 30))
        #expect(r.incident("2")?.time == Civil.epoch(2018, 7, 4, 4, 0)) // an absent time member: midnight
        #expect(r.reasons == ["[2]": "missing_time", "[3]": "missing_coordinates"])
    }

    @Test func missingJoinColumnIsAUsageError() throws {
        let dir = try TempDir()
        let path = dir.path + "/a.csv"
        try "id,date,lat,lon\n1,2018-07-04,53.7,-1.8\n".write(toFile: path, atomically: false, encoding: .utf8)
        var options = IngestOptions()
        options.reader.columns = ColumnOverrides([.time: "date+hour"])
        let error = try #require(inputError(path, options: options))
        #expect(error.message.contains("--column time=date+hour: the CSV header has no column 'hour'; the closest is"))
        #expect(error.isUsage)
        #expect(ColumnOverrides([.point: "loc", .lat: "y"]).problem != nil)
    }
}

@Suite struct AllRejectedTests {
    @Test func everyRecordRejectedIsAnInputErrorThatSaysWhy() throws {
        let dir = try TempDir()
        let path = dir.path + "/chicago.csv"
        try """
        ID,Case Number,Date,Primary Type,Latitude,Longitude,Arrest
        1,JB1,07/04/2018 11:30:00 PM,THEFT,41.88,-87.63,false
        2,JB2,07/05/2018 01:10:00 AM,THEFT,41.88,-87.63,false
        3,JB3,07/05/2018 01:10:00 AM,THEFT,,-87.63,false

        """.write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(inputError(path))
        #expect(
            error.message.hasPrefix(
                "every record was rejected (3 records): invalid_time 2 (also missing_coordinates 1), e.g. time \"07/04/2018 11:30:00 PM\""
            ))
        #expect(error.message.contains("it reads with --time-format '%m/%d/%Y %I:%M:%S %p'"))
        #expect(error.message.contains("--timezone ZONE"))
        #expect(error.message.contains("--column time=DATE+TIME"))

        // With the pattern given, the file reads.
        var options = IngestOptions()
        options.reader.timeFormat = try TimeFormat.compile("%m/%d/%Y %I:%M:%S %p")
        #expect(try ingest(path, options: options).report.accepted == 2)
    }

    @Test func missingTimeAndCoordinatesNameTheirOptions() throws {
        let dir = try TempDir()
        let nyc = dir.path + "/nyc.csv"
        try "CMPLNT_NUM,CMPLNT_FR_DT,CMPLNT_FR_TM,Latitude,Longitude\n1,07/04/2018,23:30:00,40.7,-74.0\n"
            .write(toFile: nyc, atomically: false, encoding: .utf8)
        let time = try #require(inputError(nyc))
        #expect(
            time.message.contains(
                "missing_time 1; name the time column with --column time=NAME, or --column time=DATE+TIME"))
        let bad = dir.path + "/bad.csv"
        try "id,time,lat,lon\n1,2018-07-04T00:00:00Z,north,west\n".write(
            toFile: bad, atomically: false, encoding: .utf8)
        let coordinates = try #require(inputError(bad))
        #expect(coordinates.message.contains("invalid_coordinates 1, e.g. coordinates \"north, west\""))
        #expect(coordinates.message.contains("--column point=NAME"))
    }

    /// A header-only file is a quiet day's export, not a broken one: zero records, no error.
    @Test func headerOnlyIsNotAnError() throws {
        let r = try ingestText("id,time,lat,lon\n") { _ in }
        #expect(r.report.records == 0)
        #expect(r.report.accepted == 0)
    }
}
