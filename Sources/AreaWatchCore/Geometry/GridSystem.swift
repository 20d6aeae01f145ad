/// A cell of a grid system, as one number: a geohash cell's prefix (its 5·P bits, right-aligned)
/// or an H3 index. Within one grid system, ascending `raw` is the cell order (SPEC §18):
/// geohash text order at a fixed precision, ascending 64-bit index for H3.
public struct GridCellID: Sendable, Hashable, Comparable {
    public let raw: UInt64

    public init(raw: UInt64) {
        self.raw = raw
    }

    public static func < (a: GridCellID, b: GridCellID) -> Bool { a.raw < b.raw }
}

/// Why a grid's text was refused; `message` names what was expected, not the option (each caller
/// adds the option or config key it read the text from).
public struct GridSystemError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The grid every heatmap, tile and hot-spot cell is taken from (SPEC §7.2, §18): geohash cells of
/// precision P or H3 cells of resolution R. Parsed and validated once; everything that differs
/// between the two is asked of it, so no code past the options sees a precision or a resolution.
public enum GridSystem: Sendable, Hashable, CustomStringConvertible {
    case geohash(precision: Int)
    case h3(resolution: Int)

    /// SPEC §18: `geohash:7` unless an option or the config says otherwise.
    public static let standard = GridSystem.geohash(precision: 7)

    /// Parses `geohash:P` (P 1…12) or `h3:R` (R 0…15), the system's name in either case; with
    /// `barePrecision`, a bare `P` too (`--precision P`, the short form of `--grid geohash:P`).
    public init(parsing text: some StringProtocol, barePrecision: Bool = false) throws(GridSystemError) {
        let expected = barePrecision ? "a geohash precision 1…12" : "geohash:P (P 1…12) or h3:R (R 0…15)"
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let system = parts.count == 2 ? parts[0].lowercased() : (barePrecision ? "geohash" : "")
        guard let number = parts.last.flatMap({ Int($0) }), parts.count == 2 || barePrecision,
            parts.last?.first != "+"
        else {
            throw GridSystemError(message: "expected \(expected), got '\(text)'")
        }
        switch system {
        case "geohash": self = .geohash(precision: number)
        case "h3": self = .h3(resolution: number)
        default: throw GridSystemError(message: "expected \(expected), got '\(text)'")
        }
        if let problem { throw GridSystemError(message: "\(problem), got '\(text)'") }
    }

    /// What is wrong with a grid built in code rather than parsed; nil when it is valid.
    public var problem: String? {
        switch self {
        case .geohash(let p): (1...Geohash.maxPrecision).contains(p) ? nil : "a geohash precision must be within 1…12"
        case .h3(let r): (0...H3.maxResolution).contains(r) ? nil : "an H3 resolution must be within 0…15"
        }
    }

    /// The text `init(parsing:)` reads back: `geohash:7`, `h3:9`.
    public var description: String {
        switch self {
        case .geohash(let p): "geohash:\(p)"
        case .h3(let r): "h3:\(r)"
        }
    }

    /// The precision of a geohash grid; nil for an H3 grid.
    public var geohashPrecision: Int? {
        if case .geohash(let p) = self { return p }
        return nil
    }

    /// How fine the grid is, as the outputs word it: `precision 7` (geohash, as always), `H3 resolution 9`.
    public var fineness: String {
        switch self {
        case .geohash(let p): "precision \(p)"
        case .h3(let r): "H3 resolution \(r)"
        }
    }

    /// The grid in words: `geohash precision 7`, `H3 resolution 9`.
    public var label: String {
        switch self {
        case .geohash(let p): "geohash precision \(p)"
        case .h3(let r): "H3 resolution \(r)"
        }
    }

    /// The name of the cell column/property in the grid's files: `geohash` or `h3`.
    public var cellColumn: String {
        switch self {
        case .geohash: "geohash"
        case .h3: "h3"
        }
    }

    /// The cell holding a location (finite, latitude −90…90; SPEC §6 for geohash, latLngToCell
    /// for H3).
    @inline(__always)
    public func cell(lat: Double, lon: Double) -> GridCellID {
        switch self {
        case .geohash(let p): GridCellID(raw: GeohashCell(lat: lat, lon: lon, precision: p).prefix)
        case .h3(let r): GridCellID(raw: H3.cell(lat: lat, lon: lon, resolution: r).index)
        }
    }

