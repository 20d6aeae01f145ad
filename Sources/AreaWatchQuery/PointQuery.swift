import AreaWatchCore

/// The widget answer for one location (SPEC §7.1).
public struct PointAnswer: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var radius: Double
    public var asOf: Int64
    public var current: Int
    public var previous: Int
    /// Current-window incidents within the radius whose handled is true.
    public var handled: Int
    public var safetyClass: SafetyClass

    public var yearOverYear: YearOverYear { YearOverYear(current: current, previous: previous) }
    public var delta: Int { yearOverYear.delta }
    public var pct: Double? { yearOverYear.pct }
    public var label: String { safetyClass.label }
    public var text: String { yearOverYear.text }
}

extension IncidentIndex {
    public func pointAnswer(lat: Double, lon: Double) -> PointAnswer {
        pointAnswer(lat: lat, lon: lon, test: RadiusTest(radius: parameters.radius))
    }

    /// The same with a radius test built once for many queries.
    public func pointAnswer(lat: Double, lon: Double, test: RadiusTest) -> PointAnswer {
        let c = radiusCounts(lat: lat, lon: lon, test: test)
        return PointAnswer(lat: lat, lon: lon, radius: parameters.radius, asOf: parameters.asOf,
                           current: c.current, previous: c.previous, handled: c.handled,
                           safetyClass: parameters.thresholds.classify(c.current))
    }
}
