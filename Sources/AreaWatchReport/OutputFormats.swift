/// A kind of file a report writes (SPEC §19, `--formats`). Each names the files it adds:
/// summary.json is always written and holds what every other output is checked against.
public enum OutputFormat: String, CaseIterable, Sendable, Comparable {
    /// grid.csv with grid.csvt and grid.prj, areas.csv, poi.csv, breakdown.csv, timeseries.csv,
    /// ehsa.csv with ehsa.prj, nearrepeat.csv.
    case csv
    /// grid.geojson, areas.geojson, ehsa.geojson.
    case geojson
    /// The static widget tiles: tiles/{z}/{x}/{y}.json and tiles/tilejson.json.
    case tiles
    /// grid.pmtiles: the same tiles as vector tiles in one archive.
    case pmtiles
    /// report.html.
    case html
    /// grid.parquet, areas.parquet, ehsa.parquet (GeoParquet).
    case parquet
    /// grid.gpkg: the grid, areas, points of interest and EHSA layers in one GeoPackage.
    case gpkg

    public static func < (a: OutputFormat, b: OutputFormat) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The formats a report writes: a set given as a comma-separated list (`csv,pmtiles`).
public struct OutputFormats: Sendable, Hashable, CustomStringConvertible {
    public var members: Set<OutputFormat>

    public init(_ members: Set<OutputFormat>) { self.members = members }

    /// Every format a report writes when none is named.
    public static let standard = OutputFormats(Set(OutputFormat.allCases))

    public func contains(_ format: OutputFormat) -> Bool { members.contains(format) }

    /// Parses `csv,geojson` (spaces and tabs ignored, order free, a name at most once);
    /// the reason otherwise, naming what is allowed.
    public static func parse(_ text: String) -> Result<OutputFormats, FormatListError> {
        var members = Set<OutputFormat>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(part.filter { $0 != " " && $0 != "\t" })
            guard let format = OutputFormat(rawValue: name) else {
                return .failure(
                    FormatListError(
                        message: name.isEmpty
                            ? "--formats has an empty name in \"\(text)\"; \(Self.allowed)"
                            : "--formats does not know \"\(name)\"; \(Self.allowed)"))
            }
            guard members.insert(format).inserted else {
                return .failure(FormatListError(message: "--formats names \"\(name)\" twice"))
            }
        }
        return .success(OutputFormats(members))
    }

    static var allowed: String {
        "the formats are " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// The list in the order of `OutputFormat.allCases`.
    public var description: String { members.sorted().map(\.rawValue).joined(separator: ",") }
}

/// Why a `--formats` list was refused.
public struct FormatListError: Error, Sendable {
    public let message: String
}
