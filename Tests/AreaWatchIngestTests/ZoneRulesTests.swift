import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// Daylight-saving rules written here from the laws themselves, as the instants of each year's
/// two changes, so that the zone files the engine reads are checked against an independent
/// model (never against the engine's own arithmetic).
private enum Law {
    /// Day number of the n-th (1-based; 5 = last) weekday (0 = Sunday) of a month.
    static func weekday(_ year: Int, _ month: Int, _ weekday: Int, _ n: Int) -> Int {
        let first = Civil.days(year: year, month: month, day: 1)
        let firstWeekday = ((first % 7) + 11) % 7 // 1970-01-01 was a Thursday
        var day = first + (weekday - firstWeekday + 7) % 7 + 7 * (n - 1)
        let next = Civil.days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1)
        while day >= next { day -= 7 }
        return day
    }

    /// US since 2007: second Sunday of March 02:00 standard, first Sunday of November 02:00 daylight.
    static func unitedStates(_ year: Int, standard: Int64) -> (start: Int64, end: Int64) {
        (
            Int64(weekday(year, 3, 0, 2)) * 86_400 + 7200 - standard,
            Int64(weekday(year, 11, 0, 1)) * 86_400 + 7200 - (standard + 3600)
        )
    }

    /// EU since 1996: last Sunday of March and of October, 01:00 UTC.
    static func europe(_ year: Int) -> (start: Int64, end: Int64) {
        (Int64(weekday(year, 3, 0, 5)) * 86_400 + 3600, Int64(weekday(year, 10, 0, 5)) * 86_400 + 3600)
    }

    /// New South Wales since 2008: first Sunday of October 02:00 standard (+10) to first Sunday
    /// of April 03:00 daylight (+11); `end` is that of the same calendar year.
    static func sydney(_ year: Int) -> (start: Int64, end: Int64) {
        (
            Int64(weekday(year, 10, 0, 1)) * 86_400 + 7200 - 36_000,
            Int64(weekday(year, 4, 0, 1)) * 86_400 + 10_800 - 39_600
        )
    }
}

@Suite struct ZoneRulesTests {
    static var tzdata: Bool { FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/America/New_York") }
    static let skipped: Comment =
        "skipped: to run it, install the system's tzdata (Debian package tzdata; make deps installs it)"

    func rules(_ name: String) throws -> ZoneRules {
        try LocalTimeZone(named: name).rules
    }

    /// Each change of a year: the offset a second before, at it, and the change listed alone.
    func expectChanges(_ r: ZoneRules, _ name: String, at change: Int64, from before: Int64, to after: Int64) {
        #expect(r.offset(at: change - 1) == before && r.offset(at: change) == after, "\(name) \(Civil.iso(change))")
        let listed = r.changes(from: change - 86_400, through: change + 86_400)
        #expect(
            listed.count == 1 && listed.first?.instant == change && listed.first?.after == after,
            "\(name) \(Civil.iso(change)): \(listed)")
    }

    /// Fat files list transitions to 2037; later years come from the footer rule.
    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func newYorkAndItsLinksFollowTheUSLaw() throws {
        for name in ["America/New_York", "US/Eastern", "EST5EDT"] {
            let r = try rules(name)
            for year in Array(2008...2045) + [2100, 2500, 9998] {
                let (start, end) = Law.unitedStates(year, standard: -18_000)
                expectChanges(r, name, at: start, from: -18_000, to: -14_400)
                expectChanges(r, name, at: end, from: -14_400, to: -18_000)
                #expect(r.offset(at: Civil.epoch(year, 7, 1)) == -14_400)
                #expect(r.offset(at: Civil.epoch(year, 1, 15)) == -18_000)
            }
        }
    }

    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func londonFollowsTheEULaw() throws {
        let r = try rules("Europe/London")
        for year in Array(1996...2040) + [2200, 3000] {
            let (start, end) = Law.europe(year)
            expectChanges(r, "Europe/London", at: start, from: 0, to: 3600)
            expectChanges(r, "Europe/London", at: end, from: 3600, to: 0)
        }
    }

    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func sydneyInTheSouthernHemisphere() throws {
        let r = try rules("Australia/Sydney")
        for year in Array(2009...2040) + [2300] {
            let (start, end) = Law.sydney(year)
            expectChanges(r, "Australia/Sydney", at: start, from: 36_000, to: 39_600)
            expectChanges(r, "Australia/Sydney", at: end, from: 39_600, to: 36_000)
            #expect(r.offset(at: Civil.epoch(year, 1, 1)) == 39_600)
            #expect(r.offset(at: Civil.epoch(year, 12, 31, 23)) == 39_600)
        }
    }

    /// The names the old Foundation lookup refused, and the deprecated one it accepted.
    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func fixedOffsetZonesAndLinks() throws {
        for (name, offset) in [
            ("UTC", Int64(0)), ("Etc/UTC", 0), ("Etc/GMT-14", 50_400), ("Etc/GMT+12", -43_200),
            ("Asia/Kolkata", 19_800), ("Asia/Calcutta", 19_800)
        ] {
            let zone = try LocalTimeZone(named: name)
            #expect(zone.identifier == name)
            let instants = [
                Civil.epoch(1950, 1, 1), Civil.epoch(2018, 3, 11, 7), Civil.epoch(2038, 1, 19, 3, 14, 8),
                Civil.epoch(9999, 12, 31)
            ]
            for t in instants {
                #expect(zone.rules.offset(at: t) == offset, "\(name) \(Civil.iso(t))")
            }
            let changes = zone.rules.changes(from: Civil.epoch(1950, 1, 1), through: Civil.epoch(9999, 1, 1))
            #expect(changes.isEmpty, "\(name)")
        }
        #expect(try LocalTimeZone(named: "Asia/Kolkata").rules == LocalTimeZone(named: "Asia/Calcutta").rules)
        // Kolkata was +05:30 since 1945, and +06:30 during the war (from the 1942 tzdata entry).
        #expect(try rules("Asia/Kolkata").offset(at: Civil.epoch(1943, 6, 1)) == 23_400)
    }

