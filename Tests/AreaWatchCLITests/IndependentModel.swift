import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// An independent re-computation of what the reports must say, written from SPEC §6–§8 alone:
// geohash lattice, haversine, windows, calendar years, the bundled inputs read with the test's
// own CSV/JSON readers, and the grid. Nothing here calls the engine;
// the calendar is `Civil` of the test support target.

/// The SPEC §7 windows at an as-of.
struct Windows {
    enum Window { case current, previous, older, future }
    let asOf: Int64
    let currentStart: Int64
    let previousStart: Int64

    init(asOf: Int64) {
        self.asOf = asOf
        currentStart = Civil.minusYears(asOf, 1)
        previousStart = Civil.minusYears(asOf, 2)
    }

    func window(_ t: Int64) -> Window {
        if t > asOf { return .future }
        if t > currentStart { return .current }
        if t > previousStart { return .previous }
        return .older
    }
}

/// Haversine as SPEC §7 states it.
enum Sphere {
    static let radius = 6_371_008.8

    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let p1 = lat1 * r, p2 = lat2 * r
        let dp = (lat2 - lat1) * r, dl = (lon2 - lon1) * r
        let a = pow(sin(dp / 2), 2) + cos(p1) * cos(p2) * pow(sin(dl / 2), 2)
        return 2 * radius * asin(min(1, a.squareRoot()))
    }
}

/// The geohash lattice at one precision: cell (i, j) = (longitude column, latitude row).
struct Lattice {
    struct Cell: Hashable, Comparable {
        var i: Int
        var j: Int
        static func < (a: Cell, b: Cell) -> Bool { (a.i, a.j) < (b.i, b.j) }
    }

    let precision: Int
    let lonBits: Int
    let latBits: Int
    let width: Double
    let height: Double
    static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")

    init(precision: Int) {
        self.precision = precision
        lonBits = (5 * precision + 1) / 2
        latBits = 5 * precision / 2
        width = 360 / Double(1 << lonBits)
        height = 180 / Double(1 << latBits)
    }

    /// The index of the interval holding `v`; a value equal to a split goes up (SPEC §6).
    private static func index(_ v: Double, min: Double, size: Double, count: Int) -> Int {
        var k = Int(((v - min) / size).rounded(.down))
        k = Swift.max(0, Swift.min(count - 1, k))
        while k > 0 && v < min + Double(k) * size { k -= 1 }
        while k < count - 1 && v >= min + Double(k + 1) * size { k += 1 }
        return k
    }

    func cell(lat: Double, lon: Double) -> Cell {
        Cell(
            i: Lattice.index(lon, min: -180, size: width, count: 1 << lonBits),
            j: Lattice.index(lat, min: -90, size: height, count: 1 << latBits))
    }

    func bounds(_ c: Cell) -> (minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        (
            -90 + Double(c.j) * height, -180 + Double(c.i) * width, -90 + Double(c.j + 1) * height,
            -180 + Double(c.i + 1) * width
        )
    }

    func centre(_ c: Cell) -> (lat: Double, lon: Double) {
        let b = bounds(c)
        return ((b.minLat + b.maxLat) / 2, (b.minLon + b.maxLon) / 2)
    }

    func geohash(_ c: Cell) -> String {
        var chars: [Character] = []
        var value = 0, bits = 0
        var lonBit = lonBits - 1, latBit = latBits - 1
        for k in 0..<(5 * precision) {
            let bit: Int
            if k % 2 == 0 {
                bit = (c.i >> lonBit) & 1
                lonBit -= 1
            } else {
                bit = (c.j >> latBit) & 1
                latBit -= 1
            }
            value = value << 1 | bit
            bits += 1
            if bits == 5 {
                chars.append(Lattice.alphabet[value])
                value = 0
                bits = 0
            }
        }
        return String(chars)
    }

    func cell(geohash: String) -> Cell? {
        guard geohash.count == precision else { return nil }
        var i = 0, j = 0, k = 0
        for ch in geohash {
            guard let v = Lattice.alphabet.firstIndex(of: ch) else { return nil }
            for b in stride(from: 4, through: 0, by: -1) {
                let bit = (v >> b) & 1
                if k % 2 == 0 { i = i << 1 | bit } else { j = j << 1 | bit }
                k += 1
            }
        }
        return Cell(i: i, j: j)
    }
}

