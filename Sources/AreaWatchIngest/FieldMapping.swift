import AreaWatchCore

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
        case .time:
            return ["timestamp", "time", "datetime", "date", "occurredat", "occurrencedate", "reportedat", "month"]
        case .id: return ["id", "crimeid", "incidentid", "postid", "eventid"]
        case .category:
            // The portals' names (Chicago, New York, incident feeds) after the older ones, so that
            // a file read before they were added keeps its category column.
            return [
                "category", "type", "crimetype", "offense", "offence", "mci",
                "primarytype", "ofnsdesc", "incidenttype"
            ]
        case .handled: return ["handled", "policearrived"]
        case .description: return ["description"]
        case .user: return ["user"]
        case .point: return []
        }
    }

    /// The field a column of this name fills by SPEC §2.3's table (`Primary Type` → category),
    /// or nil when it would be kept as an attribute.
    public static func field(forName name: String) -> IncidentField? {
        let normalized = normalizedName(name)
        return allCases.first { $0.aliases.contains(normalized) }
    }
}

/// `--column field=Header` overrides, keyed by field.
public struct ColumnOverrides: Sendable, Equatable {
    public var names: [IncidentField: String] = [:]

    public init(_ names: [IncidentField: String] = [:]) {
        self.names = names
    }

    /// Parses `field=Header`; nil when it is not a mapping (`checked` says why).
    public static func parse(_ text: String) -> (IncidentField, String)? {
        try? checked(text)
    }

    /// Parses `field=Header`, or says why the text is not a mapping: no `=`, an unknown field,
    /// no name, or a `time=DATE+TIME` with a side left empty (`time=+`, `time=Date+`), which
    /// would otherwise look for a column named `+` and reject every record.
    public static func checked(_ text: String) throws(ColumnMappingError) -> (IncidentField, String) {
        guard let eq = text.firstIndex(of: "=") else {
            throw ColumnMappingError("expected field=Header, e.g. time=Reported At")
        }
        let name = String(text[..<eq])
        guard let field = IncidentField(rawValue: name.lowercased()) else {
            let fields = IncidentField.allCases.map(\.rawValue).joined(separator: " ")
            throw ColumnMappingError("unknown field \(ClosestName.quoted(name)) (the fields are \(fields))")
        }
        let header = String(text[text.index(after: eq)...])
        guard !header.trimming().isEmpty else {
            throw ColumnMappingError("no column name after \"\(field.rawValue)=\"")
        }
        if field == .time, let plus = header.firstIndex(of: "+"),
            header[..<plus].trimming().isEmpty || header[header.index(after: plus)...].trimming().isEmpty
        {
            throw ColumnMappingError(
                "time=DATE+TIME needs two column names, a date column before the '+' "
                    + "and a time column after it")
        }
        return (field, header)
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
        // One column fills one field: a second mapping to it would find nothing left.
        var claimed: [String: String] = [:]
        for field in IncidentField.allCases {
            guard let header = names[field] else { continue }
            var wanted = [header]
            if field == .time, let parts = timeParts { wanted += [parts.date, parts.time] }
            var own: [String] = []
            for name in wanted.map(normalizedName) where !own.contains(name) {
                own.append(name)
                if let other = claimed[name] {
                    return "--column \(other) and --column \(field.rawValue)=\(header) name the same column: "
                        + "a column fills one field"
                }
                claimed[name] = "\(field.rawValue)=\(header)"
            }
        }
        return nil
    }
}

/// Why a `--column` value is not a mapping (shown after the value in the usage error).
public struct ColumnMappingError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Case-, space-, `_`- and `-`-insensitive form of a column name (SPEC §2.3).
func normalizedName(_ bytes: Span<UInt8>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for i in bytes.indices {
        let b = bytes[i]
        if b != 32 && b != 95 && b != 45 && b != 9 { out.append((b >= 65 && b <= 90) ? b + 32 : b) }
    }
    return String(decoding: out, as: UTF8.self)
}

func normalizedName(_ text: String) -> String {
    normalizedName(text.utf8.span)
}

/// Which column (by position) fills each field, decided once per header or record shape.
struct FieldAssignment {
    /// Column index for each `IncidentField.allCases` position, or -1.
    private(set) var columnOf: [Int]
    /// Columns not assigned to a field: kept as attributes.
    private(set) var attributeColumns: [Int]
    /// The TIME column of `--column time=DATE+TIME` (`column(.time)` is DATE), or -1.
    private(set) var timePartColumn = -1
    /// `--column` mappings the header cannot satisfy, in field order: the mapping as given
    /// (`id=IncidentID_typo`), the column name it lacks, and whether a column of that name is
    /// there but already fills another field.
    private(set) var unmatched: [(mapping: String, missing: String, alreadyUsed: Bool)] = []

    init(names: [String], overrides: ColumnOverrides) {
        let normalized = names.map(normalizedName)
        var columnOf = [Int](repeating: -1, count: IncidentField.allCases.count)
        var taken = Set<Int>()
        func find(_ header: String) -> Int? {
            let wanted = normalizedName(header)
            return normalized.indices.first(where: { normalized[$0] == wanted && !taken.contains($0) })
        }
        var unmatched: [(mapping: String, missing: String, alreadyUsed: Bool)] = []
        func lacking(_ mapping: String, _ name: String) {
            unmatched.append((mapping, name, normalized.contains(normalizedName(name))))
        }
        // Explicit overrides first; then aliases in rank order, first column among equal names.
        for (slot, field) in IncidentField.allCases.enumerated() {
            guard let header = overrides.names[field] else { continue }
            let mapping = "\(field.rawValue)=\(header)"
            if let c = find(header) {
                columnOf[slot] = c
                taken.insert(c)
            } else if field == .time, let parts = overrides.timeParts {
                if let d = find(parts.date) {
                    columnOf[slot] = d
                    taken.insert(d)
                } else {
                    lacking(mapping, parts.date)
                }
                if let t = find(parts.time) {
                    timePartColumn = t
                    taken.insert(t)
                } else {
                    lacking(mapping, parts.time)
                }
            } else {
                lacking(mapping, header)
            }
        }
        self.unmatched = unmatched
        // A point column stands for both coordinates: lat/lon names are then plain attributes.
        let pointGiven = overrides.names[.point] != nil
        for (slot, field) in IncidentField.allCases.enumerated()
        where columnOf[slot] < 0 && overrides.names[field] == nil {
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
