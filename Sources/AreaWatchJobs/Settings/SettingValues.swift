import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import AreaWatchReport
import ArgumentParser
import Foundation

// Typed values of the settings (docs/CONFIG.md): each parses its text once, at the edge, for the
// command line and the TOML config alike (the config is turned into the same arguments).

/// A decimal number as the ingest reads one: `[+-]digits[.digits][e[+-]digits]`, nothing else.
/// `Double(String)` would also take `0x10`, `inf` and `nan`, which ingest rejects.
public struct Decimal: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    public var value: Double

    public init(_ value: Double) { self.value = value }

    public init?(argument: String) {
        guard let v = DecimalParsing.parse(argument), v.isFinite else { return nil }
        value = v
    }

    public var description: String { NumberFormat.compact(value) }
    public var defaultValueDescription: String { description }
}

/// `--as-of`: an instant given as ISO 8601 text (SPEC §2.4's forms), e.g. `2018-07-31T23:59:59Z`,
/// or `latest`: the newest incident's time, known once the incidents are loaded (SPEC §7).
public enum AsOf: Sendable, Hashable, ExpressibleByArgument {
    case instant(Int64)
    case latest

    public init?(argument: String) {
        if argument == "latest" {
            self = .latest
            return
        }
        guard let parsed = TimeParser.parse(argument) else { return nil }
        self = .instant(parsed.seconds)
    }
}

/// The zooms of the widget tiles: `10-14`, `12`, or `none`.
public enum TileZooms: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    case none
    case range(ClosedRange<Int>)

    public static let standard = TileZooms.range(10...14)

    public init?(argument: String) {
        if argument == "none" {
            self = .none
            return
        }
        let parts = argument.filter { $0 != " " }.split(separator: "-", omittingEmptySubsequences: false).map {
            Int($0)
        }
        guard (1...2).contains(parts.count), let lo = parts[0], let hi = parts[parts.count - 1], lo <= hi else {
            return nil
        }
        self = .range(lo...hi)
    }

    /// nil: no tiles.
    public var zooms: ClosedRange<Int>? {
        if case .range(let r) = self { return r }
        return nil
    }

    public var description: String {
        guard let r = zooms else { return "none" }
        return r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)-\(r.upperBound)"
    }

    public var defaultValueDescription: String { description }
}

/// `--formats csv,pmtiles` (TOML: `["csv", "pmtiles"]`): the option's transform, so a refused
/// list says why.
extension OutputFormats {
    public static func checked(_ argument: String) throws -> OutputFormats {
        switch parse(argument) {
        case .success(let formats): return formats
        case .failure(let problem): throw ValidationError(problem.message)
        }
    }
}

/// `--public-url` (report and serve): the option's transform, so a refused URL says why.
extension PublicURL {
    public static func checked(_ argument: String) throws -> String {
        switch parse(argument) {
        case .success(let url): return url
        case .failure(let problem): throw ValidationError(problem.message)
        }
    }
}

/// `--basemap` (serve): the option's transform, so a refused URL says why.
extension BasemapURL {
    public static func checked(_ argument: String) throws -> String {
        switch parse(argument) {
        case .success(let url): return url
        case .failure(let problem): throw ValidationError(problem.message)
        }
    }
}

/// The two class bounds given together: `5,10` (TOML: `[5, 10]`).
extension Thresholds: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public var defaultValueDescription: String { description }
}

/// Band edges given together: `100,200,300,400` (TOML: `[100, 200, 300, 400]`); their ranges are
/// checked with the other near-repeat values.
public struct BandEdges: Sendable, Hashable, ExpressibleByArgument {
    public var edges: [Double]

    public init(_ edges: [Double]) { self.edges = edges }

    public init?(argument: String) {
        var edges: [Double] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let text = String(part).trimmingCharacters(in: .whitespaces)
            guard let v = DecimalParsing.parse(text), v.isFinite else { return nil }
            edges.append(v)
        }
        self.init(edges)
    }

    public var defaultValueDescription: String { edges.map(NumberFormat.compact).joined(separator: ",") }
}

/// `--delimiter`: `,` `;` or `tab`.
public struct Delimiter: Sendable, Hashable, ExpressibleByArgument {
    public var byte: UInt8

    public init?(argument: String) {
        switch argument {
        case ",", "comma": byte = UInt8(ascii: ",")
        case ";", "semicolon": byte = UInt8(ascii: ";")
        case "tab", "\\t", "\t": byte = UInt8(ascii: "\t")
        default: return nil
        }
    }
}

/// `--column field=Header`.
public struct ColumnMapping: Sendable, Hashable {
    public var field: IncidentField
    public var header: String

    /// The option's transform: a value that is not a mapping is a usage error saying why.
    public static func parse(_ argument: String) throws -> ColumnMapping {
        let (field, header) = try ColumnOverrides.checked(argument)
        return ColumnMapping(field: field, header: header)
    }
}

extension GridSystem {
    /// `--grid`'s transform (SPEC §18): text that names no grid is a usage error saying what is expected.
    public static func option(_ argument: String) throws -> GridSystem {
        do {
            return try GridSystem(parsing: argument)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

extension InputFormat: ExpressibleByArgument {}
extension IdlessMode: ExpressibleByArgument {}
extension GridStrategy: ExpressibleByArgument {}