/// The XYZ tile of a location (Web Mercator, OSM scheme), with the fractional position so a
/// caller can see when it lies on a tile edge.
func tileOf(lat: Double, lon: Double, zoom: Int) -> (x: Int, y: Int, xf: Double, yf: Double) {
    let n = Double(1 << zoom)
    let maxLat = 85.05112877980659
    let phi = min(max(lat, -maxLat), maxLat) * Double.pi / 180
    let xf = (lon + 180) / 360 * n
    let yf = (1 - asinh(tan(phi)) / Double.pi) / 2 * n
    return (
        min(max(Int(xf.rounded(.down)), 0), (1 << zoom) - 1), min(max(Int(yf.rounded(.down)), 0), (1 << zoom) - 1), xf,
        yf
    )
}

// MARK: - The bundled inputs, read independently

struct ModelIncident: Sendable {
    var id: String
    var time: Int64
    var lat: Double
    var lon: Double
    var latText: String
    var lonText: String
    var category: String?
    var handled: Bool?
    var user: String?
    var description: String?
}

struct PoliceFile: Sendable {
    var path: String
    var rows: Int
    var incidents: [ModelIncident]
    /// 1-based lines of the rows without coordinates (the `missing_coordinates` rejects).
    var rejectedLines: [Int]
    var categories: [String: Int]
}

enum BundledModel {
    /// A data.police.uk CSV: rows with both coordinates are incidents (time = the month's first
    /// second), the others are `missing_coordinates`.
    static func police(_ path: String) throws -> PoliceFile {
        let parsed = StrictCSV.parse(try readBytes(path))
        let h = parsed.header
        let id = try #require(h.firstIndex(of: "Crime ID")), month = try #require(h.firstIndex(of: "Month"))
        let lat = try #require(h.firstIndex(of: "Latitude")), lon = try #require(h.firstIndex(of: "Longitude"))
        let type = try #require(h.firstIndex(of: "Crime type"))
        var file = PoliceFile(path: path, rows: 0, incidents: [], rejectedLines: [], categories: [:])
        for row in parsed.records {
            file.rows += 1
            let f = row.fields
            guard !f[lat].isEmpty, !f[lon].isEmpty else {
                file.rejectedLines.append(row.line)
                continue
            }
            let ym = f[month].split(separator: "-").compactMap { Int($0) }
            try #require(ym.count == 2, "month \(f[month])")
            file.incidents.append(
                ModelIncident(
                    id: f[id], time: Civil.epoch(ym[0], ym[1], 1), lat: try #require(Double(f[lat])),
                    lon: try #require(Double(f[lon])),
                    latText: f[lat], lonText: f[lon], category: f[type].isEmpty ? nil : f[type], handled: nil))
            file.categories[f[type], default: 0] += 1
        }
        return file
    }

    struct WatchMeExport: Sendable {
        var path: String
        /// Accepted posts by push id.
        var posts: [String: ModelIncident]
        /// Rejected push id → reason (from the manifest).
        var rejected: [String: String]
        /// Every user id and non-empty description anywhere in the export.
        var userIDs: Set<String>
        var descriptions: Set<String>
        var userNodeStrings: Set<String>
    }

