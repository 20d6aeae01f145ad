import AreaWatchCore
import Dispatch

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
    /// SPEC §7.1: `none` when the location lies outside the data's box grown by the radius; the
    /// answer then has no class and says "No data for this location". Set by the caller that
    /// knows the data's extent (`DataExtent`).
    public var coverage: Coverage = .data

    public var yearOverYear: YearOverYear { YearOverYear(current: current, previous: previous) }
    public var delta: Int { yearOverYear.delta }
    public var pct: Double? { yearOverYear.pct }
    /// The class, nil when there is no data for the location.
    public var shownClass: SafetyClass? { coverage == .none ? nil : safetyClass }
    public var label: String { shownClass?.label ?? Coverage.noDataLabel }
    public var text: String { yearOverYear.text }
}

extension PointAnswer {
    /// The answer at a location from its radius counts: the class follows from the current count.
    init(lat: Double, lon: Double, parameters: QueryParameters, counts: (current: Int, previous: Int, handled: Int)) {
        self.init(
            lat: lat, lon: lon, radius: parameters.radius, asOf: parameters.asOf, current: counts.current,
            previous: counts.previous, handled: counts.handled,
            safetyClass: parameters.thresholds.classify(counts.current))
    }
}

extension IncidentIndex {
    public func pointAnswer(lat: Double, lon: Double) -> PointAnswer {
        pointAnswer(lat: lat, lon: lon, test: RadiusTest(radius: parameters.radius))
    }

    /// The same with a radius test built once for many queries.
    public func pointAnswer(lat: Double, lon: Double, test: RadiusTest) -> PointAnswer {
        PointAnswer(lat: lat, lon: lon, parameters: parameters, counts: radiusCounts(lat: lat, lon: lon, test: test))
    }

    /// Answers for many locations, in their order, spread over `threads` cores (a batch of phones
    /// or every point of interest). Each answer is the one `pointAnswer` gives alone.
    public func pointAnswers(_ locations: [(lat: Double, lon: Double)], threads: Int) -> [PointAnswer] {
        let test = RadiusTest(radius: parameters.radius)
        let workers = max(1, min(threads, locations.count / 1_000 + 1))
        return [PointAnswer](unsafeUninitializedCapacity: locations.count) { buffer, initialized in
            let output = UnsafeMutableSendableBuffer(buffer)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                // Contiguous slices: neighbouring locations share tree nodes in cache.
                let slice = (locations.count * worker / workers)..<(locations.count * (worker + 1) / workers)
                for k in slice {
                    let location = locations[k]
                    (output.base.baseAddress! + k).initialize(
                        to: pointAnswer(lat: location.lat, lon: location.lon, test: test))
                }
            }
            initialized = locations.count
        }
    }
}
