import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Foundation
import Testing

// Shared helpers of the query tests: a seeded generator, paths relative to this file, loading
// incident files the way the ad-hoc path does, and reference computations written here from
// SPEC §6–§7 without the engine's code (window bounds from Foundation's calendar, geohash by
// bisection, distances by `Haversine.distance`).

/// Distributions the query tests draw from, on the shared seeded generator.
extension SplitMix64 {
    mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }
    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &self), 1e-300), u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2)
    }
}

enum Paths {
    /// The package root, derived from this file's location (Tests/AreaWatchQueryTests/…).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func dataset(_ relative: String) -> String {
        packageRoot.appendingPathComponent("datasets").appendingPathComponent(relative).path
    }

    static let calderdaleFiles: [String] = ["2016-07", "2017-07", "2018-07"].map {
        dataset("police-uk/\($0)-calderdale-street.csv")
    }

    /// `../shared` beside the package: the conformance data, when present. The environment
    /// variable `AREAWATCH_SHARED` names another folder of the same layout (e.g. for a git
    /// worktree, whose package root is not beside it).
    static let shared: URL =
        ProcessInfo.processInfo.environment["AREAWATCH_SHARED"].map { URL(fileURLWithPath: $0) }
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    static var sharedAvailable: Bool {
        FileManager.default.fileExists(
            atPath: shared.appendingPathComponent("conformance/police-uk-points-r1000.csv").path)
            && FileManager.default.fileExists(
                atPath: shared.appendingPathComponent("data/police-uk/2018-07-west-yorkshire-street.csv").path)
    }

    /// A fixture bundled with this test target.
    static func fixture(_ name: String) throws -> String {
        let base = try #require(Bundle.module.resourceURL, "the test bundle has no resources")
        let path = base.appendingPathComponent("Fixtures").appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "fixture \(name) missing at \(path)")
        return path
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("areawatch-querytests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Epoch seconds of an ISO 8601 UTC text `YYYY-MM-DDTHH:MM:SSZ`, parsed with Foundation.
func epoch(_ iso: String) -> Int64 {
    let f = ISO8601DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    guard let date = f.date(from: iso) else { fatalError("bad ISO time \(iso)") }
    return Int64(date.timeIntervalSince1970)
}

/// SPEC §7 windows computed with Foundation's Gregorian calendar (not the engine's `UTCTime`).
struct ReferenceWindows: Sendable {
    let asOf: Int64
    let currentStart: Int64
    let previousStart: Int64

    enum Window: Sendable, Equatable { case current, previous, older, future }

    init(asOf: Int64) {
        self.asOf = asOf
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let t = Date(timeIntervalSince1970: TimeInterval(asOf))
        currentStart = Int64(calendar.date(byAdding: .year, value: -1, to: t)!.timeIntervalSince1970)
        previousStart = Int64(calendar.date(byAdding: .year, value: -2, to: t)!.timeIntervalSince1970)
    }

    func window(_ t: Int64) -> Window {
        if t > asOf { return .future }
        if t > currentStart { return .current }
        if t > previousStart { return .previous }
        return .older
    }
}

/// Incidents as plain rows, for building `IncidentColumns` and for the references.
struct TestIncident: Sendable {
    var lat: Double
    var lon: Double
    var time: Int64
    var handled: Bool?
    var category: String?
}

extension Array where Element == TestIncident {
    var columns: IncidentColumns {
        var c = IncidentColumns()
        for i in self { c.append(lat: i.lat, lon: i.lon, time: i.time, handled: i.handled, category: i.category) }
        return c
    }
}

/// Thresholds 5, 10 as SPEC §7 states them.
func referenceClass(_ c: Int) -> String { c < 5 ? "safe" : c < 10 ? "medium" : "dangerous" }

// MARK: - Reference point answer

struct ReferencePoint: Equatable, CustomStringConvertible {
    var current = 0
    var previous = 0
    var handled = 0

    var description: String { "current \(current) previous \(previous) handled \(handled)" }
}

/// Every incident against the location: SPEC §7.1 by brute force.
func referencePoint(
    _ incidents: [TestIncident], windows: ReferenceWindows, lat: Double, lon: Double,
    radius: Double
) -> ReferencePoint {
    var r = ReferencePoint()
    for i in incidents {
        let w = windows.window(i.time)
        guard w == .current || w == .previous else { continue }
        guard Haversine.distance(lat1: lat, lon1: lon, lat2: i.lat, lon2: i.lon) <= radius else { continue }
        if w == .current {
            r.current += 1
            if i.handled == true { r.handled += 1 }
        } else {
            r.previous += 1
        }
    }
    return r
}

// MARK: - Reference geohash (bisection, SPEC §6)

enum ReferenceGeohash {
    static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")

    static func lonBits(_ p: Int) -> Int { (5 * p + 1) / 2 }
    static func latBits(_ p: Int) -> Int { 5 * p / 2 }
    static func cellWidth(_ p: Int) -> Double { 360 / Double(1 << lonBits(p)) }
    static func cellHeight(_ p: Int) -> Double { 180 / Double(1 << latBits(p)) }

    /// The interval index of `value` after `bits` halvings of [low, high]; a value equal to a
    /// split goes to the upper half.
    static func bisect(_ value: Double, low: Double, high: Double, bits: Int) -> Int {
        var lo = low, hi = high, index = 0
        for _ in 0..<bits {
            let mid = (lo + hi) / 2
            if value >= mid {
                index = index << 1 | 1
                lo = mid
            } else {
                index = index << 1
                hi = mid
            }
        }
        return index
    }

    static func row(lat: Double, precision p: Int) -> Int { bisect(lat, low: -90, high: 90, bits: latBits(p)) }
    static func column(lon: Double, precision p: Int) -> Int { bisect(lon, low: -180, high: 180, bits: lonBits(p)) }

    /// The geohash of a lattice cell as an integer: bits interleaved starting with longitude.
    static func bits(row: Int, column: Int, precision p: Int) -> UInt64 {
        var lonLeft = lonBits(p), latLeft = latBits(p), value: UInt64 = 0
        for i in 0..<(5 * p) {
            let bit: Int
            if i % 2 == 0 {
                lonLeft -= 1
                bit = (column >> lonLeft) & 1
            } else {
                latLeft -= 1
                bit = (row >> latLeft) & 1
            }
            value = value << 1 | UInt64(bit)
        }
        return value
    }

    /// The geohash text of the integer form, 5 bits a character.
    static func string(bits: UInt64, precision p: Int) -> String {
        String((0..<p).map { alphabet[Int((bits >> UInt64(5 * (p - 1 - $0))) & 31)] })
    }

    static func string(row: Int, column: Int, precision p: Int) -> String {
        string(bits: bits(row: row, column: column, precision: p), precision: p)
    }

    static func centre(row: Int, column: Int, precision p: Int) -> (lat: Double, lon: Double) {
        (-90 + (Double(row) + 0.5) * cellHeight(p), -180 + (Double(column) + 0.5) * cellWidth(p))
    }
}

// MARK: - Reference grid (SPEC §7.2, brute force)

/// One grid row as compared: the first eleven columns of grid.csv, numbers kept exact. `bits`
/// is the geohash as an integer (5 bits a character), which sorts like the text.
struct GridRow: Equatable, CustomStringConvertible {
    var bits: UInt64
    var precision: Int
    var lat: Double
    var lon: Double
    var nCurrent: Int
    var nPrevious: Int
    var rCurrent: Int
    var rPrevious: Int
    var handled: Int
    var safetyClass: String

    var geohash: String { ReferenceGeohash.string(bits: bits, precision: precision) }

    var description: String {
        "\(geohash) (\(lat), \(lon)) n \(nCurrent)/\(nPrevious) r \(rCurrent)/\(rPrevious) handled \(handled) \(safetyClass)"
    }
}

extension GridResult {
    var rows: [GridRow] {
        cells.map {
            let centre = $0.cell.centre
            return GridRow(
                bits: $0.cell.prefix, precision: $0.cell.precision, lat: centre.lat, lon: centre.lon,
                nCurrent: $0.nCurrent, nPrevious: $0.nPrevious, rCurrent: $0.rCurrent,
                rPrevious: $0.rPrevious, handled: $0.handled, safetyClass: $0.safetyClass.rawValue)
        }
    }
}

enum ReferenceGrid {
    /// The cells (row, unwrapped columns) of a generous lat/lon box around one incident: it holds
    /// every cell centre the incident can be within `radius` of. A point of the spherical cap of
    /// angular radius δ around (φ, λ) has |latitude| ≤ |φ| + δ, and along the geodesic to it
    /// dλ·cos(latitude) ≤ ds, so its longitude gap is ≤ δ / cos(|φ| + δ). The box takes 1.1 × δ
    /// plus two cells on every side, and whole rows when it reaches a pole or the gap exceeds 180°.
    static func box(lat: Double, lon: Double, radius: Double, precision p: Int)
        -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>, wholeRows: Bool)
    {
        let rowCount = 1 << ReferenceGeohash.latBits(p), columnCount = 1 << ReferenceGeohash.lonBits(p)
        let h = ReferenceGeohash.cellHeight(p), w = ReferenceGeohash.cellWidth(p)
        let delta = radius / Haversine.earthRadius * 180 / Double.pi
        let latLow = lat - 1.1 * delta - 2 * h, latHigh = lat + 1.1 * delta + 2 * h
        let rowLow = max(0, Int(((latLow + 90) / h).rounded(.down)))
        let rowHigh = min(rowCount - 1, Int(((latHigh + 90) / h).rounded(.down)))
        let farthest = abs(lat) + 1.1 * delta
        if farthest >= 89.999 {
            return (rowLow...rowHigh, 0...(columnCount - 1), true)
        }
        let gap = 1.1 * delta / Foundation.cos(farthest * Double.pi / 180) + 2 * w
        if 2 * gap >= 360 - 2 * w { return (rowLow...rowHigh, 0...(columnCount - 1), true) }
        let colLow = Int(((lon - gap + 180) / w).rounded(.down))
        let colHigh = Int(((lon + gap + 180) / w).rounded(.down))
        return (rowLow...rowHigh, colLow...colHigh, false)
    }

    static func boxCellCount(lat: Double, lon: Double, radius: Double, precision p: Int) -> Int {
        let b = box(lat: lat, lon: lon, radius: radius, precision: p)
        return b.rows.count * b.columns.count
    }

    /// SPEC §7.2 by brute force: every windowed incident against every cell centre of the box
    /// around it (`Haversine.distance(…) <= radius`), plus every windowed incident into its own
    /// cell; reported when either count is non-zero. Incidents at the same coordinates are
    /// evaluated once with their multiplicities (the same distances, so the same decisions).
    /// Hits are collected as packed (cell, point) integers and summed after one sort, which keeps
    /// debug builds fast enough. Precisions up to 8.
    static func grid(
        _ incidents: [TestIncident], windows: ReferenceWindows, radius: Double,
        precision p: Int
    ) -> [GridRow] {
        precondition(p <= 8, "the packed keys hold 40 bits of cell")
        struct Counts { var nc = 0, np = 0, rc = 0, rp = 0, h = 0 }
        struct PointKey: Hashable {
            var lat: UInt64
            var lon: UInt64
        }
        let lonBits = ReferenceGeohash.lonBits(p)
        let columnCount = 1 << lonBits
        let h = ReferenceGeohash.cellHeight(p), w = ReferenceGeohash.cellWidth(p)
        var cells: [Int: Counts] = [:] // row << lonBits | column
        var points: [PointKey: Int] = [:]
        var pointLat: [Double] = [], pointLon: [Double] = []
        var weights: [(c: Int, p: Int, h: Int)] = []
        for i in incidents {
            let win = windows.window(i.time)
            guard win == .current || win == .previous else { continue }
            let key =
                ReferenceGeohash.row(lat: i.lat, precision: p) << lonBits
                | ReferenceGeohash.column(lon: i.lon, precision: p)
            if win == .current { cells[key, default: Counts()].nc += 1 } else { cells[key, default: Counts()].np += 1 }
            let pk = PointKey(lat: i.lat.bitPattern, lon: i.lon.bitPattern)
            let slot: Int
            if let s = points[pk] {
                slot = s
            } else {
                slot = weights.count
                points[pk] = slot
                pointLat.append(i.lat)
                pointLon.append(i.lon)
                weights.append((0, 0, 0))
            }
            if win == .current {
                weights[slot].c += 1
                if i.handled == true { weights[slot].h += 1 }
            } else {
                weights[slot].p += 1
            }
        }
        precondition(weights.count < 1 << 22)
        var hits: [UInt64] = []
        for slot in weights.indices {
            let lat = pointLat[slot], lon = pointLon[slot]
            let b = box(lat: lat, lon: lon, radius: radius, precision: p)
            for row in b.rows {
                let centreLat = -90 + (Double(row) + 0.5) * h
                for x in b.columns {
                    let column = x < 0 ? x + columnCount : (x >= columnCount ? x - columnCount : x)
                    let centreLon = -180 + (Double(column) + 0.5) * w
                    if Haversine.distance(lat1: lat, lon1: lon, lat2: centreLat, lon2: centreLon) <= radius {
                        hits.append(UInt64(row << lonBits | column) << 22 | UInt64(slot))
                    }
                }
            }
        }
        hits.sort()
        // Merge the radius hits (sorted by cell) with the cells that hold incidents.
        let own = cells.keys.sorted()
        var rows: [GridRow] = []
        var k = 0, o = 0
        while k < hits.count || o < own.count {
            let hitKey = k < hits.count ? Int(hits[k] >> 22) : Int.max
            let key = o < own.count ? min(own[o], hitKey) : hitKey
            var c = Counts()
            if o < own.count && own[o] == key {
                c = cells[key]!
                o += 1
            }
            while k < hits.count && Int(hits[k] >> 22) == key {
                let wgt = weights[Int(hits[k] & 0x3F_FFFF)]
                c.rc += wgt.c
                c.rp += wgt.p
                c.h += wgt.h
                k += 1
            }
            let row = key >> lonBits, column = key & (columnCount - 1)
            let centre = ReferenceGeohash.centre(row: row, column: column, precision: p)
            rows.append(
                GridRow(
                    bits: ReferenceGeohash.bits(row: row, column: column, precision: p), precision: p,
                    lat: centre.lat, lon: centre.lon, nCurrent: c.nc, nPrevious: c.np,
                    rCurrent: c.rc, rPrevious: c.rp, handled: c.h, safetyClass: referenceClass(c.rc)))
        }
        rows.sort { $0.bits < $1.bits }
        return rows
    }
}

