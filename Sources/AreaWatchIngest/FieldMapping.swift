/// The incident fields an input column or member can fill (SPEC §2.3).
public enum IncidentField: String, CaseIterable, Sendable {
    case lat, lon, time, id, category, handled, description, user
    /// `--column point=Location` only (SPEC §2.5): one column holding both coordinates.
    case point

    /// Accepted names, normalized, best first: when several columns match, the earlier name wins.
    /// `description` and `user` are the WatchMe post members (SPEC §1); the table of §2.3 has no
    /// aliases for them, so only those names match.
    var aliases: [String] {
        switch self {
        case .lat: return ["latitude", "lat", "y"]
        case .lon: return ["longitude", "lon", "lng", "long", "x"]
        case .time: return ["timestamp", "time", "datetime", "date", "occurredat", "occurrencedate", "reportedat", "month"]
        case .id: return ["id", "crimeid", "incidentid", "postid", "eventid"]
        case .category: return ["category", "type", "crimetype", "offense", "offence", "mci"]
        case .handled: return ["handled", "policearrived"]
        case .description: return ["description"]
        case .user: return ["user"]
        case .point: return []
        }
    }
}

/// `--column field=Header` overrides, keyed by field.
public struct ColumnOverrides: Sendable, Equatable {
    public var names: [IncidentField: String] = [:]

    public init(_ names: [IncidentField: String] = [:]) {
        self.names = names
    }

    /// Parses `field=Header`; nil when the field is unknown or the header empty.
    public static func parse(_ text: String) -> (IncidentField, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        guard let field = IncidentField(rawValue: String(text[..<eq]).lowercased()) else { return nil }
        let header = String(text[text.index(after: eq)...])
        return header.isEmpty ? nil : (field, header)
    }

    /// `time=DATE+TIME` (SPEC §2.5): the two names when the time override joins two columns
    /// (split at the first `+`; a column whose whole name matches is still that one column).
    public var timeParts: (date: String, time: String)? {
        guard let text = names[.time], let plus = text.firstIndex(of: "+") else { return nil }
        let date = String(text[..<plus]).trimming(), time = String(text[text.index(after: plus)...]).trimming()
        return date.isEmpty || time.isEmpty ? nil : (date, time)
    }

    /// Overrides that contradict each other (a usage error), or nil.
    public var problem: String? {
        if names[.point] != nil && (names[.lat] != nil || names[.lon] != nil) {
            return "--column point=NAME gives both coordinates: give point, or lat and lon, not both"
        }
        return nil
    }
}

/// Case-, space-, `_`- and `-`-insensitive form of a column name (SPEC §2.3).
func normalizedName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for b in bytes where b != 32 && b != 95 && b != 45 && b != 9 {
        out.append((b >= 65 && b <= 90) ? b + 32 : b)
    }
    return String(decoding: out, as: UTF8.self)
}

func normalizedName(_ text: String) -> String {
    var copy = text
    return copy.withUTF8 { normalizedName($0) }
}

/// Which column (by position) fills each field, decided once per header or record shape.
struct FieldAssignment {
    /// Column index for each `IncidentField.allCases` position, or -1.
    private(set) var columnOf: [Int]
    /// Columns not assigned to a field: kept as attributes.
    private(set) var attributeColumns: [Int]
    /// The TIME column of `--column time=DATE+TIME` (`column(.time)` is DATE), or -1.
    private(set) var timePartColumn = -1
    /// A column that `--column time=DATE+TIME` names but the header lacks.
    private(set) var missingTimePart: String?

    init(names: [String], overrides: ColumnOverrides) {
        let normalized = names.map(normalizedName)
        var columnOf = [Int](repeating: -1, count: IncidentField.allCases.count)
        var taken = Set<Int>()
        func find(_ header: String) -> Int? {
            let wanted = normalizedName(header)
            return normalized.indices.first(where: { normalized[$0] == wanted && !taken.contains($0) })
        }
        // Explicit overrides first; then aliases in rank order, first column among equal names.
        for (slot, field) in IncidentField.allCases.enumerated() {
            if let header = overrides.names[field] {
                if let c = find(header) {
                    columnOf[slot] = c
                    taken.insert(c)
                } else if field == .time, let parts = overrides.timeParts {
                    if let d = find(parts.date) {
                        columnOf[slot] = d
                        taken.insert(d)
                    } else {
                        missingTimePart = parts.date
                    }
                    if let t = find(parts.time) {
                        timePartColumn = t
                        taken.insert(t)
                    } else if missingTimePart == nil {
                        missingTimePart = parts.time
                    }
                }
            }
        }
        // A point column stands for both coordinates: lat/lon names are then plain attributes.
        let pointGiven = overrides.names[.point] != nil
        for (slot, field) in IncidentField.allCases.enumerated() where columnOf[slot] < 0 && overrides.names[field] == nil {
            if pointGiven && (field == .lat || field == .lon) { continue }
            for alias in field.aliases {
                if let c = normalized.indices.first(where: { normalized[$0] == alias && !taken.contains($0) }) {
                    columnOf[slot] = c
                    taken.insert(c)
                    break
                }
            }
        }
        self.columnOf = columnOf
        // Among attribute columns with the same name the first wins; order by name for canonical text.
        var seen = Set<String>()
        var attributes: [Int] = []
        for c in names.indices where !taken.contains(c) && !names[c].isEmpty && seen.insert(names[c]).inserted {
            attributes.append(c)
        }
        attributeColumns = attributes.sorted { Array(names[$0].utf8).lexicographicallyPrecedes(Array(names[$1].utf8)) }
    }

    func column(_ field: IncidentField) -> Int {
        columnOf[IncidentField.allCases.firstIndex(of: field)!]
    }

    var hasCoordinates: Bool { (column(.lat) >= 0 && column(.lon) >= 0) || column(.point) >= 0 }
}
