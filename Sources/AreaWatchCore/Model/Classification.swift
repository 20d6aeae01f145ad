/// The app's three safety classes (SPEC §7).
public enum SafetyClass: String, Sendable, Hashable, CaseIterable, Comparable {
    case safe, medium, dangerous

    /// The label the WatchMe app shows.
    public var label: String {
        switch self {
        case .safe: return "Safe Area"
        case .medium: return "Medium Safety Area"
        case .dangerous: return "Dangerous Area"
        }
    }

    private var rank: Int { self == .safe ? 0 : self == .medium ? 1 : 2 }
    public static func < (a: SafetyClass, b: SafetyClass) -> Bool { a.rank < b.rank }
}

/// Class bounds: c < medium → safe, c < dangerous → medium, otherwise dangerous (default 5, 10).
public struct Thresholds: Sendable, Hashable, CustomStringConvertible {
    public let medium: Double
    public let dangerous: Double

    public static let standard = Thresholds(medium: 5, dangerous: 10)

    public init(medium: Double, dangerous: Double) {
        self.medium = medium
        self.dangerous = dangerous
    }

    /// Parses `"5,10"`; nil unless two finite, non-negative, non-decreasing numbers.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let a = DecimalParsing.parse(String(parts[0]).trimmingSpaces),
            let b = DecimalParsing.parse(String(parts[1]).trimmingSpaces),
            a.isFinite, b.isFinite, a >= 0, a <= b
        else { return nil }
        self.init(medium: a, dangerous: b)
    }

    public func classify(_ count: Double) -> SafetyClass {
        count < medium ? .safe : count < dangerous ? .medium : .dangerous
    }

    public func classify(_ count: Int) -> SafetyClass { classify(Double(count)) }

    public var description: String { "\(NumberFormat.compact(medium)),\(NumberFormat.compact(dangerous))" }
}

/// Year-over-year comparison of a current and a previous count (SPEC §7).
public struct YearOverYear: Sendable, Hashable {
    public let current: Int
    public let previous: Int

    public init(current: Int, previous: Int) {
        self.current = current
        self.previous = previous
    }

    public var delta: Int { current - previous }

    /// delta / previous; nil when previous is 0.
    public var pct: Double? { previous == 0 ? nil : Double(delta) / Double(previous) }

    /// The app's comparison sentence.
    public var text: String {
        delta >= 0 ? "\(delta) event(s) more than previous year" : "\(-delta) event(s) less than previous year"
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " { s.removeFirst() }
        while let l = s.last, l == " " { s.removeLast() }
        return String(s)
    }
}