/// Differences between two lists of grid rows sorted by geohash (at most `limit` described).
func gridDifferences(expected: [GridRow], actual: [GridRow], limit: Int = 8) -> [String] {
    var out: [String] = []
    var total = 0
    var i = 0, j = 0
    func note(_ s: String) {
        total += 1
        if out.count < limit { out.append(s) }
    }
    while i < expected.count || j < actual.count {
        if j >= actual.count || (i < expected.count && expected[i].bits < actual[j].bits) {
            note("missing \(expected[i])")
            i += 1
        } else if i >= expected.count || actual[j].bits < expected[i].bits {
            note("extra \(actual[j])")
            j += 1
        } else {
            if expected[i] != actual[j] { note("expected \(expected[i]), got \(actual[j])") }
            i += 1
            j += 1
        }
    }
    if total > out.count { out.append("… \(total - out.count) more differences") }
    return out
}

// MARK: - Loading files the ad-hoc way

struct LoadedFiles: Sendable {
    var columns: IncidentColumns
    var reports: [FileIngestReport]
}

/// Files → `IncidentColumnsBuilder`, in order, as `report --input` reads them.
func loadFiles(
    _ paths: [String], groupBy: BreakdownField? = nil, keepKeys: Bool = false,
    rejects: RejectsWriter? = nil
) throws -> LoadedFiles {
    var builder = IncidentColumnsBuilder(groupBy: groupBy, keepKeys: keepKeys)
    var reports: [FileIngestReport] = []
    for path in paths {
        let (sha, bytes) = try FileDigest.sha256(path: path)
        reports.append(
            try FileIngester.ingest(
                path: path, sha256: sha, bytes: bytes, options: IngestOptions(),
                into: &builder, rejects: rejects))
        try rejects?.endFile()
    }
    return LoadedFiles(columns: builder.columns, reports: reports)
}