    /// A WatchMe export: every post of `posts`, minus those the manifest lists as rejected; the
    /// manifest's special posts carry their expected time, the others an epoch-seconds timestamp.
    static func watchme(_ path: String) throws -> WatchMeExport {
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(readBytes(dataset("watchme/manifest.json")))) as? [String: Any])
        let specials = try #require(manifest["special_posts"] as? [[String: Any]])
        var rejected: [String: String] = [:]
        var specialTime: [String: Int64] = [:]
        for s in specials {
            let id = try #require(s["push_id"] as? String)
            let expected = try #require(s["expected"] as? [String: Any])
            if expected["accepted"] as? Bool == false {
                rejected[id] = try #require(expected["reason"] as? String)
            } else if let t = expected["time"] as? String {
                let parsed: Int64 = try #require(Civil.parseISO(t))
                specialTime[id] = parsed
            }
        }
        let root = try #require(try JSONSerialization.jsonObject(with: Data(readBytes(path))) as? [String: Any])
        let posts = try #require(root["posts"] as? [String: Any])
        var export = WatchMeExport(
            path: path, posts: [:], rejected: [:], userIDs: [], descriptions: [], userNodeStrings: [])
        func number(_ v: Any?) -> (Double, String)? {
            if let n = v as? NSNumber { return (n.doubleValue, n.stringValue) }
            if let s = v as? String, let d = Double(s) { return (d, s) }
            return nil
        }
        for (id, value) in posts {
            if let post = value as? [String: Any] {
                if let u = post["user"] as? String, !u.isEmpty { export.userIDs.insert(u) }
                if let d = post["description"] as? String, !d.isEmpty { export.descriptions.insert(d) }
            }
            if let reason = rejected[id] {
                export.rejected[id] = reason
                continue
            }
            let post = try #require(value as? [String: Any], "post \(id)")
            let (lat, latText) = try #require(number(post["latitude"]), "latitude of \(id)")
            let (lon, lonText) = try #require(number(post["longitude"]), "longitude of \(id)")
            let time: Int64
            if let t = specialTime[id] {
                time = t
            } else {
                let n = try #require(post["timestamp"] as? NSNumber, "timestamp of \(id)")
                time = n.int64Value
                try #require(time < 100_000_000_000, "an unlisted millisecond timestamp in \(id)")
            }
            export.posts[id] = ModelIncident(
                id: id, time: time, lat: lat, lon: lon, latText: latText, lonText: lonText, category: nil,
                handled: post["policeArrived"] as? Bool, user: post["user"] as? String,
                description: post["description"] as? String)
        }
        if let users = root["users"] as? [String: Any] {
            for (uid, value) in users {
                export.userIDs.insert(uid)
                if let fields = value as? [String: Any] {
                    for (_, v) in fields { if let s = v as? String, s.count >= 6 { export.userNodeStrings.insert(s) } }
                }
            }
        }
        return export
    }

    /// Every incident the bundled nightly job stores: the three police files and the WatchMe
    /// posts (the later export's version of an edited post).
    static func all() throws -> [ModelIncident] {
        var incidents: [ModelIncident] = []
        for p in Datasets.police { incidents += try police(p).incidents }
        var posts: [String: ModelIncident] = [:]
        for w in Datasets.watchme { for (id, post) in try watchme(w).posts { posts[id] = post } }
        incidents += posts.keys.sorted().map { posts[$0]! }
        return incidents
    }
}

// MARK: - The grid, recomputed

/// One cell of the independent grid. Radius counts are ranges: a pair whose distance lies within
/// `margin` of the radius may go either way under a different (equally valid) rounding.
struct ModelCell {
    var nCurrent = 0
    var nPrevious = 0
    var rCurrent = 0...0
    var rPrevious = 0...0
    var handled = 0...0
    var years: [Int: Int] = [:]
}

struct ModelGrid {
    var precision: Int
    var radius: Double
    var windows: Windows
    /// Cells that must be reported (an incident inside or certainly within the radius).
    var required: [String: ModelCell]
    /// Cells that may be reported (only undecidable pairs).
    var optional: [String: ModelCell]
    var years: [Int]
    var current = 0
    var previous = 0
    var older = 0
    var future = 0
    var undecidedPairs = 0

    static let margin = 1e-6

