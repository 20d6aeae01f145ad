import AreaWatchCore

/// The ad-hoc path's sink (`report --input`, `query --input`): incidents straight from files into
/// query columns, with the same key semantics as the store (SPEC §4, §6).
///
/// Keys are remembered as 96-bit hashes (`KeyTable`), which is what lets 10M incidents fit the
/// memory goal. A record whose key is known is a duplicate when its content equals the row's:
/// the fields the columns hold are compared with them, the others (time precision, description,
/// user, attributes) through a 64-bit hash kept per row; most records have none of those, and
/// then nothing is hashed at all (the writing thread sets the ingest's pace, and a hash of every
/// record's whole content was its largest item).
public struct IncidentColumnsBuilder: IncidentSink {
    public private(set) var columns: IncidentColumns
    private var keys: KeyTable
    /// Per row: the hash of the content the columns do not hold (`otherFieldsHash`); empty while
    /// every row's is 0 (8 bytes an incident, 80 MB of the 10M job's peak, spent on zeros).
    private var otherFields: [Int] = []
    private let expectedCount: Int
    private let groupBy: String?
    private let keepKeys: Bool

    /// - Parameters:
    ///   - groupBy: the breakdown field (an attribute is loaded; the category always is).
    ///   - keepKeys: keep the keys too (for listing incidents).
    ///   - expectedCount: a guess of the number of incidents, to size the tables once.
    public init(groupBy: BreakdownField? = nil, keepKeys: Bool = false, expectedCount: Int = 0) {
        self.groupBy = groupBy?.attribute
        columns = IncidentColumns(keepsGroups: groupBy?.attribute != nil)
        self.keepKeys = keepKeys
        keys = KeyTable(expected: expectedCount)
        self.expectedCount = expectedCount
        columns.reserveCapacity(expectedCount)
    }

    /// Unless the keys are kept for listing, only their hashes are needed: the parallel CSV
    /// readers hash them where they parse them, and no key text is built (making, handing over and
    /// freeing each key's String across threads would fall on this writing thread, which sets the
    /// pace).
    public var keyIdentity: KeyIdentity { keepKeys ? .text : .hash }

    /// Slots start loading `prefetchDistance` incidents ahead: one slot's miss no longer stalls
    /// each write.
    public mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) {
        let incidents = batch.incidents
        guard let keyHashes = batch.keyHashes else {
            // Keys as text: hashed here, all before the first write so that slots load ahead.
            withUnsafeTemporaryAllocation(of: KeyHash.self, capacity: incidents.count) { hashes in
                for k in incidents.indices { hashes.initializeElement(at: k, to: KeyHash(incidents[k].key)) }
                write(incidents, keyHashes: UnsafeBufferPointer(hashes), outcome: outcome)
            }
            return
        }
        write(incidents, keyHashes: keyHashes, outcome: outcome)
    }

    private mutating func write(
        _ incidents: UnsafeBufferPointer<Incident>, keyHashes: UnsafeBufferPointer<KeyHash>,
        outcome: (WriteOutcome) -> Void
    ) {
        let n = incidents.count
        for k in 0..<min(n, Self.prefetchDistance) { keys.prefetch(a: keyHashes[k].a) }
        for k in 0..<n {
            if k + Self.prefetchDistance < n { keys.prefetch(a: keyHashes[k + Self.prefetchDistance].a) }
            outcome(write(incidents.baseAddress! + k, key: keyHashes[k]))
        }
    }

    /// Writes between a slot's prefetch and its use: enough for it to arrive from memory, few
    /// enough that it is still cached.
    static let prefetchDistance = 32

    /// Through a pointer, the incident's fields are read where they are: passed by value (even
    /// `borrowing`), the whole incident was copied for the call, a retain and a release per text
    /// field.
    private mutating func write(_ incident: UnsafePointer<Incident>, key: KeyHash) -> WriteOutcome {
        let others = IncidentColumnsBuilder.otherFieldsHash(incident)
        let category =
            incident.pointee.category == nil ? -1 : columns.internCategory(borrowing: incident.pointee.category!)
        let group = groupBy.flatMap { AttributeText.value(named: $0, in: incident.pointee.attributes) }
        let (lat, lon, time, handled) = (
            incident.pointee.lat, incident.pointee.lon, incident.pointee.time, incident.pointee.handled
        )
        if let i = keys.rowOrInsert(a: key.a, b: UInt32(truncatingIfNeeded: key.b)) {
            if otherFieldsHash(row: i) == others
                && columns.holds(i, lat: lat, lon: lon, time: time, handled: handled, categoryID: category)
            {
                return .duplicate
            }
            setOtherFieldsHash(others, row: i)
            columns.replace(at: i, lat: lat, lon: lon, time: time, handled: handled, categoryID: category, group: group)
            return .updated
        }
        setOtherFieldsHash(others, row: columns.count)
        columns.append(
            lat: lat, lon: lon, time: time, handled: handled, categoryID: category, group: group,
            key: keepKeys ? incident.pointee.key : nil)
        return .inserted
    }

    private func otherFieldsHash(row: Int) -> Int {
        otherFields.isEmpty ? 0 : otherFields[row]
    }

    /// Sets the hash of `row` (an existing row, or the next one, `columns.count`).
    private mutating func setOtherFieldsHash(_ hash: Int, row: Int) {
        if otherFields.isEmpty {
            guard hash != 0 else { return }
            otherFields.reserveCapacity(max(expectedCount, columns.count + 1))
            otherFields.append(contentsOf: repeatElement(0, count: columns.count))
        }
        if row == otherFields.count { otherFields.append(hash) } else { otherFields[row] = hash }
    }

    /// The content the columns do not hold (SPEC §4 compares every field but the key): 0 when it
    /// is all absent (a time to the second, no description, user or attributes), else a seeded
    /// hash that is never 0.
    static func otherFieldsHash(_ i: UnsafePointer<Incident>) -> Int {
        guard
            i.pointee.precision != .second || i.pointee.description != nil || i.pointee.user != nil
                || i.pointee.attributes != nil
        else { return 0 }
        var h = Hasher()
        h.combine(i.pointee.precision)
        h.combine(i.pointee.description)
        h.combine(i.pointee.user)
        h.combine(i.pointee.attributes)
        let value = h.finalize()
        return value == 0 ? 1 : value
    }
}