/// The columns back as rows (category names resolved).
func testIncidents(of columns: IncidentColumns) -> [TestIncident] {
    (0..<columns.count).map { i in
        TestIncident(
            lat: columns.lat[i], lon: columns.lon[i], time: columns.time[i],
            handled: columns.handled[i] < 0 ? nil : columns.handled[i] == 1,
            category: columns.category[i] < 0 ? nil : columns.categories[Int(columns.category[i])])
    }
}

/// Reads a whole file (gzip decompressed) as text, through the ingest layer's byte source.
func readText(_ path: String) throws -> String {
    let source = try ByteSource(path: path)
    var bytes: [UInt8] = []
    let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
    defer { chunk.deallocate() }
    while true {
        let n = try source.read(into: chunk, capacity: 1 << 16)
        if n == 0 { break }
        bytes.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A tiny RFC 4180 reader (quotes, doubled quotes, CRLF, blank lines skipped), independent of
/// the ingest layer. With `columns`, only those fields of each record are kept (as "" for the
/// others), which keeps debug builds quick on the 19 MB West Yorkshire files.
func parseCSV(_ text: String, columns: Set<Int>? = nil) -> [[String]] {
    var bytes = Array(text.utf8)
    if bytes.last != 10 { bytes.append(10) }
    var rows: [[String]] = []
    bytes.withUnsafeBufferPointer { b in
        var row: [String] = []
        var field: [UInt8] = []
        var inQuotes = false, quoted = false
        var k = 0
        let n = b.count
        while k < n {
            let c = b[k]
            if inQuotes {
                if c == 34 {
                    if k + 1 < n && b[k + 1] == 34 {
                        field.append(34)
                        k += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == 34 {
                inQuotes = true
                quoted = true
            } else if c == 44 || c == 10 || c == 13 {
                let keep = columns?.contains(row.count) ?? true
                row.append(keep ? String(decoding: field, as: UTF8.self) : "")
                field.removeAll(keepingCapacity: true)
                if c != 44 {
                    if c == 13 && k + 1 < n && b[k + 1] == 10 { k += 1 }
                    if !(row.count == 1 && row[0].isEmpty && !quoted) { rows.append(row) }
                    row.removeAll(keepingCapacity: true)
                    quoted = false
                }
            } else {
                field.append(c)
            }
            k += 1
        }
    }
    return rows
}

/// The lines of a text (LF or CRLF), split on bytes.
func textLines(_ text: String) -> [String] {
    text.utf8.split(separator: 10).map { line in
        String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
    }
}

/// A CSV file as header → value dictionaries.
func readCSVRecords(_ path: String, columns names: [String]? = nil) throws -> (header: [String], records: [[String]]) {
    let text = try readText(path)
    let firstLine = String(text.utf8.prefix { $0 != 10 && $0 != 13 }) ?? ""
    let header = parseCSV(firstLine)[0].map { $0.hasPrefix("\u{FEFF}") ? String($0.dropFirst()) : $0 }
    let wanted = names.map { Set($0.compactMap { header.firstIndex(of: $0) }) }
    var rows = parseCSV(text, columns: wanted)
    rows.removeFirst()
    return (header, rows)
}
