/// The incidents a query runs over, one array per field (struct of arrays): what the query stage
/// needs and nothing else, ~30 bytes an incident. Built from the store or, on the ad-hoc path,
/// straight from input files; either way the query stage is a pure function of these columns.
public struct IncidentColumns: Sendable {
    public private(set) var lat: [Double] = []
    public private(set) var lon: [Double] = []
    /// UTC epoch seconds.
    public private(set) var time: [Int64] = []
    /// 1 true, 0 false, -1 unknown.
    public private(set) var handled: [Int8] = []
    /// Index into `categories`, -1 when absent.
    public private(set) var category: [Int32] = []
    public private(set) var categories: [String] = []
    /// Index into `groupValues` of the `--group-by` attribute (when it is not `category`), -1 when
    /// absent; empty unless the columns keep groups (4 bytes an incident otherwise spent on -1).
    public private(set) var group: [Int32] = []
    public let keepsGroups: Bool
    public private(set) var groupValues: [String] = []
    /// Keys, kept only when a caller lists incidents (`query --list`); otherwise empty.
    public private(set) var keys: [String] = []

    private var categoryIndex: [String: Int32] = [:]
    /// `categoryIndex` for the texts seen most, found without SipHashing them.
    private var recentCategories = TextNumberCache()
    private var groupIndex: [String: Int32] = [:]

    /// `keepsGroups`: false when no `--group-by` attribute is loaded (the `group` column stays empty).
    public init(keepsGroups: Bool = true) {
        self.keepsGroups = keepsGroups
    }

    public var count: Int { lat.count }

    public mutating func reserveCapacity(_ n: Int) {
        lat.reserveCapacity(n)
        lon.reserveCapacity(n)
        time.reserveCapacity(n)
        handled.reserveCapacity(n)
        category.reserveCapacity(n)
        if keepsGroups { group.reserveCapacity(n) }
    }

    /// Appends one incident; `group` is the value of the group-by attribute, if one is loaded.
    public mutating func append(
        lat: Double, lon: Double, time: Int64, handled: Bool?, category: String?,
        group: String? = nil, key: String? = nil
    ) {
        let id = internCategory(category)
        append(lat: lat, lon: lon, time: time, handled: handled, categoryID: id, group: group, key: key)
    }

    /// Appends one incident whose category is already interned (`internCategory`): the store's
    /// loader interns each distinct category once instead of hashing a String per row.
    public mutating func append(
        lat: Double, lon: Double, time: Int64, handled: Bool?, categoryID: Int32,
        group: String? = nil, key: String? = nil
    ) {
        if let key { keys.append(key) }
        self.lat.append(lat)
        self.lon.append(lon)
        self.time.append(time)
        self.handled.append(IncidentColumns.code(handled))
        self.category.append(categoryID)
        if keepsGroups { self.group.append(IncidentColumns.intern(group, in: &groupValues, index: &groupIndex)) }
    }

    /// Takes whole columns at once (a column snapshot's, `category` already numbered by
    /// `internCategory`); no group attribute, no keys. The columns must have equal lengths.
    public mutating func adopt(lat: [Double], lon: [Double], time: [Int64], handled: [Int8], category: [Int32]) {
        precondition(
            lon.count == lat.count && time.count == lat.count && handled.count == lat.count
                && category.count == lat.count && count == 0, "columns of unequal lengths")
        self.lat = lat
        self.lon = lon
        self.time = time
        self.handled = handled
        self.category = category
        group = [Int32](repeating: -1, count: lat.count)
    }

    /// The index of a category in `categories`, added when new; -1 for none.
    public mutating func internCategory(_ value: String?) -> Int32 {
        guard let value else { return -1 }
        return internCategory(borrowing: value)
    }

    /// `internCategory` of a text borrowed where the caller keeps it (an ingest block's incident):
    /// a category seen before is found by its bytes, without the retain and release a copy of the
    /// String costs per incident.
    @inline(__always)
    public mutating func internCategory(borrowing value: borrowing String) -> Int32 {
        if let known = recentCategories.number(of: value) { return known }
        let text = copy value
        let id = IncidentColumns.intern(text, in: &categories, index: &categoryIndex)
        recentCategories.remember(text, as: id)
        return id
    }

    /// Replaces incident `i` (a later record with the same key won).
    public mutating func replace(
        at i: Int, lat: Double, lon: Double, time: Int64, handled: Bool?, category: String?,
        group: String? = nil
    ) {
        replace(
            at: i, lat: lat, lon: lon, time: time, handled: handled, categoryID: internCategory(category), group: group)
    }

    /// `replace` with the category already interned (`internCategory`).
    public mutating func replace(
        at i: Int, lat: Double, lon: Double, time: Int64, handled: Bool?, categoryID: Int32,
        group: String? = nil
    ) {
        self.lat[i] = lat
        self.lon[i] = lon
        self.time[i] = time
        self.handled[i] = IncidentColumns.code(handled)
        self.category[i] = categoryID
        if keepsGroups { self.group[i] = IncidentColumns.intern(group, in: &groupValues, index: &groupIndex) }
    }

    /// Whether incident `i` holds exactly these values (coordinates compared bit for bit, as the
    /// store compares them).
    public func holds(_ i: Int, lat: Double, lon: Double, time: Int64, handled: Bool?, categoryID: Int32) -> Bool {
        self.lat[i].bitPattern == lat.bitPattern && self.lon[i].bitPattern == lon.bitPattern && self.time[i] == time
            && self.handled[i] == IncidentColumns.code(handled) && category[i] == categoryID
    }

    public static func code(_ handled: Bool?) -> Int8 {
        handled.map { $0 ? 1 : 0 } ?? -1
    }

    private static func intern(_ value: String?, in values: inout [String], index: inout [String: Int32]) -> Int32 {
        guard let value else { return -1 }
        if let known = index[value] { return known }
        let id = Int32(values.count)
        values.append(value)
        index[value] = id
        return id
    }

    /// Bytes held by the columns.
    public var memoryBytes: Int { count * (8 + 8 + 8 + 1 + 4 + (keepsGroups ? 4 : 0)) }
}