    init(incidents: [ModelIncident], asOf: Int64, precision: Int, radius: Double) {
        self.precision = precision
        self.radius = radius
        windows = Windows(asOf: asOf)
        let lattice = Lattice(precision: precision)
        struct Acc {
            var nc = 0, np = 0, rcLo = 0, rcHi = 0, rpLo = 0, rpHi = 0, hLo = 0, hHi = 0
            var years: [Int: Int] = [:]
        }
        var acc: [Lattice.Cell: Acc] = [:]
        var yearSet = Set<Int>()
        let degrees = radius / (Sphere.radius * Double.pi / 180)
        for inc in incidents {
            let w = windows.window(inc.time)
            switch w {
            case .future:
                future += 1
                continue
            case .current: current += 1
            case .previous: previous += 1
            case .older: older += 1
            }
            let year = Civil.year(inc.time)
            yearSet.insert(year)
            let home = lattice.cell(lat: inc.lat, lon: inc.lon)
            acc[home, default: Acc()].years[year, default: 0] += 1
            if w == .current { acc[home, default: Acc()].nc += 1 }
            if w == .previous { acc[home, default: Acc()].np += 1 }
            guard w == .current || w == .previous else { continue }
            // Every cell whose centre may lie within the radius.
            let lo = lattice.cell(lat: max(-90, inc.lat - degrees), lon: -180)
            let hi = lattice.cell(lat: min(90, inc.lat + degrees), lon: -180)
            let cosLat = cos(min(89.9, abs(inc.lat) + degrees) * Double.pi / 180)
            let dLon = min(180, degrees / max(cosLat, 1e-9))
            let west = lattice.cell(lat: inc.lat, lon: max(-180, inc.lon - dLon)).i
            let east = lattice.cell(lat: inc.lat, lon: min(180, inc.lon + dLon)).i
            for j in max(0, lo.j - 1)...min((1 << lattice.latBits) - 1, hi.j + 1) {
                for i in max(0, west - 1)...min((1 << lattice.lonBits) - 1, east + 1) {
                    let c = Lattice.Cell(i: i, j: j)
                    let centre = lattice.centre(c)
                    let d = Sphere.distance(centre.lat, centre.lon, inc.lat, inc.lon)
                    guard d <= radius + ModelGrid.margin else { continue }
                    let certain = d <= radius - ModelGrid.margin
                    if !certain { undecidedPairs += 1 }
                    var a = acc[c, default: Acc()]
                    if w == .current {
                        a.rcHi += 1
                        if certain { a.rcLo += 1 }
                        if inc.handled == true {
                            a.hHi += 1
                            if certain { a.hLo += 1 }
                        }
                    } else {
                        a.rpHi += 1
                        if certain { a.rpLo += 1 }
                    }
                    acc[c] = a
                }
            }
        }
        years = yearSet.sorted()
        required = [:]
        optional = [:]
        for (c, a) in acc {
            let cell = ModelCell(
                nCurrent: a.nc, nPrevious: a.np, rCurrent: a.rcLo...a.rcHi, rPrevious: a.rpLo...a.rpHi,
                handled: a.hLo...a.hHi, years: a.years)
            if a.nc + a.np + a.rcLo + a.rpLo > 0 {
                required[lattice.geohash(c)] = cell
            } else if a.rcHi + a.rpHi > 0 {
                optional[lattice.geohash(c)] = cell
            }
        }
    }
}

/// SPEC §7 classes.
func classify(_ count: Int, thresholds: (Double, Double) = (5, 10)) -> String {
    Double(count) < thresholds.0 ? "safe" : Double(count) < thresholds.1 ? "medium" : "dangerous"
}

func label(of safetyClass: String) -> String {
    switch safetyClass {
    case "safe": return "Safe Area"
    case "medium": return "Medium Safety Area"
    default: return "Dangerous Area"
    }
}

/// The point-query answer (SPEC §7.1) recomputed by brute force, as ranges for undecidable pairs.
struct ModelAnswer {
    var current: ClosedRange<Int>
    var previous: ClosedRange<Int>
    var handled: ClosedRange<Int>
    var excludedFuture: Int

    init(
        incidents: [ModelIncident], lat: Double, lon: Double, asOf: Int64, radius: Double = 1000,
        filter: (ModelIncident) -> Bool = { _ in true }
    ) {
        let windows = Windows(asOf: asOf)
        var c = (0, 0), p = (0, 0), h = (0, 0), f = 0
        for inc in incidents where filter(inc) {
            let w = windows.window(inc.time)
            if w == .future {
                f += 1
                continue
            }
            guard w == .current || w == .previous else { continue }
            let d = Sphere.distance(lat, lon, inc.lat, inc.lon)
            guard d <= radius + ModelGrid.margin else { continue }
            let certain = d <= radius - ModelGrid.margin
            if w == .current {
                c.1 += 1
                if certain { c.0 += 1 }
                if inc.handled == true {
                    h.1 += 1
                    if certain { h.0 += 1 }
                }
            } else {
                p.1 += 1
                if certain { p.0 += 1 }
            }
        }
        current = c.0...c.1
        previous = p.0...p.1
        handled = h.0...h.1
        excludedFuture = f
    }
}