    /// Every zone of the system's tzdata loads, links included; the non-zone files do not.
    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func everyZoneOfTheSystemLoads() throws {
        let names = ZoneCatalog.names()
        #expect(names.count > 500, "\(names.count) zones")
        for required in [
            "UTC", "Etc/UTC", "Asia/Kolkata", "US/Eastern", "Asia/Calcutta",
            "America/Argentina/Buenos_Aires", "Factory"
        ] {
            #expect(names.contains(required), "\(required)")
        }
        for excluded in [
            "posixrules", "localtime", "zone.tab", "tzdata.zi", "posix/Europe/London", "right/UTC",
            "leapseconds"
        ] {
            #expect(!names.contains(excluded), "\(excluded)")
            #expect(throws: TimeFormatError.self) { try LocalTimeZone(named: excluded) }
        }
        for name in names {
            #expect(throws: Never.self, "\(name)") { _ = try LocalTimeZone(named: name) }
        }
        #expect(try LocalTimeZone(named: "us/eastern").identifier == "US/Eastern")
        for hostile in [
            "../../etc/passwd", "/etc/localtime", "America//New_York", "America/./New_York",
            "Europe\u{1B}/London"
        ] {
            #expect(throws: TimeFormatError.self, "\(hostile)") { try LocalTimeZone(named: hostile) }
        }
    }

    /// Wall times around New York's changes, the second precision and the day precision (SPEC §2.5).
    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func wallTimesAroundTheChanges() throws {
        let converter = ZoneConverter(try LocalTimeZone(named: "US/Eastern"))
        for year in [2018, 2030, 2050, 2200] {
            let (start, end) = Law.unitedStates(year, standard: -18_000)
            let gap = start - 18_000 // the wall time 02:00:00 that is skipped
            #expect(converter.instant(gap - 1, precision: .second) == start - 1)
            #expect(converter.instant(gap, precision: .second) == nil)
            #expect(converter.instant(gap + 3599, precision: .second) == nil)
            #expect(converter.instant(gap + 3600, precision: .second) == start)
            #expect(converter.instant(gap + 1800, precision: .day) == start, "the first instant that exists")
            let repeated = end - 14_400 - 3600 // 01:00:00 daylight, shown again at `end`
            #expect(converter.instant(repeated, precision: .second) == end - 3600, "the earlier instant")
            #expect(converter.instant(repeated + 3599, precision: .second) == end - 1)
            #expect(converter.instant(repeated + 3600, precision: .second) == end + 3600)
        }
    }

    @Test func posixRules() throws {
        let nuuk = try #require(PosixZoneRule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0"))
        // The last Sunday of March 2030 is the 31st; "−1" is 23:00 of the day before, local standard (−02): 01:00Z.
        let start = Int64(Civil.days(year: 2030, month: 3, day: 31)) * 86_400 - 3600 + 7200
        #expect(nuuk.offset(at: start - 1) == -7200 && nuuk.offset(at: start) == -3600)
        let santiago = try #require(PosixZoneRule("<-04>4<-03>,M9.1.6/24,M4.1.6/24"))
        #expect(santiago.offset(at: Civil.epoch(2030, 1, 15)) == -10_800)
        #expect(santiago.offset(at: Civil.epoch(2030, 7, 15)) == -14_400)
        let julian = try #require(PosixZoneRule("XXX3YYY,J60/0,J300/0"))
        // J60 is 1 March in every year, leap or not.
        let march = Civil.epoch(2024, 3, 1, 3)
        #expect(julian.offset(at: march - 1) == -10_800 && julian.offset(at: march) == -7200)
        let allYear = try #require(PosixZoneRule("EST5EDT,0/0,J365/25"))
        for t in [Civil.epoch(2030, 1, 1, 5), Civil.epoch(2030, 6, 1), Civil.epoch(2030, 12, 31, 23)] {
            #expect(allYear.offset(at: t) == -14_400, "\(Civil.iso(t))")
        }
        #expect(PosixZoneRule("UTC0")?.daylight == nil && PosixZoneRule("UTC0")?.standardOffset == 0)
        for bad in ["", "U0", "UTC", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.2.0", "<+03", "EST5EDT,J0,J365", "EST25"] {
            #expect(PosixZoneRule(bad) == nil, "\(bad)")
        }
    }

    /// A zone file cut at every byte, or claiming leap seconds, is refused with a reason.
    @Test(.enabled(if: ZoneRulesTests.tzdata, ZoneRulesTests.skipped))
    func damagedZoneFiles() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/London")))
        _ = try ZoneRules(tzif: bytes)
        for cut in stride(from: 0, to: bytes.count - 1, by: 1) {
            #expect(throws: ZoneFileError.self) { try ZoneRules(tzif: Array(bytes.prefix(cut))) }
        }
        var leap = bytes
        leap[28 + 3] = 1 // the first header's leap count
        #expect(throws: ZoneFileError.self) { try ZoneRules(tzif: leap) }
    }
}
