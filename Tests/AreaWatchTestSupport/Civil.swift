import Foundation

// Calendar arithmetic for the tests, written independently of the engine's `UTCTime`, so that
// tests compare the engine with a second implementation rather than with itself.

/// UTC calendar arithmetic (days from civil, H. Hinnant's algorithm), independent of the engine.
public enum Civil {
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func epoch(_ year: Int, _ month: Int, _ day: Int, _ h: Int = 0, _ m: Int = 0, _ s: Int = 0) -> Int64 {
        Int64(days(year: year, month: month, day: day)) * 86_400 + Int64(h * 3600 + m * 60 + s)
    }

    /// (year, month, day) of a day number.
    public static func civil(days z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public static func year(_ t: Int64) -> Int {
        civil(days: Int((t >= 0 ? t : t - 86_399) / 86_400)).0
    }

    public static func iso(_ t: Int64) -> String {
        let day = Int((t >= 0 ? t : t - 86_399) / 86_400)
        let second = Int(t - Int64(day) * 86_400)
        let (y, m, d) = civil(days: day)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, second / 3600, second / 60 % 60, second % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` only (the as-of and the manifest's times).
    public static func parseISO(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else {
            return nil
        }
        func n(_ r: Range<Int>) -> Int? { Int(String(decoding: b[r], as: UTF8.self)) }
        guard let y = n(0..<4), let mo = n(5..<7), let d = n(8..<10), let h = n(11..<13), let mi = n(14..<16),
            let se = n(17..<19)
        else { return nil }
        return epoch(y, mo, d, h, mi, se)
    }

    /// T minus `years` calendar years (Feb 29 → Feb 28).
    public static func minusYears(_ t: Int64, _ years: Int) -> Int64 {
        let dayNumber = Int((t >= 0 ? t : t - 86_399) / 86_400)
        let secondOfDay = t - Int64(dayNumber) * 86_400
        let (y, m, d) = civil(days: dayNumber)
        let ny = y - years
        let leap = (ny % 4 == 0 && ny % 100 != 0) || ny % 400 == 0
        let nd = (m == 2 && d == 29 && !leap) ? 28 : d
        return Int64(days(year: ny, month: m, day: nd)) * 86_400 + secondOfDay
    }
}
