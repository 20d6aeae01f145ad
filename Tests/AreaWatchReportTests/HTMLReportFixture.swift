import AreaWatchCore
import AreaWatchQuery
import Foundation

@testable import AreaWatchReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A report built by the real query stage from synthetic incidents around Halifax (UK):
/// a dangerous cluster, a medium one with fewer incidents than the year before, a lonely cell
/// with two incidents, a row of adjacent cells and a sparse diagonal band.
enum Fixture {
    static let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
    static let year: Int64 = 365 * 86_400
    static let precision = 6
    static let categories: [String?] = ["Burglary", "<script>alert(1)</script>", "Vehicle & bike crime", nil]

    static let clusterA = GeohashCell(lat: 53.72, lon: -1.86, precision: precision).centre
    static let clusterB = GeohashCell(lat: 53.745, lon: -1.80, precision: precision).centre
    /// The lonely cell: two current incidents, nothing else within the radius.
    static let lonely = GeohashCell(lat: 53.65, lon: -1.70, precision: precision).centre

    /// One synthetic incident before the query stage sees it.
    struct Incident {
        var lat: Double
        var lon: Double
        var time: Int64
    }

    static func incidents() -> [Incident] {
        var random = SplitMix64(seed: 7)
        var out: [Incident] = []
        func add(_ centre: (lat: Double, lon: Double), spread: Double, count: Int, ageFrom: Int64, ageTo: Int64) {
            for _ in 0..<count {
                out.append(
                    Incident(
                        lat: centre.lat + random.uniform(-spread, spread) * 0.66,
                        lon: centre.lon + random.uniform(-spread, spread),
                        time: asOf - Int64(random.uniform(Double(ageFrom), Double(ageTo)))))
            }
        }
        let current: (Int64, Int64) = (86_400, year - 86_400),
            previous: (Int64, Int64) = (year + 86_400, 2 * year - 86_400)
        add(clusterA, spread: 0.0012, count: 14, ageFrom: current.0, ageTo: current.1)
        add(clusterA, spread: 0.0012, count: 6, ageFrom: previous.0, ageTo: previous.1)
        add(clusterA, spread: 0.0012, count: 5, ageFrom: 3 * year, ageTo: 4 * year)
        add(clusterB, spread: 0.0012, count: 7, ageFrom: current.0, ageTo: current.1)
        add(clusterB, spread: 0.0012, count: 9, ageFrom: previous.0, ageTo: previous.1)
        add(lonely, spread: 0.0002, count: 2, ageFrom: current.0, ageTo: current.1)
        // A row of ten adjacent cells, one incident each.
        let west = GeohashCell(lat: 53.70, lon: -1.95, precision: precision)
        for k in 0..<10 {
            let c = GeohashCell(lonIndex: west.lonIndex + UInt64(k), latIndex: west.latIndex, precision: precision)
                .centre
            add(
                c, spread: 0.0003, count: 1, ageFrom: k % 2 == 0 ? current.0 : previous.0,
                ageTo: k % 2 == 0 ? current.1 : previous.1)
        }
        // A diagonal band, incidents 900 m apart: no cell centre is within 300 m of two of them.
        for k in 0..<20 {
            add(
                (53.66 + 0.004 * Double(k), -1.99 + 0.012 * Double(k)), spread: 0.0002, count: 1,
                ageFrom: current.0, ageTo: k % 3 == 0 ? 3 * year : current.1)
        }
        // After the as-of: counted only as excluded_future.
        out.append(Incident(lat: clusterA.lat + 0.0001, lon: clusterA.lon + 0.00017, time: asOf + 10 * 86_400))
        return out
    }

    static func incidentLocations() -> [(Double, Double)] { incidents().map { ($0.lat, $0.lon) } }

    static func columns() -> IncidentColumns {
        var columns = IncidentColumns()
        for (k, i) in incidents().enumerated() {
            columns.append(
                lat: i.lat, lon: i.lon, time: i.time, handled: k % 3 == 0 ? true : k % 3 == 1 ? false : nil,
                category: categories[k % categories.count])
        }
        return columns
    }

