/// Where an incident's time falls relative to the as-of instant (SPEC §7).
public enum WindowMembership: UInt8, Sendable {
    /// (T − 1 year, T]
    case current
    /// (T − 2 years, T − 1 year]
    case previous
    /// At or before T − 2 years: counted only in calendar-year totals.
    case older
    /// After T: not counted anywhere, reported as `excluded_future`.
    case future
}

/// The two year-long windows ending at an as-of instant `T`, in UTC calendar years.
public struct TimeWindows: Sendable, Hashable {
    public let asOf: Int64
    /// T − 1 year (exclusive start of the current window, inclusive end of the previous one).
    public let currentStart: Int64
    /// T − 2 years (exclusive start of the previous window).
    public let previousStart: Int64

    public init(asOf: Int64) {
        self.asOf = asOf
        currentStart = UTCTime.subtractingYears(1, from: asOf)
        previousStart = UTCTime.subtractingYears(2, from: asOf)
    }

    @inline(__always)
    public func membership(_ t: Int64) -> WindowMembership {
        if t > asOf { return .future }
        if t > currentStart { return .current }
        if t > previousStart { return .previous }
        return .older
    }
}
