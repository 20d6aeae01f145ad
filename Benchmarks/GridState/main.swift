import AreaWatchCore
import AreaWatchQuery
import Foundation

// The incremental grid state's night against a full grid recompute (issue 33): a state built
// from `stored` incidents gets `new` incidents and the as-of one day later, night after night;
// each night the same grid is recomputed whole from the stored and new incidents together.
//
//   swift build -c release --product bench-grid-state
//   .build/release/bench-grid-state [stored] [new] [nights] [system] [threads]
//
// Prints per night: the incremental apply, the grid made from the state (`result()`), and the
// full recompute (index + grid, from columns already in memory), and checks the two grids agree.

let arguments = CommandLine.arguments
let stored = arguments.count > 1 ? Int(arguments[1])! : 1_000_000
let fresh = arguments.count > 2 ? Int(arguments[2])! : 20_000
let nights = arguments.count > 3 ? Int(arguments[3])! : 3
let system = arguments.count > 4 ? try GridSystem(parsing: arguments[4]) : .geohash(precision: 7)
let threads = arguments.count > 5 ? Int(arguments[5])! : 2

/// A city 20 km wide: 60 Gaussian hotspots (100 m to 1.5 km) and a uniform background.
struct City {
    var rng = SplitMix64(seed: 42)
    let hotspots: [(lat: Double, lon: Double, sigma: Double)]

    init() {
        var r = SplitMix64(seed: 7)
        hotspots = (0..<60).map { _ in
            (
                53.80 + Double.random(in: -0.09...0.09, using: &r), -1.55 + Double.random(in: -0.15...0.15, using: &r),
                Double.random(in: 0.001...0.014, using: &r)
            )
        }
    }

    mutating func normal() -> Double {
        let u = max(Double.random(in: 0..<1, using: &rng), 1e-300), v = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    mutating func incident(key: Int, from: Int64, to: Int64) -> Incident {
        var lat: Double, lon: Double
        if rng.next() % 5 == 0 {
            lat = 53.80 + Double.random(in: -0.09...0.09, using: &rng)
            lon = -1.55 + Double.random(in: -0.15...0.15, using: &rng)
        } else {
            let h = hotspots[Int(rng.next() % UInt64(hotspots.count))]
            lat = h.lat + h.sigma * normal()
            lon = h.lon + 1.7 * h.sigma * normal()
        }
        let time = from + Int64(rng.next() % UInt64(to - from))
        let handled: Bool? = [true, false, nil][Int(rng.next() % 3)]
        return Incident(key: "i\(key)", time: time, precision: .second, lat: lat, lon: lon, handled: handled)
    }
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func format(_ s: Double) -> String { String(format: "%.3f s", s) }

let day: Int64 = 86_400
var asOf = UTCTime.days(year: 2025, month: 6, day: 30) * day + day - 1 // 2025-06-30T23:59:59Z
var city = City()
var columns = IncidentColumns()
for k in 0..<stored {
    let i = city.incident(key: k, from: asOf - 3 * 365 * day, to: asOf)
    columns.append(lat: i.lat, lon: i.lon, time: i.time, handled: i.handled, category: nil)
}
let parameters = QueryParameters(asOf: asOf)
var state: GridCountState?
let build = seconds {
    state = GridCountState(columns: columns, parameters: parameters, system: system, threads: threads)
}
print("\(system), \(stored) stored, \(threads) threads: state built in \(format(build)), \(state!.cellCount) cells")
var incrementalTimes: [Double] = [], fullTimes: [Double] = []
for night in 1...nights {
    let added = (0..<fresh).map { city.incident(key: stored + night * fresh + $0, from: asOf, to: asOf + day) }
    asOf += day
    // The incidents held that change window (the nightly finds them in the store's time index;
    // here a scan of the columns stands in for it, outside the timed apply).
    let ranges = state!.crossingRanges(to: asOf)
    let crossing = (0..<columns.count).filter { k in
        ranges.contains { columns.time[k] > $0.low && columns.time[k] <= $0.high }
    }.map { k in
        Incident(
            key: "", time: columns.time[k], precision: .second, lat: columns.lat[k], lon: columns.lon[k],
            handled: columns.handled[k] < 0 ? nil : columns.handled[k] == 1)
    }
    for i in added { columns.append(lat: i.lat, lon: i.lon, time: i.time, handled: i.handled, category: nil) }
    var summary: GridCountState.NightSummary?
    let apply = seconds { summary = state!.apply(asOf: asOf, crossing: crossing, removing: [], adding: added, threads: threads) }
    var incremental: GridResult?
    let assemble = seconds { incremental = state!.result() }
    var full: GridResult?
    var p = parameters
    p.asOf = asOf
    let recompute = seconds {
        full = IncidentIndex(columns: columns, parameters: p, threads: threads, pointQueries: false)
            .grid(system, threads: threads)
    }
    let same = incremental!.cells == full!.cells && incremental!.years == full!.years
    print(
        "night \(night): \(columns.count) incidents, \(summary!.changedIncidents) changed, "
            + "\(summary!.touchedCells) cells touched; apply \(format(apply)) + result() \(format(assemble)) "
            + "= \(format(apply + assemble)); full recompute \(format(recompute)); "
            + "ratio \(String(format: "%.1f", recompute / (apply + assemble)))x; identical grids: \(same)")
    precondition(same, "the incremental grid differs from the full recompute")
    incrementalTimes.append(apply + assemble)
    fullTimes.append(recompute)
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
print(
    "median over \(nights) nights: incremental \(format(median(incrementalTimes))), "
        + "full recompute \(format(median(fullTimes))), "
        + "ratio \(String(format: "%.1f", median(fullTimes) / median(incrementalTimes)))x")