    static func areas() -> [NamedArea] {
        func square(_ c: (lat: Double, lon: Double), _ r: Double) -> [(lon: Double, lat: Double)] {
            [
                (c.lon - r, c.lat - r * 0.6), (c.lon + r, c.lat - r * 0.6), (c.lon + r, c.lat + r * 0.6),
                (c.lon - r, c.lat + r * 0.6)
            ]
        }
        return [
            NamedArea(id: "Town <centre> & \"quoted\"", polygons: [GeoPolygon(rings: [square(clusterA, 0.01)])]),
            NamedArea(
                id: "North ring",
                polygons: [GeoPolygon(rings: [square(clusterB, 0.02), square(clusterB, 0.0006).reversed()])])
        ]
    }

    static func content(minCellCount: Int = 1) -> ReportContent {
        let parameters = QueryParameters(asOf: asOf, radius: 300)
        let columns = columns()
        let index = IncidentIndex(columns: columns, parameters: parameters)
        let areas = areas()
        let pois = [
            PointOfInterest(name: "Café <b>bold</b>", lat: clusterA.lat, lon: clusterA.lon),
            PointOfInterest(name: "Lonely corner", lat: lonely.lat, lon: lonely.lon)
        ]
        let inputs = [
            InputSummary(
                path: "exports/day <1> & 'a'.csv", sha256: String(repeating: "a", count: 64), format: "csv",
                records: 80, accepted: 78, inserted: 78, updated: 0, duplicates: 0, rejected: 2,
                rejectsByReason: ["missing_coordinates": 1, "null_island": 1], skipped: false),
            InputSummary(
                path: "exports/day2.json", sha256: String(repeating: "b", count: 64), format: "json",
                records: 0, accepted: 0, inserted: 0, updated: 0, duplicates: 0, rejected: 0,
                rejectsByReason: [:], skipped: true)
        ]
        return ReportContent(
            parameters: parameters, grid: index.grid(precision: precision), totals: index.totals(), tileZooms: 10...14,
            disclosure: Disclosure(minCellCount: minCellCount),
            areas: AreaReport(result: index.areas(areas), areas: areas, idProperty: "name"),
            pointsOfInterest: index.pointsOfInterest(pois),
            breakdown: index.breakdown(columns: columns, field: "category"),
            sourceKind: "files", sourcePath: nil, inputs: inputs, timings: [("ingest", 0.25)],
            attribution: "Test attribution", engineVersion: "9.9.9-test")
    }

    /// The runs `M x y h w v 1 h -w z` of a merged heatmap path.
    static func runs(_ d: String) -> [(x: Int, y: Int, width: Int)] {
        d.split(separator: "M").map { run in
            let numbers = run.split(whereSeparator: { "hvz ".contains($0) }).compactMap { Int($0) }
            return (numbers[0], numbers[1], numbers[2])
        }
    }
}

extension SplitMix64 {
    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
}

/// A minimal element tree read with Foundation's XMLParser: the page is XML apart from its doctype.
final class XMLTree {
    let name: String
    let attributes: [String: String]
    var children: [XMLTree] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ markup: String) throws -> XMLTree {
        let body = markup.hasPrefix("<!DOCTYPE html>") ? String(markup.dropFirst("<!DOCTYPE html>".count)) : markup
        let builder = Builder()
        let parser = XMLParser(data: Data(body.utf8))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(
                description: "line \(parser.lineNumber): \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        return root
    }

    /// Every element below this one with that name, in document order.
    func descendants(_ name: String) -> [XMLTree] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }

    /// The text of this element and everything inside it.
    var allText: String { text + children.map(\.allText).joined() }

    final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let node = XMLTree(name: name, attributes: attributes)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            // Mixed content is read as one string per element (enough for table cells and titles).
            stack.last?.text += string
        }
    }
}
