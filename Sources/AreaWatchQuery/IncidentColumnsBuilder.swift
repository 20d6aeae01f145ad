import AreaWatchCore

/// The ad-hoc path's sink (`report --input`, `query --input`): incidents straight from files into
/// query columns, with the same key semantics as the store (SPEC §4, §6).
///
/// Keys are remembered as 96-bit hashes (`KeyTable`), which is what lets 10M incidents fit the
/// memory goal. A record whose key is known is a duplicate when its content equals the row's:
/// the fields the columns hold are compared with them, the others (time precision, description,
/// user, attributes) through a 64-bit hash kept per row; most records have none of those, and
/// then nothing is hashed at all (hashing every record's content was ~12 % of the writing
/// thread at 1M).
public struct IncidentColumnsBuilder: IncidentSink {
    public private(set) var columns: IncidentColumns
    private var keys: KeyTable
    /// Per row: the hash of the content the columns do not hold (`otherFieldsHash`).
    private var otherFields: [Int] = []
    private let groupBy: String?
    private let keepKeys: Bool

    struct KeyHash: Hashable {
        var a: UInt64
        var b: UInt64
    }

    /// - Parameters:
    ///   - groupBy: the breakdown field (an attribute is loaded; the category always is).
    ///   - keepKeys: keep the keys too (for listing incidents).
    ///   - expectedCount: a guess of the number of incidents, to size the tables once.
    public init(groupBy: BreakdownField? = nil, keepKeys: Bool = false, expectedCount: Int = 0) {
        self.groupBy = groupBy?.attribute
        columns = IncidentColumns(keepsGroups: groupBy?.attribute != nil)
        self.keepKeys = keepKeys
        keys = KeyTable(expected: expectedCount)
        otherFields.reserveCapacity(expectedCount)
        columns.reserveCapacity(expectedCount)
    }

    public mutating func write(_ incident: Incident) throws -> WriteOutcome {
        let key = IncidentColumnsBuilder.hash(incident.key)
        // The table's slot is a cache miss at 1M keys: it loads while the category is interned.
        keys.prefetch(a: key.a)
        return write(incident, key: key)
    }

    /// The keys of the whole batch are hashed and their slots start loading first: one slot's
    /// miss no longer stalls each write.
    public mutating func write(contentsOf incidents: [Incident], outcome: (WriteOutcome) -> Void) {
        withUnsafeTemporaryAllocation(of: KeyHash.self, capacity: incidents.count) { hashes in
            for k in incidents.indices {
                let key = IncidentColumnsBuilder.hash(incidents[k].key)
                keys.prefetch(a: key.a)
                hashes.initializeElement(at: k, to: key)
            }
            for k in incidents.indices { outcome(write(incidents[k], key: hashes[k])) }
        }
    }

    private mutating func write(_ incident: borrowing Incident, key: KeyHash) -> WriteOutcome {
        let others = IncidentColumnsBuilder.otherFieldsHash(incident)
        let category = columns.internCategory(incident.category)
        let group = groupBy.flatMap { AttributeText.value(named: $0, in: incident.attributes) }
        if let i = keys.rowOrInsert(a: key.a, b: UInt32(truncatingIfNeeded: key.b)) {
            if otherFields[i] == others && columns.holds(i, lat: incident.lat, lon: incident.lon, time: incident.time,
                                                         handled: incident.handled, categoryID: category) {
                return .duplicate
            }
            otherFields[i] = others
            columns.replace(at: i, lat: incident.lat, lon: incident.lon, time: incident.time,
                            handled: incident.handled, categoryID: category, group: group)
            return .updated
        }
        otherFields.append(others)
        columns.append(lat: incident.lat, lon: incident.lon, time: incident.time, handled: incident.handled,
                       categoryID: category, group: group, key: keepKeys ? incident.key : nil)
        return .inserted
    }

    /// The key's bytes are hashed, as the store compares keys (SQLite TEXT), not the String:
    /// Swift's String hashing follows canonical equivalence, so two keys the store keeps apart
    /// would merge here.
    static func hash(_ key: String) -> KeyHash {
        var key = key
        return key.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            var h1 = Hasher(), h2 = Hasher()
            h1.combine(0x5EED_0001 as UInt64)
            h1.combine(bytes: bytes)
            h2.combine(0x5EED_0002 as UInt64)
            h2.combine(bytes: bytes)
            return KeyHash(a: UInt64(bitPattern: Int64(h1.finalize())), b: UInt64(bitPattern: Int64(h2.finalize())))
        }
    }

    /// The content the columns do not hold (SPEC §4 compares every field but the key): 0 when it
    /// is all absent (a time to the second, no description, user or attributes), else a seeded
    /// hash that is never 0.
    static func otherFieldsHash(_ i: borrowing Incident) -> Int {
        guard i.precision != .second || i.description != nil || i.user != nil || i.attributes != nil else { return 0 }
        var h = Hasher()
        h.combine(i.precision)
        h.combine(i.description)
        h.combine(i.user)
        h.combine(i.attributes)
        let value = h.finalize()
        return value == 0 ? 1 : value
    }
}
