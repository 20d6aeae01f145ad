import AreaWatchCore
import Testing

private func parse(_ pattern: String, _ value: String) throws -> WallTime? {
    let format = try TimeFormat.compile(pattern)
    return format.parse(value.utf8.span)
}

/// Wall seconds of a civil time, by an arithmetic independent of the engine's.
private func wall(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Int64 {
    func before(_ year: Int) -> Int { 365 * (year - 1) + (year - 1) / 4 - (year - 1) / 100 + (year - 1) / 400 }
    var days = before(y) - before(1970)
    let lengths = [31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    for m in 0..<(mo - 1) { days += lengths[m] }
    days += d - 1
    return Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + s)
}

@Suite struct TimeFormatTests {
    @Test func portalShapes() throws {
        // Chicago's export, 12-hour clock with AM/PM in any case.
        #expect(
            try parse("%m/%d/%Y %I:%M:%S %p", "07/04/2018 11:30:00 PM")
                == WallTime(wall: wall(2018, 7, 4, 23, 30), precision: .second, offset: nil))
        #expect(try parse("%m/%d/%Y %I:%M:%S %p", "07/04/2018 12:05:09 am")?.wall == wall(2018, 7, 4, 0, 5, 9))
        #expect(try parse("%m/%d/%Y %I:%M:%S %p", "07/04/2018 12:05:09 pm")?.wall == wall(2018, 7, 4, 12, 5, 9))
        // Single digits, blanks around, a blank in the pattern matching none or several.
        #expect(try parse("%m/%d/%Y %I:%M:%S %p", "  7/4/2018 1:02:03PM ")?.wall == wall(2018, 7, 4, 13, 2, 3))
        #expect(try parse("%m/%d/%Y %H:%M:%S", "12/31/2016   23:59:59")?.wall == wall(2016, 12, 31, 23, 59, 59))
        // Month names, English, any case, full or abbreviated; %e with its leading blank.
        #expect(try parse("%d-%b-%Y", "04-JUL-2018") == WallTime(wall: wall(2018, 7, 4), precision: .day, offset: nil))
        #expect(try parse("%B %e, %Y", "september  9, 2017")?.wall == wall(2017, 9, 9))
        #expect(try parse("%b %Y", "Feb 2016") == WallTime(wall: wall(2016, 2, 1), precision: .month, offset: nil))
        // Day of the year, two-digit years with the POSIX pivot.
        #expect(try parse("%Y-%j", "2016-366")?.wall == wall(2016, 12, 31))
        #expect(try parse("%Y-%j", "2017-060")?.wall == wall(2017, 3, 1))
        #expect(try parse("%d/%m/%y", "01/02/69")?.wall == wall(1969, 2, 1))
        #expect(try parse("%d/%m/%y", "01/02/68")?.wall == wall(2068, 2, 1))
        #expect(try parse("%d/%m/%y", "01/02/00")?.wall == wall(2000, 2, 1))
        // Fixed widths without separators: numbers are read up to their width.
        #expect(try parse("%Y%m%d%H%M%S", "20180704233000")?.wall == wall(2018, 7, 4, 23, 30))
        // Zones: %z offsets, %Z only the unambiguous names; literal percent.
        #expect(try parse("%Y-%m-%d %H:%M %z", "2018-07-04 23:30 -0500")?.offset == -18_000)
        #expect(try parse("%Y-%m-%d %H:%M %z", "2018-07-04 23:30 +05:30")?.offset == 19_800)
        #expect(try parse("%Y-%m-%d %H:%M %z", "2018-07-04 23:30 Z")?.offset == 0)
        #expect(try parse("%Y-%m-%d %H:%M %Z", "2018-07-04 23:30 gmt")?.offset == 0)
        #expect(try parse("%Y-%m-%d %H:%M %Z", "2018-07-04 23:30 CST") == nil)
        #expect(try parse("%d%% %Y-%m", "5% 2018-07")?.wall == wall(2018, 7, 5))
        // 24:00:00 is the next midnight, second 60 folds into the next minute (as SPEC §2.4).
        #expect(try parse("%Y-%m-%d %H:%M:%S", "2018-07-04 24:00:00")?.wall == wall(2018, 7, 5))
        #expect(try parse("%Y-%m-%d %H:%M:%S", "2016-12-31 23:59:60")?.wall == wall(2017, 1, 1))
    }

    @Test func nonMatchingValues() throws {
        let chicago = "%m/%d/%Y %I:%M:%S %p"
        for value in [
            "", "2018-07-04T23:30:00Z", "13/04/2018 11:30:00 PM", "02/30/2018 11:30:00 PM", "07/04/2018 13:30:00 PM",
            "07/04/2018 00:30:00 AM", "07/04/2018 11:30:00", "07/04/2018 11:30:00 PM extra", "07/04/0000 11:30:00 PM",
            "07/04/2018 11:60:00 PM", "07/04/2018 11:30:61 PM", "07/04/20189 11:30:00 PM", "07/04/2018 11:30:00 XM"
        ] {
            #expect(try parse(chicago, value) == nil, "\(value)")
        }
        #expect(try parse("%Y-%j", "2017-366") == nil)
        #expect(try parse("%Y-%j", "2017-000") == nil)
        #expect(try parse("%d/%m/%y", "01/02/2018") == nil)
        #expect(try parse("%d %b %Y", "01 Ju 2018") == nil)
    }

    @Test("a year alone is 1 January, precision month (SPEC §2.4's suggestion for year columns)")
    func yearAlone() throws {
        let format = try TimeFormat.compile("%Y")
        #expect(format.precision == .month)
        #expect(
            try parse("%Y", "2018")
                == WallTime(
                    wall: UTCTime.epochSeconds(CivilTime(year: 2018, month: 1, day: 1)),
                    precision: .month, offset: nil))
        #expect(try parse("%Y", "2018-07") == nil)
        #expect(try parse("FY%y", "FY18")?.wall == UTCTime.epochSeconds(CivilTime(year: 2018, month: 1, day: 1)))
    }

    @Test func refusedPatterns() {
        let refused: [(String, String)] = [
            ("", "empty"), ("%Y-%m-%d %", "lone '%'"), ("%Y-%m-%d %Q", "unknown directive %Q"),
            ("%Y %Y-%m", "twice"), ("%m/%d", "no year"), ("%Y %d", "no month"), ("%Y %z", "no month"),
            ("%Y-%m %H:%M", "no day"), ("%Y-%m-%d %M", "no hour"), ("%Y-%m-%d %H:%S", "no minutes"),
            ("%Y-%m-%d %I:%M", "no %p"), ("%Y-%m-%d %H:%M %p", "%p but no"), ("%Y-%j-%m", "both %j"),
            ("%Y-%m-%d %z %Z", "zone twice"), ("%Y-%m-%d %z", "zone but no time"),
            (String(repeating: "%Y", count: 200), "bytes long"),
            ("%Y-%m-%d" + String(repeating: " ", count: 300), "bytes long"),
            ("%Y-%m-%d %\u{e9}", "unknown directive")
        ]
        for (pattern, expected) in refused {
            #expect(throws: TimeFormatError.self, "\(pattern.prefix(40))") { try TimeFormat.compile(pattern) }
            do {
                _ = try TimeFormat.compile(pattern)
            } catch {
                #expect(error.message.contains(expected), "\(pattern.prefix(40)): \(error.message)")
            }
        }
    }

    /// Seeded random civil times written by an independent formatter in random patterns
    /// read back to the same wall time.
    @Test func randomRoundTrips() throws {
        var rng = SplitMix64(seed: 20_180_704)
        let names = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December"
        ]
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        for _ in 0..<3000 {
            let y = 1 + Int(rng.next() % 9999), mo = 1 + Int(rng.next() % 12)
            let lengths = [
                31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
            ]
            let d = 1 + Int(rng.next() % UInt64(lengths[mo - 1]))
            let h = Int(rng.next() % 24), mi = Int(rng.next() % 60), s = Int(rng.next() % 60)
            let twelve = rng.next() % 2 == 0
            let monthStyle = rng.next() % 3
            let separator = ["/", "-", ".", " "][Int(rng.next() % 4)]
            let monthDirective = ["%m", "%b", "%B"][Int(monthStyle)]
            let monthText =
                monthStyle == 0
                ? two(mo)
                : (monthStyle == 1 ? String(names[mo - 1].prefix(3)).uppercased() : names[mo - 1].lowercased())
            let dayFirst = rng.next() % 2 == 0
            var pattern =
                dayFirst
                ? "%d\(separator)\(monthDirective)\(separator)%Y" : "\(monthDirective)\(separator)%d\(separator)%Y"
            var text =
                dayFirst
                ? "\(two(d))\(separator)\(monthText)\(separator)\(y)"
                : "\(monthText)\(separator)\(two(d))\(separator)\(y)"
            if twelve {
                pattern += " %I:%M:%S %p"
                text += " \(two(h % 12 == 0 ? 12 : h % 12)):\(two(mi)):\(two(s)) \(h < 12 ? "AM" : "pm")"
            } else {
                pattern += "T%H:%M:%S"
                text += "T\(two(h)):\(two(mi)):\(two(s))"
            }
            let got = try parse(pattern, text)
            #expect(
                got == WallTime(wall: wall(y, mo, d, h, mi, s), precision: .second, offset: nil), "\(pattern) \(text)")
        }
    }

    /// Any pattern either compiles or is refused, and a compiled one reads any value in time
    /// linear in its length (no backtracking): seeded random patterns and values.
    @Test func randomPatternsAreBounded() {
        var rng = SplitMix64(seed: 7)
        let pieces = [
            "%Y", "%y", "%m", "%d", "%e", "%H", "%I", "%M", "%S", "%p", "%b", "%B", "%j", "%z", "%Z", "%%", " ", "/",
            "-", ":", "T", "%", "%q", "x"
        ]
        let alphabet = Array("0123456789 /-:TAPMZ+apmJjulyDec%".utf8)
        var compiled = 0
        for _ in 0..<5000 {
            let pattern = (0..<Int(rng.next() % 12)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
                .joined()
            guard let format = try? TimeFormat.compile(pattern) else { continue }
            compiled += 1
            for _ in 0..<4 {
                var value = (0..<Int(rng.next() % 40)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                if let w = format.parse(value.span) {
                    #expect(w.wall >= wall(1, 1, 1) - 86_400 && w.wall <= wall(9999, 12, 31) + 86_400 + 61)
                }
                value.removeAll()
            }
        }
        #expect(compiled > 50)
    }
}