    /// A cell's centre: the midpoint of its bounds (geohash), cellToLatLng (H3).
    public func centre(of cell: GridCellID) -> (lat: Double, lon: Double) {
        switch self {
        case .geohash(let p): GeohashCell(prefix: cell.raw, precision: p).centre
        case .h3: H3Cell(validIndex: cell.raw).centre
        }
    }

    /// A cell's boundary, counter-clockwise and not closed: a geohash cell's corners from the
    /// south-west, an H3 cell's cellToBoundary vertices (longitudes in −180…180 as H3 gives them,
    /// so a ring across the antimeridian jumps there).
    public func boundary(of cell: GridCellID) -> [(lat: Double, lon: Double)] {
        switch self {
        case .geohash(let p):
            let b = GeohashCell(prefix: cell.raw, precision: p).bounds
            return [(b.minLat, b.minLon), (b.minLat, b.maxLon), (b.maxLat, b.maxLon), (b.maxLat, b.minLon)]
        case .h3:
            return H3Cell(validIndex: cell.raw).boundary
        }
    }

    /// The smallest latitude/longitude box holding a cell: a geohash cell's bounds, an H3 cell's
    /// `H3Cell.bounds`.
    public func bounds(of cell: GridCellID) -> GeoBox {
        switch self {
        case .geohash(let p): GeohashCell(prefix: cell.raw, precision: p).bounds
        case .h3: H3Cell(validIndex: cell.raw).bounds
        }
    }

    /// The cell of the coarser grid `coarser` (the same system, a precision or resolution at most
    /// this one's) that contains `cell`. In the cell order, the cells of one parent are adjacent.
    public func parent(of cell: GridCellID, in coarser: GridSystem) -> GridCellID {
        switch (self, coarser) {
        case (.geohash(let p), .geohash(let q)):
            GridCellID(raw: GeohashCell(prefix: cell.raw, precision: p).parent(precision: q).prefix)
        case (.h3, .h3(let r)):
            GridCellID(raw: H3Cell(validIndex: cell.raw).parent(resolution: r).index)
        default:
            preconditionFailure("a parent in another grid system")
        }
    }

    /// A cell's id text: its geohash, or the 15 lowercase hexadecimal digits of its H3 index.
    public func text(of cell: GridCellID) -> String {
        switch self {
        case .geohash(let p): GeohashCell(prefix: cell.raw, precision: p).string
        case .h3: H3Cell(validIndex: cell.raw).text
        }
    }

    /// Appends a cell's id text to `out` (the writers do this for every cell of every file).
    @inline(__always)
    public func appendText(of cell: GridCellID, to out: inout [UInt8]) {
        switch self {
        case .geohash(let p): GeohashCell(prefix: cell.raw, precision: p).appendCharacters(to: &out)
        case .h3: H3Cell(validIndex: cell.raw).appendCharacters(to: &out)
        }
    }

    /// The cell an id text names in this grid; nil for text of another precision, resolution or
    /// system, and for text that names no cell.
    public func cell(text: some StringProtocol) -> GridCellID? {
        switch self {
        case .geohash(let p):
            guard let c = GeohashCell(text), c.precision == p else { return nil }
            return GridCellID(raw: c.prefix)
        case .h3(let r):
            guard let c = H3Cell(text), c.resolution == r else { return nil }
            return GridCellID(raw: c.index)
        }
    }

    /// A cell's neighbours, itself excluded, ascending: geohash's eight (fewer at a pole), H3's
    /// gridDisk 1 (six, five for a pentagon).
    public func neighbours(of cell: GridCellID) -> [GridCellID] {
        switch self {
        case .geohash(let p):
            GeohashCell(prefix: cell.raw, precision: p).neighbours.map { GridCellID(raw: $0.prefix) }.sorted()
        case .h3: H3Cell(validIndex: cell.raw).neighbours.map { GridCellID(raw: $0.index) }
        }
    }

    /// Every cell whose centre is within the radius of a location (SPEC §7), ascending: the cells
    /// an incident there counts toward.
    public func cells(withCentreWithin test: RadiusTest, ofLat lat: Double, lon: Double) -> [GridCellID] {
        switch self {
        case .geohash(let p):
            GeohashCell.cells(withCentreWithin: test, ofLat: lat, lon: lon, precision: p)
                .map { GridCellID(raw: $0.prefix) }
        case .h3(let r):
            H3.cells(withCentreWithin: test, ofLat: lat, lon: lon, resolution: r).map { GridCellID(raw: $0.index) }
        }
    }
}
